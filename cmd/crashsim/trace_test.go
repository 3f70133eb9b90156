package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func needStrace(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs strace")
	}
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
	errs = withoutSweep(errs)
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
		errs = withoutSweep(errs)
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
	if !strings.Contains(r.errs, " data-not-synced: a crash right after line ") || !strings.Contains(r.errs, " can leave "+realPath(t, dir)+"/partial.txt empty") {
		t.Errorf("the finding for partial.txt is missing from stderr (the text report's stream):\n%s", r.errs)
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

// TestOutputRefusedBeforeRun: a report -o cannot write (a symbolic link)
// or a --baseline that cannot be read is refused before the program runs:
// afterwards, its side effects (and a whole exploration) were for nothing.
func TestOutputRefusedBeforeRun(t *testing.T) {
	needStrace(t)
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), "link.txt"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd   string
		flags []string
	}{
		{"trace", []string{"-o", "link.txt"}},
		{"trace", []string{"--baseline", "missing.json"}},
		{"explore", []string{"--root", dir, "--checker", "true", "-o", "link.txt"}},
	} {
		args := append(append([]string{c.cmd}, c.flags...), "--", "sh", "-c", ": > ran")
		_, stderr, code := runCLI(t, args...)
		if code == exitOK || code == exitFindings {
			t.Errorf("%s %q: exit %d, want a refusal: %s", c.cmd, c.flags, code, stderr)
		}
		if _, err := os.Stat("ran"); err == nil {
			t.Errorf("%s %q: the program ran before the refusal", c.cmd, c.flags)
			os.Remove("ran")
		}
	}
}
