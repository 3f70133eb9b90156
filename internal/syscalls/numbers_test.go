package syscalls

import "testing"

// TestNamedBy: a number every strace names on an architecture, printed
// by number, rules that architecture out; 244-259, which the generic
// numbering leaves to each machine (riscv_hwprobe is 258 on riscv64,
// and no call on arm64), and the numbers every architecture shares from
// 424 on rule nothing out.
func TestNamedBy(t *testing.T) {
	for _, tc := range []struct {
		nr   uint64
		want Arches
	}{
		{258, onAMD64 | on386},          // mkdirat; set_tid_address; arm64's own range
		{259, onAMD64 | on386},          // mknodat; timer_create; riscv_flush_icache on riscv64
		{34, onAMD64 | on386 | onARM64}, // pause; nice; mkdirat
		{276, onAMD64 | on386},          // tee; mq_getsetattr; renameat2 on arm64 (Linux 3.15)
		{222, onAMD64 | onARM64},        // timer_create; empty on i386; mmap on arm64
		{251, onAMD64},                  // ioprio_set; empty on i386; arm64's own range
		{287, onAMD64 | on386},          // the last amd64 call of strace 4.5.18
		{288, on386},                    // accept4 on amd64 (2.6.28)
		{316, on386},                    // renameat2 on amd64 (Linux 3.15)
		{327, 0},
		{435, 0}, // clone3, the same number everywhere
	} {
		if got := NamedBy(tc.nr); got != tc.want {
			t.Errorf("NamedBy(%d) = %b, want %b", tc.nr, got, tc.want)
		}
	}
}

func TestNumber(t *testing.T) {
	for name, want := range map[string]uint64{"syscall_316": 316, "syscall_0x102": 258, "syscall_0": 0} {
		if got, ok := Number(name); !ok || got != want {
			t.Errorf("Number(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
	for _, name := range []string{"syscall_", "syscall_0xzz", "mkdirat", "syscall_-1"} {
		if got, ok := Number(name); ok {
			t.Errorf("Number(%q) = %d, want none", name, got)
		}
	}
}

// TestEvidenceUnnamed: a call strace printed by a number every strace
// names on x86 rules x86 out; what is left is possible, never concluded,
// as the trace may be from a machine crashsim does not read (riscv64).
func TestEvidenceUnnamed(t *testing.T) {
	for _, tc := range []struct {
		calls    []string
		possible Arches
		want     Arch
	}{
		{[]string{"openat", "syscall_0x102", "newfstatat"}, onARM64, Unknown},
		{[]string{"syscall_258"}, onARM64, Unknown},
		{[]string{"syscall_34"}, 0, Unknown},            // no machine crashsim reads
		{[]string{"syscall_0x1b3"}, AllArches, Unknown}, // clone3: any machine's old strace
		{[]string{"syscall_316"}, onAMD64 | onARM64, Unknown},
		{[]string{"arch_prctl", "syscall_316"}, onAMD64, AMD64},
		{[]string{"arch_prctl", "syscall_258"}, 0, AMD64}, // against itself: the calls stand
		{[]string{"mmap2", "syscall_0x102"}, 0, I386},
	} {
		var e Evidence
		for _, c := range tc.calls {
			if _, raw := Number(c); raw {
				e.Unnamed(c)
			} else {
				e.Call(Lookup(c))
			}
		}
		if got := e.Possible(); got != tc.possible {
			t.Errorf("%v: Possible = %b, want %b", tc.calls, got, tc.possible)
		}
		if got := e.Arch(); got != tc.want {
			t.Errorf("%v: Arch = %s, want %s", tc.calls, got, tc.want)
		}
	}
}
