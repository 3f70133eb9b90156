package explore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// saveTrace is a synthetic trace of n saves of config.json, each a temp
// file written in two parts (6 KiB of JSON: torn states exist) and renamed
// over the name; every fifth save fsyncs the file and the directory.
func saveTrace(b testing.TB, root string, n int) string {
	var lines []string
	for i := range n {
		doc := fmt.Sprintf(`{"save": %d, "pad": "%s"}`, i, strings.Repeat("x", 6000))
		lines = append(lines,
			`openat(AT_FDCWD, "/R/config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
			fmt.Sprintf(`write(3, "%s", %d) = %d`, hexString(doc[:3000]), 3000, 3000),
			fmt.Sprintf(`write(3, "%s", %d) = %d`, hexString(doc[3000:]), len(doc)-3000, len(doc)-3000),
		)
		if i%5 == 4 {
			lines = append(lines, `fsync(3) = 0`)
		}
		lines = append(lines, `close(3) = 0`, `rename("/R/config.json.tmp", "/R/config.json") = 0`)
		if i%5 == 4 {
			lines = append(lines, `openat(AT_FDCWD, "/R", O_RDONLY|O_DIRECTORY) = 4`, `fsync(4) = 0`, `close(4) = 0`)
		}
	}
	return writeTrace(b, root, lines...)
}

// BenchmarkExplore measures states per second over a 20-save trace with a
// trivial checker and with a Python one, on one worker and on every CPU,
// and splits the time between building states and running checkers:
//
//	go test ./explore -run '^$' -bench Explore -benchtime 3x
func BenchmarkExplore(b *testing.B) {
	// The system python3: a version manager's shim (pyenv) is a shell
	// script that costs more than the checker itself.
	py := "/usr/bin/python3"
	if _, err := exec.LookPath(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			py = ""
		}
	}
	checkers := []struct{ name, cmd string }{
		{"true", "true"},
		{"python", py + ` -c "import json,os; os.path.exists('config.json') and json.load(open('config.json'))"`},
	}
	for _, c := range checkers {
		for _, jobs := range []int{1, runtime.NumCPU()} {
			b.Run(fmt.Sprintf("checker=%s/jobs=%d", c.name, jobs), func(b *testing.B) {
				if c.name == "python" && py == "" {
					b.Skip("python3 is not installed")
				}
				root := filepath.Join(b.TempDir(), "root")
				trace := saveTrace(b, root, 20)
				initial := writeTree(b, map[string]string{"config.json": `{"save": -1}`, "other/notes.txt": "untouched"})
				var states int
				var mat, chk, wall time.Duration
				for b.Loop() {
					res := runTrace(b, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: c.cmd, Jobs: jobs, Timeout: time.Minute})
					states += res.Checked
					mat += res.Materialize
					chk += res.Check
					wall += res.Wall
				}
				b.ReportMetric(float64(states)/wall.Seconds(), "states/s")
				b.ReportMetric(float64(mat.Microseconds())/float64(states), "build-µs/state")
				b.ReportMetric(float64(chk.Microseconds())/float64(states), "check-µs/state")
				b.ReportMetric(float64(states)/float64(b.N), "states/op")
			})
		}
	}
}

// hexString escapes every byte as strace -xx does.
func hexString(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "\\x%02x", s[i])
	}
	return b.String()
}

// BenchmarkExploreTree measures states per second when five saves go into
// a tree of 1,000 other files the trace never touches (100 directories of
// 10 files of 2 KiB), with the checker `true` on every CPU: what a state
// costs to build when most of the tree is the same in every state.
//
//	go test ./explore -run '^$' -bench ExploreTree -benchtime 3x
func BenchmarkExploreTree(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	trace := saveTrace(b, root, 5)
	files := map[string]string{"config.json": `{"save": -1}`}
	for i := range 1000 {
		files[fmt.Sprintf("data/d%02d/f%d.txt", i/10, i)] = strings.Repeat(fmt.Sprintf("%d ", i), 2048/len(fmt.Sprint(i))+1)[:2048]
	}
	initial := writeTree(b, files)
	var states, cands, reused int
	var mat, wall, cpu time.Duration
	for b.Loop() {
		c := cpuTime()
		res := runTrace(b, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: "true", Jobs: runtime.NumCPU(), Timeout: time.Minute})
		cpu += cpuTime() - c
		states += res.Checked
		cands += res.Built
		reused += res.Reused
		mat += res.Materialize
		wall += res.Wall
	}
	b.ReportMetric(float64(states)/wall.Seconds(), "states/s")
	b.ReportMetric(float64(mat.Microseconds())/float64(states), "build-µs/state")
	// Of crashsim, its runners and the checkers, which they reap: what a
	// state costs the machine, whatever else runs on it.
	b.ReportMetric(float64(cpu.Microseconds())/float64(states), "cpu-µs/state")
	b.ReportMetric(float64(states)/float64(b.N), "states/op")
	b.ReportMetric(float64(reused)/float64(cands), "reused/built")
}

// BenchmarkCheckerRun measures one run of the checker `true` on a state
// directory, through the worker's runner, jailed (when crashsim can make
// namespaces) and not: what a state costs beyond building it.
//
//	go test ./explore -run '^$' -bench CheckerRun
func BenchmarkCheckerRun(b *testing.B) {
	for _, jailed := range []bool{true, false} {
		b.Run(fmt.Sprintf("jailed=%v", jailed), func(b *testing.B) {
			if jailed && !canJail() {
				b.Skip("needs CAP_SYS_ADMIN for namespaces")
			}
			noJail = !jailed
			defer func() { noJail = false }()
			work := b.TempDir()
			dir := filepath.Join(work, "state")
			if err := os.Mkdir(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			e := &explorer{opt: Options{Checker: "true", Timeout: time.Minute}, work: work}
			w := &worker{}
			defer w.close()
			for b.Loop() {
				s := &state{dir: dir}
				if err := e.check(context.Background(), s, w); err != nil || s.failed {
					b.Fatal(err, s.why, string(s.output))
				}
			}
		})
	}
}

// BenchmarkExploreManyFiles measures a trace that saves many files (each
// a temp file renamed over its name, half of them fsynced, a directory
// fsync every 10): most crash points have more joint states than
// MaxJoint and are sampled, and every state holds hundreds of paths. The
// checker is `true` on every CPU.
//
//	go test ./explore -run '^$' -bench ExploreManyFiles -benchtime 1x
func BenchmarkExploreManyFiles(b *testing.B) {
	root := "/tmp/bench" // gentrace's
	var buf bytes.Buffer
	if _, err := gentrace.WriteFiles(&buf, gentrace.FilesOptions{Files: 30, PerDir: 10}); err != nil {
		b.Fatal(err)
	}
	trace := filepath.Join(b.TempDir(), "files.strace")
	if err := os.WriteFile(trace, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	var states, cands int
	var mat, wall time.Duration
	for b.Loop() {
		res := runTrace(b, trace, Options{Trace: trace, Root: root, Checker: "true", Jobs: runtime.NumCPU(), Timeout: time.Minute})
		states += res.Checked
		cands += res.Candidates
		mat += res.Materialize
		wall += res.Wall
	}
	b.ReportMetric(float64(states)/wall.Seconds(), "states/s")
	b.ReportMetric(float64(cands)/float64(b.N), "candidates/op")
	b.ReportMetric(float64(mat.Microseconds())/float64(cands), "build-µs/candidate")
	b.ReportMetric(float64(states)/float64(b.N), "states/op")
}
