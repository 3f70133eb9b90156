package check

import (
	"strings"
	"testing"
)

// TestVerboseNonePipe: strace -e verbose=none prints pipe2's fds as an
// address ("pipe2(0x7ffc52c682a0, 0) = 0"), so a later write to one of
// them is to an fd the trace never numbered. It may as well be a file
// the program inherited: still blind-unknown-fd, but saying that it may
// be the pipe's, and naming -e verbose=none in the fix.
func TestVerboseNonePipe(t *testing.T) {
	const (
		exec  = "60 execve(\"/opt/pipe\", 0x7ffe4cf59578, 0x7ffe4cf59598) = 0\n"
		raw   = "60 pipe2(0x7ffc52c682a0, 0) = 0\n"
		shown = "60 pipe2([3, 4], 0) = 0\n"
		rest  = "60 write(4, \"x\", 1) = 1\n" +
			"60 openat(AT_FDCWD, \"/d/new.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 5\n60 write(5, \"v\\n\", 2) = 2\n60 fsync(5) = 0\n60 close(5) = 0\n" +
			"60 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 5\n60 fsync(5) = 0\n60 close(5) = 0\n60 exit_group(0) = ?\n60 +++ exited with 0 +++\n"
	)
	p := Options{Roots: []string{"/d"}}
	var fix string
	for _, w := range checkFile(t, writeTrace(t, exec+raw+rest), p).Warnings {
		if w.ID != BlindUnknownFD {
			t.Errorf("unexpected %s: %s", w.ID, w.Message)
			continue
		}
		fix = w.Fix
		if !strings.Contains(w.Message, "pipe2 at line 2") || !strings.Contains(w.Message, "a pipe, not a file") || strings.Contains(w.Message, "-e trace= list left out") {
			t.Errorf("message %q, want one saying the pipe2 at line 2 made fds it does not number, a pipe, not a call left out", w.Message)
		}
	}
	if !strings.Contains(fix, "without -e verbose=none") {
		t.Errorf("fix %q, want one naming -e verbose=none", fix)
	}
	if b := blindOfText(t, "v.strace", exec+shown+rest, p); len(b) != 0 {
		t.Errorf("pipe2 with its fds printed: blind spots %v, want none", b)
	}
}
