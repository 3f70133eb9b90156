package parser

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A live trace as the oracle reads it while a tracee is stopped: two
// stops, the second line not complete yet.
const liveTrace = `100 1.0 openat(AT_FDCWD, "f", O_WRONLY|O_CREAT, 0644) = 3
100 1.1 write(3, "a", 1) = 1
100 1.15 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
100 1.2 --- stopped by SIGSTOP ---
101 1.3 pwrite64(3, "b", 1, 4) = 1
101 1.4 writev(3, [{iov_base="c", iov_len=1}], 1) = 1
101 1.5 <... write resumed>) = 1
101 1.6 fsync(3) = 0
101 1.65 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
101 1.7 --- stopped by SIGSTOP ---
102 1.75 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
102 1.8 --- stopped by SIGS`

func TestNthStop(t *testing.T) {
	b := []byte(liveTrace)
	first := strings.Index(liveTrace, "101 1.3")
	second := strings.Index(liveTrace, "102 1.75")
	for _, c := range []struct {
		n, end, pid int
		ok          bool
	}{
		{0, first, 100, true},
		{1, second, 101, true},
		{2, 0, 0, false}, // not complete
	} {
		end, pid, ok := NthStop(b, c.n)
		if end != c.end || pid != c.pid || ok != c.ok {
			t.Errorf("NthStop(%d) = %d, %d, %v; want %d, %d, %v", c.n, end, pid, ok, c.end, c.pid, c.ok)
		}
	}
	if _, _, ok := NthStop([]byte("--- SIGSTOP {si_signo=SIGSTOP} ---\n--- stopped by SIGSTOP ---\n"), 0); ok {
		t.Error("a stop line without a pid was taken")
	}
}

// In a process of two threads, strace prints a stop for each when one of
// them is stopped: only the thread the SIGSTOP was delivered to stopped
// at a call. A caller that took the other line for a stop of its own
// continued the program from its next stop before it had looked at it.
func TestNthStopThreads(t *testing.T) {
	for _, c := range []struct {
		name  string
		trace string
		want  []int // the pids of the stops, in order
	}{
		{"the calling thread's line first", `200 1.0 futex(0x1, FUTEX_WAIT, 0, NULL <unfinished ...>
201 1.1 openat(AT_FDCWD, "a", O_RDONLY) = 3
201 1.2 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
201 1.3 --- stopped by SIGSTOP ---
200 1.4 --- stopped by SIGSTOP ---
201 1.5 --- SIGCONT {si_signo=SIGCONT, si_code=SI_USER} ---
201 1.6 openat(AT_FDCWD, "b", O_RDONLY) = 4
201 1.7 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
201 1.8 --- stopped by SIGSTOP ---
200 1.9 --- stopped by SIGSTOP ---
`, []int{201, 201}},
		{"the other thread's line first", `201 1.1 write(3, "x", 1) = 1
201 1.2 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
200 1.3 --- stopped by SIGSTOP ---
201 1.4 --- stopped by SIGSTOP ---
200 1.5 write(4, "y", 1) = 1
200 1.6 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
201 1.7 --- stopped by SIGSTOP ---
200 1.8 --- stopped by SIGSTOP ---
`, []int{201, 200}},
		{"-tt times, and a string that reads like a delivery", `300 12:00:00.000001 write(1, "--- SIGSTOP {", 13) = 13
301 12:00:00.000002 --- stopped by SIGSTOP ---
300 12:00:00.000003 --- stopped by SIGSTOP ---
300 12:00:00.000004 fsync(3) = 0
300 12:00:00.000005 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
300 12:00:00.000006 --- stopped by SIGSTOP ---
`, []int{300}},
		{"no timestamps", `400 fsync(3) = 0
401 --- stopped by SIGSTOP ---
400 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_KERNEL} ---
400 --- stopped by SIGSTOP ---
`, []int{400}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []int
			for n := 0; ; n++ {
				end, pid, ok := NthStop([]byte(c.trace), n)
				if !ok {
					break
				}
				if line := c.trace[strings.LastIndex(c.trace[:end-1], "\n")+1 : end]; !strings.Contains(line, "stopped by") {
					t.Errorf("stop %d ends after %q, not a stop line", n, line)
				}
				got = append(got, pid)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("stops (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFirstCall(t *testing.T) {
	if got := FirstCall([]byte("\n100 --- SIGCHLD {si_signo=SIGCHLD} ---\n100 +++ exited with 0 +++\n101 fsync(3) = 0\n102 close(3) = 0\n")); got != "101 fsync(3) = 0" {
		t.Errorf("FirstCall = %q", got)
	}
	restarts := "200 <... read resumed>) = -1 ERESTARTSYS (To be restarted if SA_RESTART is set)\n" +
		"200 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_STOPPED, si_pid=201} ---\n" +
		"200 read(3, 0x7ffd, 4096) = -1 ERESTARTSYS (Unknown error 512)\n" +
		"200 wait4(-1, 0x7ffd, 0, NULL) = ? ERESTARTNOHAND (To be restarted if no handler)\n"
	if got := FirstCall([]byte(restarts)); got != "" {
		t.Errorf("FirstCall of interrupted calls only = %q, want none", got)
	}
	if got := FirstCall([]byte(restarts + "200 unlink(\"x\") = 0\n")); got != `200 unlink("x") = 0` {
		t.Errorf("FirstCall after interrupted calls = %q", got)
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
