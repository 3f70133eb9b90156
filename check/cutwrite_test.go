package check

import (
	"strings"
	"testing"
)

// TestCutWrite: a thread still in a write when another one calls
// exit_group gets "= ?" for it (a Go program's os.Exit while a goroutine
// writes): the kernel had copied some of its bytes, and nothing synced
// them. It used to be dropped, and the file read as synced; it is a write
// of what it asked for, never synced. A write interrupted to be restarted
// ("= ? ERESTARTSYS") is not one: it runs again.
func TestCutWrite(t *testing.T) {
	const head = `100 openat(AT_FDCWD, "/w/log", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
100 write(3, "line1\n", 6) = 6
100 fsync(3) = 0
100 clone(child_stack=0x7f0, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 101
`
	for _, c := range []struct {
		name, body string
		lost       bool
	}{
		{"write cut by exit_group", `101 write(3, "line2\n", 6 <unfinished ...>
100 exit_group(0) = ?
101 <... write resumed>) = ?
101 +++ exited with 0 +++
100 +++ exited with 0 +++
`, true},
		{"writev cut by exit_group", `101 writev(3, [{iov_base="li", iov_len=2}, {iov_base="ne2\n", iov_len=4}], 2 <unfinished ...>
100 exit_group(0) = ?
101 <... writev resumed>) = ?
101 +++ exited with 0 +++
100 +++ exited with 0 +++
`, true},
		{"write interrupted, restarted and synced", `101 write(3, "line2\n", 6) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)
101 --- SIGURG {si_signo=SIGURG, si_code=SI_TKILL, si_pid=100, si_uid=0} ---
101 write(3, "line2\n", 6) = 6
101 fsync(3) = 0
100 exit_group(0) = ?
101 +++ exited with 0 +++
100 +++ exited with 0 +++
`, false},
	} {
		res := runText(t, head+c.body, Options{Roots: []string{"/w"}, Existed: func(p string) (bool, bool) { return p == "/w", true }})
		lost := false
		for _, f := range res.findings {
			if f.Rule.ID == DataNotSynced && f.Path == "/w/log" {
				lost = true
				if !strings.Contains(f.Message, "(6 bytes)") {
					t.Errorf("%s: %q, want the 6 bytes asked for", c.name, f.Message)
				}
			}
		}
		if lost != c.lost {
			t.Errorf("%s: data-not-synced on /w/log %v, want %v", c.name, lost, c.lost)
		}
	}
}

// TestUnsyncedBytesSaturate: counts near the largest int64 (a hostile
// trace, or writes cut by the process's end that asked for that much)
// add up to at most that many bytes in data-not-synced's words, never to
// a negative number.
func TestUnsyncedBytesSaturate(t *testing.T) {
	const text = `1 openat(AT_FDCWD, "/w/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
1 pwrite64(3, "x", 1, 9223372036854775000) = 1
1 write(3, "x", 9223372036854775807) = 9223372036854775807
1 write(3, "y", 9223372036854775807) = 9223372036854775807
1 close(3) = 0
`
	for _, f := range findingsOf(t, text, Options{Roots: []string{"/w"}}, DataNotSynced) {
		if strings.Contains(f.Message, "(-") || !strings.Contains(f.Message, "(9223372036854775807 bytes)") {
			t.Errorf("%q", f.Message)
		}
	}
}
