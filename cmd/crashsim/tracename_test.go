package main

import (
	"os"
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
