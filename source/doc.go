// Package source turns a stack that strace -k printed under a syscall into
// the place in the traced program's own code that made the call: a source
// file, a line and a function.
//
// Terms:
//
//   - A frame is one line of the stack as strace prints it after " > ":
//     MODULE(SYMBOL+0xOFF) [0xADDR]. ADDR is an offset into MODULE's file,
//     not a virtual address: strace subtracts the start of the mapping and
//     adds the mapping's file offset, so the same number comes out whether
//     the binary is position independent or not, and wherever ASLR put it.
//   - The user's frame is the first frame, innermost first, that is none of
//     the machinery between the program and the kernel: shared libraries the
//     system installed (libc, ld.so, libstdc++, libpython, ...), the Go
//     runtime and standard library inside a Go binary, and crashsim's own
//     shims.
//   - A location is what the binary's debug information says about that
//     frame: DWARF line tables (debug/dwarf), or for a Go binary built
//     without DWARF, its pclntab (debug/gosym).
//
// The binary is read from the path in the frame, on the machine where the
// trace is checked. If it was rebuilt since the recording, the line may be
// wrong; nothing in an strace log says which build ran.
//
// Python has no frames worth unwinding: strace -k shows the interpreter's
// C code. For Python, crashsim trace --stack puts a sitecustomize.py on
// PYTHONPATH (PythonShim) that leaves marks in the trace instead:
//
//   - A mark is a failed open of a path below MarkPrefix that carries the
//     operation, the .py file, line and function, and the paths (see
//     Mark). It comes right before the call it names, in the same
//     thread, and names it only if that call is one the operation makes
//     (Mark.Names): a mark whose call did not come names nothing rather
//     than the wrong call.
//   - The operations Python audits (PEP 578: open, os.rename and
//     os.replace, os.remove, os.mkdir, os.rmdir, os.link, os.symlink,
//     os.truncate and os.ftruncate) are marked by an audit hook. Those it
//     does not (os.fsync, os.fdatasync, os.sync, os.write, os.pwrite,
//     os.writev, os.pwritev, os.sendfile, os.copy_file_range,
//     os.sync_file_range, os.posix_fallocate) by wrappers the shim puts on
//     the os module in their place, which mark and call the original.
//   - A file object's write (f.write, f.writelines) makes no call when it
//     is made: its bytes reach the kernel at a flush or a close. On Python
//     3.12 and later the shim sees it through sys.monitoring (CALL events,
//     each call site that calls anything else disabled after its first
//     call) and leaves a write note (Mark.Note): the line, the file and
//     its fd, once per line and fd between two opens. A note names the
//     writes of its fd by its thread from the next one on, until the next
//     note of that fd or its close. Python 3.11 and before show f.write
//     to nothing cheaper than a profiler on every call, so there a finding
//     on its bytes names the open.
//
// Which of a finding's calls names its line is the caller's choice (the
// call where the fix goes: the library's fixAt); this package knows no
// rules.
//
// What the shim costs, measured on a save loop by
// scripts/pyshim-overhead.sh: 10,000 saves (write, flush, fsync, replace)
// to /dev/shm, timed from inside the loop, without and with the shim,
// alternating, 7 rounds, on a 2-core machine other jobs kept busy (load
// 15 to 19), so the spread is wide; medians, range in brackets:
//
//	                       wall               CPU of the program
//	3.11 under trace       1.6x (0.9-1.8)     1.9x (1.4-2.3)
//	3.11 without strace    2.8x (1.5-4.6)     3.3x (2.8-3.8)
//	3.12 under trace       1.8x (0.8-2.9)     2.3x (2.1-2.6)
//	3.12 without strace    4.9x (2.2-5.9)     4.7x (3.4-5.1)
//
// "Under trace" is crashsim trace against crashsim trace --stack (for a
// python command --stack adds only the shim), where the shim is used: a
// save makes three marks on 3.11 (open, os.fsync, os.replace) and four on
// 3.12 (and the f.write), each one more traced call. Without strace a
// mark's failed open under /proc costs a few microseconds of kernel time,
// more than the save's own calls on /dev/shm. sys.monitoring costs
// nothing measurable on code that does not write files (a recursive
// Fibonacci making 1.6 million calls: 0.8x to 1.15x on 3.12 and 3.13,
// noise). sys.setprofile, the only way to see f.write on 3.11, is not
// used: a profile function that only looks for f.write made a smaller
// Fibonacci (75,000 calls) 2.8 to 14 times slower (median 7.3x), though
// the save loop only 1.1x.
package source
