package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/textesc"
)

// A trace named with a newline and a terminal escape prints escaped
// wherever crashsim puts its name before a message on stderr: a parse
// warning, a -v diagnostic, the -v recording line and a blind spot. Raw,
// the name's second half read as a line of its own ("x.strace:1: fake
// ...") and the escape reached the terminal.
func TestTraceNameEscaped(t *testing.T) {
	t.Chdir(t.TempDir())
	name := "evil\nx.strace:1: fake\x1b[31m.strace"
	trace := "strace: Process 124 attached\n" + // a diagnostic (-v)
		"123 open(\"x\", O_RDONLY) = 3\n" +
		"123 write(3, \"ab" // cut short: a warning, and a blind spot
	if err := os.WriteFile(name, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, "check", "-v", name)
	if code != exitBlind {
		t.Errorf("exit %d, want %d", code, exitBlind)
	}
	if strings.ContainsRune(errs, '\x1b') {
		t.Errorf("stderr holds the raw escape:\n%q", errs)
	}
	esc := textesc.Escape(name)
	for _, want := range []string{
		esc + ":1:1: strace: Process 124 attached\n",
		esc + ":3:14: warning: the last line is cut short",
		"crashsim: " + esc + ": recording: ",
		esc + ":2: warning: blind-cut-short: ",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	for _, line := range strings.Split(errs, "\n") {
		if strings.HasPrefix(line, "x.strace:1: fake") {
			t.Errorf("a line of the name's own: %q", line)
		}
	}
}

// The trace's name is escaped in the messages the parser and the library
// write around it too: a trace that is not there, a parse error (its
// position, parser.Pos.String), an -ff set without timestamps, and the
// files of an -ff set that states --at lists. An ordinary name prints as
// it is (the goldens and scripts pin those).
func TestTraceNameEscapedInMessages(t *testing.T) {
	set, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "traces", "go-threads", "ff-ttt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	name := "ev\nil\x1b[31m"
	esc := textesc.Escape(name)
	noRawEscape := func(what, errs string) {
		t.Helper()
		if strings.ContainsRune(errs, '\x1b') || strings.Contains(errs, "\nil") {
			t.Errorf("%s: stderr holds the raw name:\n%q", what, errs)
		}
	}

	_, errs, code := runCLI(t, "check", name+".strace")
	if want := "crashsim: cannot read trace " + esc + ".strace: no such file (nor strace -ff files " + esc + ".strace.PID)\n"; code != exitInput || errs != want {
		t.Errorf("a missing trace: exit %d, stderr\n%q\nwant\n%q", code, errs, want)
	}
	noRawEscape("a missing trace", errs)

	if err := os.WriteFile(name+".strace", []byte("123 close(3) = 0\n123 close(\n123 exit_group(0) = ?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code = runCLI(t, "check", name+".strace")
	if code != exitInput || !strings.Contains(errs, "crashsim: "+esc+".strace:2:") {
		t.Errorf("a parse error: exit %d, stderr lacks %q:\n%s", code, esc+".strace:2:", errs)
	}
	noRawEscape("a parse error", errs)

	for _, pid := range []string{"1", "2"} {
		if err := os.WriteFile(name+"."+pid, []byte("close(3) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errs, code = runCLI(t, "check", name)
	if want := "the -ff set " + esc + ".* has no timestamps"; code != exitInput || !strings.Contains(errs, want) {
		t.Errorf("an -ff set without timestamps: exit %d, stderr lacks %q:\n%s", code, want, errs)
	}
	noRawEscape("an -ff set without timestamps", errs)

	members, err := filepath.Glob(filepath.Join(set, "trace.*"))
	if err != nil || len(members) == 0 {
		t.Fatalf("the fixture set %s: %v", set, err)
	}
	for _, m := range members {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("set"+name+filepath.Ext(m), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errs, code = runCLI(t, "states", "--at", "16", "set"+name)
	if want := "of the -ff set (set" + esc + ".16301, set" + esc + ".16300), each with its own point above; --at set" + esc + ".16301:16 shows one\n"; code != exitOK || !strings.Contains(errs, want) {
		t.Errorf("states --at on an -ff set: exit %d, stderr lacks %q:\n%s", code, want, errs)
	}
	noRawEscape("states --at on an -ff set", errs)
}
