package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEpochWithRelative: -r after -ttt prints the delta after the seconds
// since the epoch, as it does after -t and -tt. The shapes are strace
// 6.1's, recorded with
//
//	strace -ttt -r -o t /bin/true
//	strace --absolute-timestamps=format:unix,precision:ns -r -o t /bin/true
//	strace -f -ttt -r -o t sh -c '/bin/true; /bin/true'
//
// Each line's time is the absolute one; the delta is passed over.
func TestEpochWithRelative(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		times      []int64 // nanoseconds since the epoch
	}{
		{"-ttt -r",
			"1796628942.836238 (+     0.000000) execve(\"/bin/true\", [\"/bin/true\"], 0x7fff9b2d41b0 /* 35 vars */) = 0\n" +
				"1796628942.836741 (+     0.000475) brk(NULL) = 0x556f2fd20000\n" +
				"1796628942.837002 (+     0.000261) exit_group(0) = ?\n" +
				"1796628942.837190 (+     0.000188) +++ exited with 0 +++\n",
			[]int64{1796628942836238000, 1796628942836741000, 1796628942837002000, 1796628942837190000}},
		{"--absolute-timestamps=format:unix,precision:ns -r",
			"1796629053.420287174 (+     0.000000) execve(\"/bin/true\", [\"/bin/true\"], 0x7fff8a775780 /* 35 vars */) = 0\n" +
				"1796629053.420772353 (+     0.000435) brk(NULL) = 0x561e12e79000\n",
			[]int64{1796629053420287174, 1796629053420772353}},
		{"-f -ttt -r",
			"26085 1796629053.366619 (+     0.000000) execve(\"/usr/bin/sh\", [\"sh\", \"-c\", \"/bin/true; /bin/true\"], 0x7ffc2385e878 /* 35 vars */) = 0\n" +
				"26085 1796629053.367112 (+     0.000470) brk(NULL) = 0x5641a981c000\n" +
				"26086 1796629053.369000 (+     0.001888) close(3 <unfinished ...>\n" +
				"26085 1796629053.369100 (+     0.000100) --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=26087, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---\n" +
				"26086 1796629053.369200 (+     0.000100) <... close resumed>) = 0\n",
			[]int64{1796629053366619000, 1796629053367112000, 1796629053369100000, 1796629053369000000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, warns, _ := parseText(t, tc.text)
			var times []int64
			for _, ev := range evs {
				times = append(times, ev.Time)
			}
			if diff := cmp.Diff(tc.times, times); diff != "" {
				t.Errorf("times (-want +got):\n%s", diff)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
		})
	}
}

// TestFFSetEpochWithRelative: an -ff set recorded with -ttt -r merges by
// its absolute times. Each file's deltas count from that file's previous
// line, so summed they would order the two processes the wrong way round
// here. The shape is strace 6.1's:
//
//	strace -ff -ttt -r -o t sh -c '/bin/true & wait'
func TestFFSetEpochWithRelative(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "t")
	files := map[string]string{
		"t.100": "1796629053.390941 (+     0.000000) execve(\"/usr/bin/sh\", [\"sh\", \"-c\", \"/bin/true & wait\"], 0x7ffc0eb75608 /* 35 vars */) = 0\n" +
			"1796629053.391432 (+     0.000464) clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 101\n" +
			"1796629053.400000 (+     0.008568) wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101\n" +
			"1796629053.400100 (+     0.000100) exit_group(0) = ?\n" +
			"1796629053.400200 (+     0.000100) +++ exited with 0 +++\n",
		// The child's first delta is since strace started it: larger than
		// any of the parent's, though its calls come between them.
		"t.101": "1796629053.397247 (+     0.005000) set_robust_list(0x7fc42aa56a20, 24) = 0\n" +
			"1796629053.397442 (+     0.000195) exit_group(0) = ?\n" +
			"1796629053.397500 (+     0.000058) +++ exited with 0 +++\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	for _, ev := range readSet(t, prefix, Options{}, nil) {
		order = append(order, fmt.Sprintf("%d %s", ev.PID, ev.Name)) // an exit line has no name
	}
	want := []string{
		"100 execve", "100 clone", "101 set_robust_list", "101 exit_group", "101 ",
		"100 wait4", "100 exit_group", "100 ",
	}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("merged order (-want +got):\n%s", diff)
	}
}

// TestFFSetRelativeOnlyRefused: an -ff set with -r and no absolute time
// cannot be ordered across its files, and the message says so and how to
// record one that can be: -ttt -r is read now, so "-r" alone is at fault. The shape is strace 6.1's:
//
//	strace -ff -r -o t sh -c '/bin/true & wait'
func TestFFSetRelativeOnlyRefused(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"t.100": "     0.000000 execve(\"/usr/bin/sh\", [\"sh\", \"-c\", \"/bin/true & wait\"], 0x7ffc0eb75608 /* 35 vars */) = 0\n" +
			"     0.000464 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 101\n",
		"t.101": "     0.000566 set_robust_list(0x7fc42aa56a20, 24) = 0\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(filepath.Join(dir, "t"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Next()
	if err == nil || !strings.Contains(err.Error(), "only relative timestamps (-r)") || !strings.Contains(err.Error(), "strace -ff -ttt -o t CMD") {
		t.Errorf("got %v, want the -ff set refused for its relative timestamps, naming -ttt", err)
	}
}
