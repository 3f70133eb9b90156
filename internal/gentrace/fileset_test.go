package gentrace_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/gentrace"
)

// checkTrace runs the library's check on a trace, as crashsim check does,
// and counts its findings per rule and the paths each names.
func checkTrace(t *testing.T, trace []byte) (rules map[string]int, paths map[string]map[string]bool, res *crashsim.Result) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "gen.strace")
	if err := os.WriteFile(name, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	c := crashsim.Check{Inputs: crashsim.Inputs{Traces: []string{name}}}
	res, err := c.Run()
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	t.Cleanup(func() { res.Close() })
	rules, paths = map[string]int{}, map[string]map[string]bool{}
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		rules[f.Rule.ID]++
		if paths[f.Rule.ID] == nil {
			paths[f.Rule.ID] = map[string]bool{}
		}
		paths[f.Rule.ID][f.Path] = true
	}
	return rules, paths, res
}

func TestFileSetShapes(t *testing.T) {
	const files, perDir = 2500, 300
	const dirs = (files + perDir - 1) / perDir // 9, more than the threads
	for _, form := range []gentrace.Form{gentrace.FormTrace, gentrace.FormTTTY} {
		for _, settled := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/settled=%v", form, settled), func(t *testing.T) {
				opt := gentrace.FileSetOptions{Files: files, PerDir: perDir, Seed: 5, Form: form, Settled: settled}
				var a, b, c bytes.Buffer
				lines, err := gentrace.WriteFileSet(&a, opt)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := gentrace.WriteFileSet(&b, opt); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Error("the same seed gave two different traces")
				}
				opt.Seed++
				if _, err := gentrace.WriteFileSet(&c, opt); err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(a.Bytes(), c.Bytes()) {
					t.Error("another seed gave the same trace")
				}
				if n := int64(strings.Count(a.String(), "\n")); n != lines {
					t.Errorf("WriteFileSet says %d lines, the trace has %d", lines, n)
				}

				counts, _ := events(t, a.Bytes())
				opens, syncs := files, 0
				if settled {
					opens, syncs = 2*files+dirs, 2*files+dirs // each file, its directory after it, the root after each mkdir
				}
				if counts["openat"] != opens || counts["write"] != files || counts["fsync"] != syncs || counts["mkdirat"] != dirs || counts["clone"] != 4 {
					t.Errorf("%d openat, %d write, %d fsync, %d mkdirat, %d clone; want %d, %d, %d, %d, 4",
						counts["openat"], counts["write"], counts["fsync"], counts["mkdirat"], counts["clone"], opens, files, syncs, dirs)
				}
				text := a.String()
				if settled && (!strings.Contains(text, " <unfinished ...>\n") || !strings.Contains(text, "<... fsync resumed>) ")) {
					t.Error("no fsync split by another thread's line: the threads do not interleave")
				}
				if form == gentrace.FormTrace && (strings.Contains(text, "</") || strings.Contains(text, " 1795")) {
					t.Error("the crashsim trace form has fd paths or timestamps")
				}
				if form == gentrace.FormTTTY && !strings.Contains(text, "write(5</srv/bench/d0/f0.json>, \"{\\\"id\\\": 0, ") {
					t.Error("the ttt-y form does not print the first write with its path and data")
				}

				rules, paths, res := checkTrace(t, a.Bytes())
				if len(res.Warnings) > 0 {
					t.Errorf("blind spots: %v", res.Warnings)
				}
				if res.Summary.Files != files {
					t.Errorf("%d files in scope, want %d", res.Summary.Files, files)
				}
				if settled {
					if len(rules) > 0 {
						t.Errorf("findings on the settled trace: %v", rules)
					}
					return
				}
				// Every file's data and name can be lost, and every
				// directory's name: nothing else is wrong.
				want := map[string]int{"data-not-synced": files, "name-not-synced": files + dirs}
				if fmt.Sprint(rules) != fmt.Sprint(want) {
					t.Errorf("findings %v, want %v", rules, want)
				}
				if len(paths["data-not-synced"]) != files || len(paths["name-not-synced"]) != files+dirs {
					t.Errorf("%d files with data-not-synced and %d paths with name-not-synced, want each once", len(paths["data-not-synced"]), len(paths["name-not-synced"]))
				}
				for _, p := range []string{"/srv/bench/d0/f0.json", "/srv/bench/d8/f2499.json"} {
					if !paths["data-not-synced"][p] || !paths["name-not-synced"][p] {
						t.Errorf("no finding on %s", p)
					}
				}
			})
		}
	}
}

// TestFileSetStreams writes a trace of about 80 MB and checks that the
// heap stays far below that while it does: the 10M-file trace is several
// gigabytes.
func TestFileSetStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes an 80 MB trace")
	}
	w := &heapWatch{}
	runtime.GC()
	if _, err := gentrace.WriteFileSet(w, gentrace.FileSetOptions{Files: 160_000, Seed: 1, Form: gentrace.FormTTTY}); err != nil {
		t.Fatal(err)
	}
	if w.n < 60<<20 {
		t.Fatalf("wrote only %d bytes", w.n)
	}
	if w.peak > 24<<20 {
		t.Errorf("the heap reached %d MB while writing a %d MB trace", w.peak>>20, w.n>>20)
	}
}

// heapWatch discards what is written and notes the largest live heap seen
// at each write (bufio hands over about 1 MB at a time).
type heapWatch struct {
	n    int64
	peak uint64
}

func (h *heapWatch) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.peak = max(h.peak, ms.HeapAlloc)
	return len(p), nil
}

var _ io.Writer = (*heapWatch)(nil)
