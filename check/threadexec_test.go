package check

import (
	"strings"
	"testing"
)

// TestThreadExecQuiet: a thread's execve recorded without the "+++
// superseded by execve in pid N +++" line (strace -f -qqq, or -e
// quiet=thread-execve) starts under the thread's pid and ends under the
// leader's. It is the thread taking over the leader's pid, as with the
// line: the clean save the new program makes is clean, and the thread is
// no process left running at the end (blind-cut-short). The shape is
// strace 6.1's, recorded with strace -f -qqq -o t ./thexec, a C program
// whose second thread calls execl("/tmp/x/good", ...) while the leader
// waits in pause (pids renumbered, the loader's calls left out).
func TestThreadExecQuiet(t *testing.T) {
	const clone = "100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f, parent_tid=0x7f, exit_signal=0, stack=0x7f, stack_size=0x7fff00, tls=0x7f} => {parent_tid=[101]}, 88) = 101\n"
	const save = "100 openat(AT_FDCWD, \"/tmp/x/a.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n" +
		"100 write(3, \"hello\", 5) = 5\n" +
		"100 fsync(3) = 0\n" +
		"100 close(3) = 0\n" +
		"100 rename(\"/tmp/x/a.tmp\", \"/tmp/x/a\") = 0\n" +
		"100 openat(AT_FDCWD, \"/tmp/x\", O_RDONLY|O_DIRECTORY) = 3\n" +
		"100 fsync(3) = 0\n" +
		"100 close(3) = 0\n" +
		"100 exit_group(0) = ?\n"
	const start = "100 execve(\"/tmp/x/thexec\", [\"thexec\"], 0x7ffe /* 35 vars */) = 0\n" +
		"100 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n" + clone
	const exec = "101 set_robust_list(0x7f, 24) = 0\n" +
		"101 execve(\"/tmp/x/good\", [\"good\"], 0x7ffe /* 35 vars */ <unfinished ...>\n"
	for _, c := range []blindCase{
		{name: "-e quiet=thread-execve", trace: start + exec + "100 <... execve resumed>) = 0\n" + save + "100 +++ exited with 0 +++\n"},
		{name: "-qqq, the leader in pause", trace: start + "100 pause( <unfinished ...>\n" + exec + "100 <... pause resumed>) = ?\n100 <... execve resumed>) = 0\n" + save},
		{name: "-qqq, the leader's futex never ends", trace: start + "100 futex(0x7f, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>\n" + exec + "100 <... execve resumed>) = 0\n" + save},
	} {
		blind, _, findings := blindRun(t, writeTrace(t, c.trace), Options{Roots: []string{"/tmp/x"}})
		if len(blind) > 0 || len(findings) > 0 {
			t.Errorf("%s: blind spots %q, findings %q; want none", c.name, blind, strings.Join(findings, "; "))
		}
	}
}

// TestThreadExecOnlyLine: a thread whose only line is the start of its
// execve, which ends under the leader's pid, is shown in the trace: its
// clone is no child left unfollowed (blind-unfollowed-children), with the
// superseded line or without it. The trace is a hand reduction of strace
// 6.1's (strace -f -o t ./thexec and strace -f -qqq -o t ./thexec, see
// TestThreadExecQuiet) to the thread's execve alone.
func TestThreadExecOnlyLine(t *testing.T) {
	const head = "100 execve(\"/tmp/x/thexec\", [\"thexec\"], 0x7ffe /* 35 vars */) = 0\n" +
		"100 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n" +
		"100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f, parent_tid=0x7f, exit_signal=0, stack=0x7f, stack_size=0x7fff00, tls=0x7f} => {parent_tid=[101]}, 88) = 101\n" +
		"101 execve(\"/tmp/x/good\", [\"good\"], 0x7ffe /* 35 vars */ <unfinished ...>\n"
	const tail = "100 <... execve resumed>) = 0\n" +
		"100 openat(AT_FDCWD, \"/tmp/x/a\", O_RDONLY) = 3\n" +
		"100 close(3) = 0\n" +
		"100 exit_group(0) = ?\n"
	for _, c := range []blindCase{
		{name: "superseded line", trace: head + "100 +++ superseded by execve in pid 101 +++\n" + tail + "100 +++ exited with 0 +++\n"},
		{name: "no superseded line (-qqq)", trace: head + tail},
	} {
		blind, _, findings := blindRun(t, writeTrace(t, c.trace), Options{Roots: []string{"/tmp/x"}})
		if len(blind) > 0 || len(findings) > 0 {
			t.Errorf("%s: blind spots %q, findings %q; want none", c.name, blind, strings.Join(findings, "; "))
		}
	}
}
