package check

import (
	"strings"
	"testing"
)

// TestDetachAtExecve: strace -b execve stops following a process when it
// calls execve; the trace ends with that execve cut ("<detached ...>")
// and nothing of the program it started. The blind-cut-short names -b
// execve, and its fix drops it.
func TestDetachAtExecve(t *testing.T) {
	const (
		start = "50 execve(\"/usr/bin/env\", [\"env\", \"python3\", \"save.py\"], 0x7ffe0000 /* 3 vars */) = 0\n" +
			"50 brk(NULL) = 0x55d000\n50 execve(\"/usr/local/bin/python3\", [\"python3\", \"save.py\"], 0x7ffe0000 /* 3 vars */) = -1 ENOENT (No such file or directory)\n"
		detached = "50 execve(\"/usr/bin/python3\", [\"python3\", \"save.py\"], 0x7ffe0000 /* 3 vars */ <detached ...>\n"
		cut      = "50 openat(AT_FDCWD, \"/d/f\", O_RDONLY <unfinished ...>\n"
	)
	p := Options{Roots: []string{"/d"}}
	msgs := blindMessages(t, "b.strace", start+detached, p, BlindCutShort)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "-b execve") {
		t.Errorf("detached at execve: %q, want one blind-cut-short naming -b execve", msgs)
	}
	for _, w := range checkFile(t, writeTrace(t, start+detached), p).Warnings {
		if w.ID == BlindCutShort && !strings.Contains(w.Fix, "without -b execve") {
			t.Errorf("fix %q, want one that drops -b execve", w.Fix)
		}
	}
	// A trace cut in another call is cut short, as before.
	msgs = blindMessages(t, "c.strace", start+cut, p, BlindCutShort)
	if len(msgs) != 1 || strings.Contains(msgs[0], "-b execve") {
		t.Errorf("cut in an open: %q, want one blind-cut-short not naming -b execve", msgs)
	}
	// The execve that returned, and the program's exit: no blind spot.
	if b := blindOfText(t, "e.strace", start+strings.Replace(detached, " <detached ...>", ") = 0", 1)+"50 exit_group(0) = ?\n50 +++ exited with 0 +++\n", p); len(b) != 0 {
		t.Errorf("whole run: blind spots %v, want none", b)
	}
}
