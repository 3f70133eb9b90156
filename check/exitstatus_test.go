package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExitStatusMarkEndsProcess: strace 4.x printed a process that
// exited inside a call as "<unfinished ... exit status N>" at the end of
// the call's line, and no "+++ exited" line. Such a process has ended: a
// trace that ends on that line is whole, not cut short, and a clean save
// in it is clean. The shapes are from public strace 4.x logs.
func TestExitStatusMarkEndsProcess(t *testing.T) {
	head := "1234 execve(\"/tmp/x/prog\", [\"prog\"], [/* 26 vars */]) = 0\n" +
		"1234 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n" +
		"1234 clone(child_stack=0x7f0000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tidptr=0x7f0, tls=0x7f0, child_tidptr=0x7f0) = 1235\n"
	save := "1234 open(\"/tmp/x/a.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n" +
		"1234 write(3, \"hello\", 5) = 5\n" +
		"1234 fsync(3) = 0\n" +
		"1234 close(3) = 0\n" +
		"1234 rename(\"/tmp/x/a.tmp\", \"/tmp/x/a\") = 0\n" +
		"1234 open(\"/tmp/x\", O_RDONLY|O_DIRECTORY) = 3\n" +
		"1234 fsync(3) = 0\n" +
		"1234 close(3) = 0\n"
	for _, c := range []blindCase{
		{"a thread exits in the middle of the trace",
			head + "1235 futex(0x7f0000, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ... exit status 0>\n" + save +
				"1234 exit_group(0) = ?\n", nil},
		{"the trace ends on the line of a call its process exited in",
			head + save + "1234 exit_group(0) = ?\n" +
				"1235 futex(0x7f0000, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...exit status 0>\n", nil},
	} {
		blind, _, findings := blindRun(t, writeTrace(t, c.trace), Options{Roots: []string{"/tmp/x"}})
		if diff := cmp.Diff(c.want, blind); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
		}
		if len(findings) > 0 {
			t.Errorf("%s: findings %q, want none", c.name, findings)
		}
	}
}
