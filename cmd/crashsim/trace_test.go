package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/parser"
)

func needStrace(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
}

// Without strace, trace is an input error that says how to get it, and
// leaves no files behind.
func TestTraceStraceMissing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("PATH", filepath.Join(dir, "empty"))
	out, errs, code := runCLI(t, "trace", "--out", "t.strace", "--", "/bin/true")
	if code != exitInput {
		t.Errorf("exit %d, want %d", code, exitInput)
	}
	if want := "crashsim: strace not found: install it (apt-get install strace)\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing", out)
	}
	for _, f := range []string{"t.strace", "t.strace.initial"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind", f)
		}
	}
}

func TestTraceCommandNotFound(t *testing.T) {
	needStrace(t)
	t.Chdir(t.TempDir())
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the trace would go without --out
	for _, name := range []string{"no-such-command-crashsim", "./no-such-script"} {
		_, errs, code := runCLI(t, "trace", "--", name, "arg")
		if code != exitInput {
			t.Errorf("%s: exit %d, want %d", name, code, exitInput)
		}
		if want := "crashsim: command not found: " + name + "\n"; errs != want {
			t.Errorf("%s: stderr %q, want %q", name, errs, want)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("files left in TMPDIR: %v", left)
	}
}

// Ctrl-C while the program runs goes to the program; crashsim stays to
// check the trace written so far and exits 5.
func TestTraceInterrupt(t *testing.T) {
	needStrace(t)
	dir := t.TempDir()
	t.Chdir(dir)
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		out, errs, code := runCLI(t, "trace", "--out", "t.strace", "--",
			"sh", "-c", "printf x > partial.txt; : > ready; exec sleep 30")
		done <- result{out, errs, code}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the traced program did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The tracer passes SIGINT on while it runs (it has it routed to
	// itself since before the program started).
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("crashsim trace did not return after SIGINT")
	}
	if r.code != exitProgram {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, exitProgram, r.errs)
	}
	if !strings.Contains(r.errs, "crashsim: the traced program was killed by SIGINT\n") {
		t.Errorf("stderr:\n%s", r.errs)
	}
	if !strings.Contains(r.out, "data-not-synced: "+realPath(t, dir)+"/partial.txt: ") {
		t.Errorf("the finding for partial.txt is missing:\n%s", r.out)
	}
}

// Past maxInitialEntries the start directory is not listed, and -v says so.
func TestTraceInitialTooLarge(t *testing.T) {
	dir := t.TempDir()
	if n, ok := countEntries(dir, 10); !ok || n != 1 {
		t.Fatalf("countEntries(empty dir) = %d, %v", n, ok)
	}
	for i := range 5 {
		os.WriteFile(filepath.Join(dir, strings.Repeat("f", i+1)), nil, 0o644)
	}
	if _, ok := countEntries(dir, 5); ok {
		t.Error("countEntries: 6 entries fit a limit of 5")
	}
	var c traceCmd
	var errb strings.Builder
	g := &Globals{Verbose: true, stderr: &errb}
	name := filepath.Join(t.TempDir(), "t.strace.initial")
	if !c.writeInitial(g, []string{dir}, name, dir) {
		t.Fatalf("no listing: %s", errb.String())
	}
	b, _ := os.ReadFile(name)
	if !strings.Contains(string(b), "\n"+realPath(t, dir)+"/fffff\n") || !strings.HasPrefix(string(b), "cwd "+dir+"\n") {
		t.Errorf("listing:\n%s", b)
	}

	defer func(n int) { maxInitialEntries = n }(maxInitialEntries)
	maxInitialEntries = 5
	errb.Reset()
	name = filepath.Join(t.TempDir(), "t.strace.initial")
	os.WriteFile(name, []byte("root /stale\n"), 0o644) // from an earlier run
	if c.writeInitial(g, []string{dir}, name, dir) {
		t.Error("a listing of 6 entries past a limit of 5")
	}
	// What is written then says only where the command started and on
	// which machine: nothing of the earlier run's listing is left.
	want := "cwd " + dir + "\n"
	if a, err := parser.ParseArch(runtime.GOARCH); err == nil {
		want += "arch " + a.String() + "\n"
	}
	if b, _ := os.ReadFile(name); string(b) != want {
		t.Errorf("%s holds %q, want only the cwd and arch lines", name, b)
	}
	if want := "holds more than 5 entries: not listed"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
