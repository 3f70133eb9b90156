package parser

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A live trace as the oracle reads it while a tracee is stopped: two
// stops, the second line not complete yet.
const liveTrace = `100 1.0 openat(AT_FDCWD, "f", O_WRONLY|O_CREAT, 0644) = 3
100 1.1 write(3, "a", 1) = 1
100 1.2 --- stopped by SIGSTOP ---
101 1.3 pwrite64(3, "b", 1, 4) = 1
101 1.4 writev(3, [{iov_base="c", iov_len=1}], 1) = 1
101 1.5 <... write resumed>) = 1
101 1.6 fsync(3) = 0
101 1.7 --- stopped by SIGSTOP ---
102 1.8 --- stopped by SIGS`

func TestNthStop(t *testing.T) {
	b := []byte(liveTrace)
	for _, c := range []struct {
		n, end, pid int
		ok          bool
	}{
		{0, len("100 1.0 openat(AT_FDCWD, \"f\", O_WRONLY|O_CREAT, 0644) = 3\n100 1.1 write(3, \"a\", 1) = 1\n100 1.2 --- stopped by SIGSTOP ---\n"), 100, true},
		{1, len(liveTrace) - len("102 1.8 --- stopped by SIGS"), 101, true},
		{2, 0, 0, false}, // not complete
	} {
		end, pid, ok := NthStop(b, c.n)
		if end != c.end || pid != c.pid || ok != c.ok {
			t.Errorf("NthStop(%d) = %d, %d, %v; want %d, %d, %v", c.n, end, pid, ok, c.end, c.pid, c.ok)
		}
	}
	if _, _, ok := NthStop([]byte("--- stopped by SIGSTOP ---\n"), 0); ok {
		t.Error("a stop line without a pid was taken")
	}
}

func TestFirstCall(t *testing.T) {
	if got := FirstCall([]byte("\n100 --- SIGCHLD {si_signo=SIGCHLD} ---\n100 +++ exited with 0 +++\n101 fsync(3) = 0\n102 close(3) = 0\n")); got != "101 fsync(3) = 0" {
		t.Errorf("FirstCall = %q", got)
	}
	if got := FirstCall([]byte("100 --- stopped by SIGSTOP ---\n")); got != "" {
		t.Errorf("FirstCall of signals only = %q, want none", got)
	}
	long := "100 write(3, \"" + string(make([]byte, 200)) + "\", 200) = 200"
	if got := FirstCall([]byte(long)); len(got) != 103 || got[100:] != "..." {
		t.Errorf("a long call is cut to %d bytes: %q", len(got), got[90:])
	}
}

func TestWriteCalls(t *testing.T) {
	want := []string{`write(3, "a", 1) = 1`, `pwrite64(3, "b", 1, 4) = 1`, `writev(3, [{iov_base="c", iov_len=1}], 1) = 1`}
	if diff := cmp.Diff(want, WriteCalls([]byte(liveTrace))); diff != "" {
		t.Errorf("WriteCalls (-want +got):\n%s", diff)
	}
}
