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
	digits, found := strings.CutPrefix(name, "syscall_")
	if !found || digits == "" {
		return 0, false
	}
	base := 10
	if hex, isHex := strings.CutPrefix(digits, "0x"); isHex {
		digits, base = hex, 16
	}
	nr, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return 0, false
	}
	if arch == Unknown || arch >= numArches {
		arch = AMD64
	}
	n, known := numbers[arch][nr]
	if !known {
		return 0, false
	}
	return Lookup(n), true
}
