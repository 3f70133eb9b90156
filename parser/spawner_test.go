package parser

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crashsim/crashsim/internal/syscalls"
)

// TestSpawner: a call begun while a call that makes a process (fork,
// vfork, clone, clone3) was under way in another process carries that
// process and the call's clone flags, and the other processes with such a
// call under way with the same flags; no call does when none was under
// way, or two with flags that differ or do not read, nor a call of a
// spawning process itself, and none once the call returned or its
// process exited.
func TestSpawner(t *testing.T) {
	const (
		sigchld = 17 // the exit signal, in the low byte of the flags
		thread  = syscalls.CLONE_VM | syscalls.CLONE_FS | syscalls.CLONE_FILES | syscalls.CLONE_SIGHAND | syscalls.CLONE_THREAD | syscalls.CLONE_SYSVSEM | syscalls.CLONE_SETTLS | syscalls.CLONE_PARENT_SETTID | syscalls.CLONE_CHILD_CLEARTID
	)
	for _, c := range []struct {
		name, trace string
		want        []string // "pid call spawner flags" of each event with a stamp
	}{
		{"clone of a child",
			"100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f <unfinished ...>\n" +
				"101 close(3) = 0\n" +
				"101 write(1, \"x\", 1) = 1\n" +
				"100 <... clone resumed>) = 101\n" +
				"101 close(4) = 0\n",
			[]string{
				fmt.Sprintf("101 close 100 %#x", syscalls.CLONE_CHILD_CLEARTID|syscalls.CLONE_CHILD_SETTID|sigchld),
				fmt.Sprintf("101 write 100 %#x", syscalls.CLONE_CHILD_CLEARTID|syscalls.CLONE_CHILD_SETTID|sigchld),
			}},
		{"vfork",
			"100 vfork( <unfinished ...>\n" +
				"101 execve(\"/bin/true\", [\"true\"], 0x7ffc /* 3 vars */) = 0\n" +
				"100 <... vfork resumed>) = 101\n",
			[]string{"101 execve 100 0x0"}},
		{"clone3 of a thread, a call left unfinished in the window",
			"111 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f1, parent_tid=0x7f1, exit_signal=0, stack=0x7f0, stack_size=0x7fff80, tls=0x7f2} <unfinished ...>\n" +
				"112 rseq(0x7f3, 0x20, 0, 0x53053053 <unfinished ...>\n" +
				"111 <... clone3 resumed> => {parent_tid=[112]}, 88) = 112\n" +
				"112 <... rseq resumed>) = 0\n" +
				"112 close(3) = 0\n",
			[]string{fmt.Sprintf("112 rseq 111 %#x", thread)}},
		{"two under way", "100 fork( <unfinished ...>\n" +
			"200 fork( <unfinished ...>\n" +
			"101 close(3) = 0\n" +
			"100 <... fork resumed>) = 101\n" +
			"102 close(3) = 0\n" +
			"200 <... fork resumed>) = 102\n",
			// 200's fork begins while 100's alone is under way (events come
			// in the order they complete).
			[]string{"101 close 100 0x0 also [200]", "102 close 200 0x0", "200 fork 100 0x0"}},
		{"two under way, their flags differ", "100 fork( <unfinished ...>\n" +
			"200 clone(child_stack=NULL, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM <unfinished ...>\n" +
			"101 close(3) = 0\n",
			[]string{"200 clone 100 0x0"}},
		{"the spawner killed inside its call",
			"100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f <unfinished ...>\n" +
				"100 +++ killed by SIGKILL +++\n" +
				"101 close(3) = 0\n",
			nil},
		{"two under way, the flags of one unread", "100 fork( <unfinished ...>\n" +
			"200 clone(child_stack=NULL, flags=CLONE_SOMETHING_NEW|SIGCHLD <unfinished ...>\n" +
			"101 close(3) = 0\n",
			// 200's clone begins while 100's fork alone is under way.
			[]string{"200 clone 100 0x0"}},
		{"none under way", "100 close(3) = 0\n101 close(3) = 0\n", nil},
	} {
		evs, warns, err := readEvents(bytes.NewReader([]byte(c.trace)), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, ev := range evs {
			if pid, flags, also := ev.Spawner(); pid != 0 {
				s := fmt.Sprintf("%d %s %d %#x", ev.PID, ev.Name, pid, flags)
				if len(also) > 0 {
					s += fmt.Sprintf(" also %v", also)
				}
				got = append(got, s)
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: stamps (-want +got):\n%s\nwarnings %q", c.name, diff, warns)
		}
	}
}
