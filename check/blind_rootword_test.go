package check

import "testing"

// TestRootUnmatchedWording: the warning names the path changed outside
// --root and stops there; its line is given beside it, so no "here" is
// left dangling after the path, and one path is not "the first" of one.
func TestRootUnmatchedWording(t *testing.T) {
	const save = "50 execve(\"/bin/save\", [\"save\"], 0x7ffc0000 /* 1 var */) = 0\n" +
		"50 openat(AT_FDCWD, \"/var/lib/app/state\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n" +
		"50 write(3, \"v\\n\", 2) = 2\n50 fsync(3) = 0\n50 close(3) = 0\n"
	const other = "50 openat(AT_FDCWD, \"/var/lib/app/log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3\n50 close(3) = 0\n"
	const end = "50 exit_group(0) = ?\n50 +++ exited with 0 +++\n"
	for _, c := range []struct{ name, trace, want string }{
		{"one path", save + end, "--root /srv/data matched no file the trace changed, while it changed /var/lib/app/state elsewhere: nothing was checked"},
		{"two paths", save + other + end, "--root /srv/data matched no file the trace changed, while it changed 2 paths, the first /var/lib/app/state, elsewhere: nothing was checked"},
	} {
		msgs := blindMessages(t, "t.strace", c.trace, Options{Roots: []string{"/srv/data"}}, BlindRootUnmatched)
		if len(msgs) != 1 || msgs[0] != c.want {
			t.Errorf("%s: %q, want %q", c.name, msgs, c.want)
		}
	}
}
