package syscalls

import (
	"strconv"
	"strings"
)

// A strace older than the kernel it ran on prints a call it does not know
// by its number, with its arguments as bare numbers: "syscall_316(...)"
// (strace 4.x, decimal) or "syscall_0x13c(...)" (later, hex). On amd64
// that is renameat2, which coreutils' mv has used since 2014: a rename the
// trace hides. The tables below give, on each architecture, the number of
// every call whose effect a verdict needs (it changes a file or a name,
// opens one, or sets up an io_uring), so that such a line can be named
// and reported as a blind spot. TestNumbersMatchKernelHeaders holds them
// to the kernel's uapi headers.

// numbers are the calls that matter by their number, by architecture.
var numbers = [numArches]map[uint64]string{
	AMD64: {
		1: "write", 2: "open", 18: "pwrite64", 20: "writev", 40: "sendfile", 49: "bind",
		76: "truncate", 77: "ftruncate", 82: "rename", 83: "mkdir", 84: "rmdir",
		85: "creat", 86: "link", 87: "unlink", 88: "symlink", 133: "mknod",
		257: "openat", 258: "mkdirat", 259: "mknodat", 263: "unlinkat",
		264: "renameat", 265: "linkat", 266: "symlinkat", 275: "splice",
		285: "fallocate", 296: "pwritev", 316: "renameat2",
		326: "copy_file_range", 328: "pwritev2", 425: "io_uring_setup",
		437: "openat2",
	},
	ARM64: {
		33: "mknodat", 34: "mkdirat", 35: "unlinkat", 36: "symlinkat",
		37: "linkat", 38: "renameat", 45: "truncate", 46: "ftruncate",
		47: "fallocate", 56: "openat", 64: "write", 66: "writev",
		68: "pwrite64", 70: "pwritev", 71: "sendfile", 76: "splice", 200: "bind",
		276: "renameat2", 285: "copy_file_range", 287: "pwritev2",
		425: "io_uring_setup", 437: "openat2",
	},
	I386: {
		4: "write", 5: "open", 8: "creat", 9: "link", 10: "unlink",
		14: "mknod", 38: "rename", 39: "mkdir", 40: "rmdir", 83: "symlink",
		92: "truncate", 93: "ftruncate", 146: "writev", 181: "pwrite64",
		187: "sendfile", 193: "truncate64", 194: "ftruncate64",
		239: "sendfile64", 295: "openat", 296: "mkdirat", 297: "mknodat",
		301: "unlinkat", 302: "renameat", 303: "linkat", 304: "symlinkat",
		313: "splice", 324: "fallocate", 334: "pwritev", 353: "renameat2", 361: "bind",
		377: "copy_file_range", 379: "pwritev2", 425: "io_uring_setup",
		437: "openat2",
	},
}

// NeedsEffect reports whether a verdict needs to see what a call with
// effect e did: it changes a file or a name, opens one, or sets up an
// io_uring. These are the calls the number tables hold.
func (e Effect) NeedsEffect() bool {
	return e.Changes() || e == Open || e == IOUringSetup
}

// ByNumber is the call that name, as strace prints a call it does not
// know ("syscall_316", "syscall_0x13c"), stands for on arch (read as
// amd64 when Unknown), when it is one whose effect a verdict needs; ok is
// false for any other name or number.
func ByNumber(name string, arch Arch) (Call, bool) {
	nr, ok := Number(name)
	if !ok {
		return 0, false
	}
	return OnArch(nr, arch)
}

// OnArch is ByNumber's answer for call number nr.
func OnArch(nr uint64, arch Arch) (Call, bool) {
	if arch == Unknown || arch >= numArches {
		arch = AMD64
	}
	n, known := numbers[arch][nr]
	if !known {
		return 0, false
	}
	return Lookup(n), true
}

// Number is the number of a call strace printed by it, not knowing the
// call ("syscall_316", "syscall_0x13c"); ok is false for any other name.
func Number(name string) (nr uint64, ok bool) {
	digits, found := strings.CutPrefix(name, "syscall_")
	if !found || digits == "" {
		return 0, false
	}
	base := 10
	if hex, isHex := strings.CutPrefix(digits, "0x"); isHex {
		digits, base = hex, 16
	}
	nr, err := strconv.ParseUint(digits, base, 64)
	return nr, err == nil
}

// A strace prints a call by its number only when its table for the
// traced architecture lacks it. Every strace in use, from 4.5.18 (2008,
// the one RHEL 5 ships) to 7.x, names each of these numbers (checked
// against strace's syscallent tables of 4.5.18, 4.6, 4.8, 4.10, 4.20,
// 5.0, 5.10, 6.0, 6.10 and 7.2), so a trace holding one of them as
// "syscall_N" is not from that architecture:
//
//   - amd64: 0-287 (read to timerfd_gettime, Linux 2.6.25): 258 is
//     mkdirat, 264 renameat.
//   - 386: 0-326 (to timerfd_gettime), but for 222, 223, 251 and 285,
//     which Linux leaves empty and strace unnamed.
//   - arm64: 0-243 and 260-271 (strace 4.8, the first to read arm64):
//     the generic numbering (asm-generic/unistd.h) that riscv64,
//     loongarch64 and other later machines share. It leaves 244-259 to
//     each machine's calls of its own: none on arm64 (a call there fails
//     with ENOSYS, and strace prints its number), riscv_hwprobe (258) and
//     riscv_flush_icache (259) on riscv64. strace 7.2 still prints
//     riscv_hwprobe as syscall_0x102, and Go's runtime calls it as it
//     starts.
//
// Numbers from 424 on are the same call on every architecture, and a
// strace older than the call prints them on any: they say nothing of the
// machine.

// GenericOwnFirst and GenericOwnLast bound the numbers the generic
// numbering leaves to each architecture's calls of its own.
const (
	GenericOwnFirst = 244
	GenericOwnLast  = 259
)

// NamedBy is the set of architectures crashsim reads on which every
// strace in use prints call number nr by its name: a trace that holds
// nr printed as a number ("syscall_0x102") is from none of them.
func NamedBy(nr uint64) Arches {
	var s Arches
	if nr <= 287 {
		s |= onAMD64
	}
	if nr <= 326 && nr != 222 && nr != 223 && nr != 251 && nr != 285 {
		s |= on386
	}
	if nr < GenericOwnFirst || (nr > GenericOwnLast && nr <= 271) {
		s |= onARM64
	}
	return s
}
