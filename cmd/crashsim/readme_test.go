package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// README.md is executable documentation: TestReadme runs every ```console
// block and compares what each "$ " command prints with the lines under it.
//
// Each block runs in a fresh directory, in one bash, with a crashsim built
// from this checkout first in $PATH, stdout and stderr together, and
// $TMPDIR a fresh directory that the output names /tmp. The block's own
// lines set up what it needs; "fixtures" in that directory is the
// checkout's fixtures/, as if the block ran from the repository root.
// "go run ./cmd/crashsim" runs the crashsim built for the test, and
// "go install ./cmd/crashsim" is left out.
//
// A comment on the line before a block marks what cannot be compared
// exactly:
//
//	<!-- readme: traced -->   a program is traced: trace line numbers, event
//	                          counts, temp names and rates vary from machine
//	                          to machine and are normalised
//	<!-- readme: machine -->  timings of this machine's disk: run only with
//	                          CRASHSIM_README_ALL=1, numbers normalised
var (
	tempTrace = regexp.MustCompile(`crashsim-[0-9]+\.strace`)
	mktempDir = regexp.MustCompile(`\btmp\.[A-Za-z0-9]{10}\b`)
	traceLine = regexp.MustCompile(`(\.strace:|line |after line )[0-9]+`)
	events    = regexp.MustCompile(`\([0-9]+ events`)
	rate      = regexp.MustCompile(`\([0-9.]+m?s, [0-9]+ states/s\)`)
	number    = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	heredoc   = regexp.MustCompile(`<<-?'?"?([A-Za-z_]+)'?"?`)
)

// shellBuiltins need no program in $PATH.
var shellBuiltins = map[string]bool{"cd": true, "echo": true, "printf": true, "export": true, "set": true, "test": true, "true": true, "false": true, "source": true, ".": true}

type readmeCmd struct {
	line int
	text string // the command, continuation and heredoc lines included
	want []string
}

type readmeBlock struct {
	line int
	mark string
	cmds []readmeCmd
}

// readmeBlocks reads the console blocks of a markdown file.
func readmeBlocks(t *testing.T, name string) []readmeBlock {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	prev := ""
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case cur == nil && l == "```console":
			mark := ""
			if m := regexp.MustCompile(`^<!-- readme: (\w+) -->$`).FindStringSubmatch(prev); m != nil {
				mark = m[1]
			}
			cur = &readmeBlock{line: n, mark: mark}
		case cur != nil && l == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil && strings.HasPrefix(l, "$ "):
			cur.cmds = append(cur.cmds, readmeCmd{line: n, text: l[2:]})
		case cur != nil && len(cur.cmds) > 0:
			c := &cur.cmds[len(cur.cmds)-1]
			if strings.HasSuffix(c.text, "\\") && len(c.want) == 0 {
				c.text += "\n" + l
				continue
			}
			if m := heredoc.FindStringSubmatch(c.text); m != nil && len(c.want) == 0 && !strings.HasSuffix(c.text, "\n"+m[1]) {
				c.text += "\n" + l
				continue
			}
			c.want = append(c.want, l)
		case cur != nil:
			t.Fatalf("%s:%d: output before the first $ command of the block", name, n)
		}
		if strings.TrimSpace(l) != "" {
			prev = l
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

func TestReadme(t *testing.T) {
	blocks := readmeBlocks(t, "../../README.md")
	if len(blocks) < 5 {
		t.Fatalf("README.md has %d console blocks; the parser must have lost some", len(blocks))
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "crashsim"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fixtures, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) {
			runReadmeBlock(t, b, bin, fixtures)
		})
	}
}

func runReadmeBlock(t *testing.T, b readmeBlock, bin, fixtures string) {
	if b.mark == "machine" && os.Getenv("CRASHSIM_README_ALL") == "" {
		t.Skip("timings of this machine's disk: CRASHSIM_README_ALL=1 runs it")
	}
	if b.mark == "traced" && testing.Short() {
		t.Skip("-short: traces a program with strace")
	}
	var script strings.Builder
	script.WriteString("__s=0\n")
	var cmds []readmeCmd
	for _, c := range b.cmds {
		text := strings.ReplaceAll(c.text, "go run ./cmd/crashsim", "crashsim")
		if strings.HasPrefix(text, "go install ./cmd/crashsim") {
			continue
		}
		var needs []string
		if f := strings.Fields(text); len(f) > 0 && !strings.Contains(f[0], "=") && !shellBuiltins[f[0]] {
			needs = append(needs, f[0])
		}
		if strings.Contains(text, "crashsim trace") || strings.Contains(text, "crashsim explore") && strings.Contains(text, " -- ") {
			needs = append(needs, "strace")
		}
		if strings.Contains(text, "python3 ") {
			needs = append(needs, "python3")
		}
		for _, need := range needs {
			if _, err := exec.LookPath(need); err != nil && need != "crashsim" {
				t.Skipf("%s not in $PATH", need)
			}
		}
		fmt.Fprintf(&script, "printf '\\n@@%d@@\\n'; (exit $__s); { %s\n} 2>&1; __s=$?\n", len(cmds), text)
		cmds = append(cmds, c)
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	work := filepath.Join(dir, "work")
	for _, d := range []string{tmp, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(fixtures, filepath.Join(work, "fixtures")); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("bash", "-c", script.String())
	sh.Dir = work
	sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp, "NO_COLOR=1", "LC_ALL=C.UTF-8")
	out, _ := sh.Output()
	got := strings.ReplaceAll(string(out), tmp, "/tmp")
	parts := regexp.MustCompile(`\n@@([0-9]+)@@\n`).Split(got, -1)
	if len(parts) != len(cmds)+1 {
		t.Fatalf("the block's commands ran %d times, want %d:\n%s", len(parts)-1, len(cmds), got)
	}
	for i, c := range cmds {
		want := b.normalize(strings.Join(c.want, "\n"))
		have := b.normalize(strings.TrimSuffix(parts[i+1], "\n"))
		if want != have {
			t.Errorf("README.md:%d: $ %s\n(-README +crashsim):\n%s", c.line, strings.SplitN(c.text, "\n", 2)[0], cmp.Diff(strings.Split(want, "\n"), strings.Split(have, "\n")))
		}
	}
}

// normalize takes out what varies between runs and machines.
func (b readmeBlock) normalize(s string) string {
	s = mktempDir.ReplaceAllString(s, "tmp.XXXXXXXXXX")
	s = tempTrace.ReplaceAllString(s, "crashsim-N.strace")
	switch b.mark {
	case "traced":
		s = traceLine.ReplaceAllString(s, "${1}N")
		s = events.ReplaceAllString(s, "(N events")
		s = rate.ReplaceAllString(s, "(Ts, N states/s)")
	case "machine":
		s = number.ReplaceAllString(s, "N")
	}
	return s
}
