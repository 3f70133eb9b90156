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
package source
