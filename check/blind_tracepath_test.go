package check

import (
	"strings"
	"testing"
)

// TestTracePath: strace -P PATH keeps only the calls that name PATH or
// take an fd of it: no execve, no brk or futex, no exit_group, whether a
// call failed or not. The warning names -P, which the recording used,
// rather than -z or -e status=.
func TestTracePath(t *testing.T) {
	const (
		save = "40 openat(AT_FDCWD, \"/d/f.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n40 write(3, \"v\\n\", 2) = 2\n40 fsync(3) = 0\n40 close(3) = 0\n" +
			"40 rename(\"/d/f.tmp\", \"/d/f\") = 0\n40 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 3\n40 fsync(3) = 0\n40 close(3) = 0\n"
		exit   = "40 +++ exited with 0 +++\n"
		failed = "40 openat(AT_FDCWD, \"/d/f.lock\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
	)
	for _, c := range []struct{ name, trace string }{
		{"-P, no call failed", save + exit},
		{"-P, a call failed", failed + save + exit},
	} {
		msgs := blindMessages(t, "p.strace", c.trace, Options{Roots: []string{"/d"}}, BlindSyscallFilter)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "-P PATH") || !strings.Contains(msgs[0], "%desc") {
			t.Errorf("%s: %q, want one blind-syscall-filter naming -P", c.name, msgs)
		}
		if b := blindOfText(t, "p.strace", c.trace, Options{Roots: []string{"/d"}}); len(b) != 1 {
			t.Errorf("%s: blind spots %v, want blind-syscall-filter alone", c.name, b)
		}
	}
	// -z keeps the program's start: said as before.
	z := "40 execve(\"/opt/save\", [\"save\"], 0x7ffc0000 /* 1 var */) = 0\n40 brk(NULL) = 0x3ae2000\n" + save + exit
	if msgs := blindMessages(t, "z.strace", z, Options{Roots: []string{"/d"}}, BlindSuccessfulOnly); len(msgs) != 1 || strings.Contains(msgs[0], "-P") {
		t.Errorf("-z: %q, want one blind-successful-only, not naming -P", msgs)
	}
}
