package check

import "testing"

// TestQuietThreadEnd: strace -qq (or -qqq, -e quiet=all) prints no
// "+++ exited" lines. A Go program's thread sits in futex when the
// leader calls exit_group, and strace prints the thread's call ended
// after it ("<... futex resumed>) = ?"): the thread is gone with its
// group, not running on past the end of the trace.
func TestQuietThreadEnd(t *testing.T) {
	const (
		start = "7 execve(\"/opt/app\", [\"app\"], 0x7ffc0000 /* 1 var */) = 0\n" +
			"7 clone(child_stack=0x2df8000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS, tls=0x2df8090) = 8\n" +
			"7 read(0, \"\", 4096) = 0\n" +
			"8 futex(0x5a1d48, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>\n" +
			"7 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3\n" +
			"7 write(3, \"a\\n\", 2) = 2\n7 fsync(3) = 0\n7 close(3) = 0\n" +
			"7 openat(AT_FDCWD, \"/w\", O_RDONLY|O_CLOEXEC) = 3\n7 fsync(3) = 0\n7 close(3) = 0\n" +
			"7 exit_group(0) = ?\n"
		resumed = "8 <... futex resumed>) = ?\n"
	)
	wantBlind(t, Options{Roots: []string{"/w"}}, []blindCase{
		{"-qq: the thread's call ended by the exit_group", start + resumed, nil},
		{"without -qq", start + resumed + "8 +++ exited with 0 +++\n7 +++ exited with 0 +++\n", nil},
		// A thread that returned from a call after its group's
		// exit_group is a pid used again: running, and cut off.
		{"the pid again, a call that returned", start + resumed + "8 getpid() = 8\n", []string{BlindCutShort}},
		// A child process is not of the group: its exit_group is its own.
		{"a forked child left running", "7 execve(\"/opt/app\", [\"app\"], 0x7ffc0000 /* 1 var */) = 0\n" +
			"7 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 8\n" +
			"8 read(0, <unfinished ...>\n7 exit_group(0) = ?\n8 <... read resumed>\"\", 10) = 0\n", []string{BlindCutShort}},
	})
}
