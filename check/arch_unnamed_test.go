package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// unnamedRun checks trace, read with arch, and returns its
// blind-unnamed-call warnings.
func unnamedRun(t *testing.T, trace string, arch parser.Arch) []BlindWarning {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runWithArch(t, p, arch)
	defer res.Close()
	var out []BlindWarning
	for _, w := range res.Warnings {
		if w.ID == BlindUnnamedCall {
			out = append(out, w)
		}
	}
	return out
}

// A program started on a machine with the generic call numbers (a Go
// program on riscv64 asks riscv_hwprobe, 258, as it starts): only *at
// calls, no arch_prctl.
const genericStart = `execve("./svc", ["./svc"], 0x3ffff0 /* 9 vars */) = 0
brk(NULL) = 0x2aab000
`

const genericSave = `openat(AT_FDCWD, "state", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3
write(3, "v2\n", 3) = 3
fsync(3) = 0
close(3) = 0
newfstatat(AT_FDCWD, "state", {st_mode=S_IFREG|0644, st_size=3, ...}, 0) = 0
exit_group(0) = ?
+++ exited with 0 +++
`

// TestUnnamedCallNotAMD64: a number every strace names on amd64, printed
// by number, says the trace is not from amd64: the call is not named by
// amd64's table (258 was read as mkdirat), and it stays a blind spot, as
// the machine, and so the call, cannot be told; on arm64, which the trace
// may be from, it is named by arm64's table. A trace that shows x86 (or
// --arch) reads as before.
func TestUnnamedCallNotAMD64(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		arch        parser.Arch
		want, not   []string // in the message (or fix, for "fix: ")
	}{
		{"riscv_hwprobe", genericStart + "syscall_0x102(0x3fffd0c0a8, 0x2, 0, 0, 0, 0) = 0\n" + genericSave, syscalls.Unknown,
			[]string{"not from amd64", "mkdirat", "riscv_hwprobe (258)", "cannot tell what the call did", "fix: if the trace is from riscv64", "--arch arm64"},
			[]string{"which on amd64", "is mkdirat"}},
		{"renameat2 on arm64's numbering", genericStart + "syscall_276(0xffffffffffffff9c, 0x4005e4, 0xffffffffffffff9c, 0x4005f0, 0x1) = 0\n" + genericSave, syscalls.Unknown,
			[]string{"every strace names call 276 on amd64: the trace is not from amd64; on arm64, which it may be from, it is renameat2"}, nil},
		{"getrandom on arm64's numbering", genericStart + "syscall_0x116(0x3fffd0c0a8, 0x8, 0x1) = 8\n" + genericSave, syscalls.Unknown,
			[]string{"where 278 is a call that changes no file", "fix: give --arch arm64"}, nil},
		{"no machine crashsim reads", genericStart + "syscall_0x22(0, 0x1) = 0\n" + genericSave, syscalls.Unknown,
			[]string{"nor from another machine crashsim reads (arm64, 386)"}, nil},
		{"two", genericStart + "syscall_0x102(0x3fffd0c0a8, 0x2, 0, 0, 0, 0) = 0\nsyscall_0x102(0x3fffd0c0a8, 0x1, 0, 0, 0, 0) = 0\n" + genericSave, syscalls.Unknown,
			[]string{"what the call (2 such calls in all) did"}, nil},
		{"x86 shown first", genericStart + "arch_prctl(ARCH_SET_FS, 0x7f0a) = 0\nsyscall_316(0xffffffffffffff9c, 0x4005e4, 0xffffffffffffff9c, 0x4005f0, 0x1, 0) = 0\n" + genericSave, syscalls.Unknown,
			[]string{"which on amd64 is renameat2"}, []string{"not from amd64"}},
		{"renameat2 on an unknown machine", genericStart + "syscall_316(0xffffffffffffff9c, 0x4005e4, 0xffffffffffffff9c, 0x4005f0, 0x1, 0) = 0\n" + genericSave, syscalls.Unknown,
			[]string{"which on amd64 (the trace does not say which machine recorded it) is renameat2"}, nil},
	} {
		ws := unnamedRun(t, tc.trace, tc.arch)
		if len(ws) != 1 {
			t.Errorf("%s: %d blind-unnamed-call warnings, want 1: %v", tc.name, len(ws), ws)
			continue
		}
		text := ws[0].Message + " fix: " + ws[0].Fix
		for _, s := range tc.want {
			if !strings.Contains(text, s) {
				t.Errorf("%s: %q\nwant it to say %q", tc.name, text, s)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(text, s) {
				t.Errorf("%s: %q\nsays %q", tc.name, text, s)
			}
		}
	}
	// Read as arm64, 258 and 278 are no call a verdict needs: no blind spot.
	for _, nr := range []string{"syscall_0x102(0x3fffd0c0a8, 0x2, 0, 0, 0, 0) = 0\n", "syscall_0x116(0x3fffd0c0a8, 0x8, 0x1) = 8\n"} {
		if ws := unnamedRun(t, genericStart+nr+genericSave, syscalls.ARM64); len(ws) != 0 {
			t.Errorf("--arch arm64, %s: %v, want none", strings.TrimSpace(nr), ws)
		}
	}
}
