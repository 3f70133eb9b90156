// Package syscalls is crashsim's one table of the system calls it knows:
// what each call's arguments are, what it does in the model's terms, and
// whether crashsim trace records it, with the flag values of every
// architecture crashsim reads. parser, model, check and tracer derive
// their sets from it; nothing else lists calls by name.
//
// # Rows
//
// A Row is one call, by the name strace prints (so _llseek, fstatat64 and
// mmap2 have rows of their own beside lseek, newfstatat and mmap). The
// rows are data, one file per family, in gVisor's strace manner: files.go
// (opens, sizes, stats, attributes), fds.go (the fd table and the calls
// that make fds on no file), io.go (reads, writes, copies, seeks, and
// the other calls whose buffers hold data), dirs.go (entries and the
// cwd), sync.go (barriers), memory.go (mappings), io_uring.go, and
// processes.go. A row gives:
//
//   - Args: the kind of each argument, in the order strace prints them
//     (ArgFD, the fd of the file the call acts on; ArgDirfd and ArgPath;
//     ArgData and ArgIovec, the bytes written or read; ArgFlags with
//     their FlagTable; ArgOffset; ...). The positions the model reads
//     are worked out from them once: the first ArgFD is the file (FD),
//     a path takes the dirfd right before it (Path, Dirfd), a second
//     path is a rename's or a link's new name (Path2, Dirfd2).
//   - Effect: the effect class, an integer the model and the process
//     model switch on (Open, WriteFD, WriteAt, Truncate, Fsync, Rename,
//     Fork, ..., None for a call they ignore). A parser that knows the
//     class and the positions hands the model a call as integers.
//   - Arches: the architectures whose strace prints the name. A call
//     only some have is evidence of where a trace was recorded.
//   - Traced, Why, Optional and Raw: whether crashsim trace records it by
//     default and why (every traced call costs a stop of the tracee),
//     whether -e trace= names it "?name" (some architecture or an older
//     strace lacks it), and whether it is printed with -e raw= (a read's
//     buffer is an address, not the data read). Why says, for a call
//     left out, why it is. NoDataOnly keeps a call out of the recording
//     with data (explore's), whose -y names every written fd: recvmsg.
//
// A Call is a row's index: the parser puts it on every event
// (parser.Event.Call), the zero Call standing for a name the table does
// not have.
//
// # Flags and architectures
//
// A FlagTable names the values of one kind of flag (open flags, at
// flags, rename flags, fallocate modes, RWF flags, fcntl commands, mmap
// protections and flags, msync and sync_file_range flags, clone flags,
// lseek's whence) on amd64, arm64 and 386, each checked against the
// kernel's uapi headers of that architecture (headers_test.go). They are
// crashsim's own: nothing here reads the host's ABI, so the packages
// that read traces build for any GOOS and GOARCH, and a trace recorded
// on one machine reads the same on another.
//
// Decoded flags are crashsim's bits, which are amd64's values (the
// constants of this package: O_DIRECT, MAP_SHARED, ...). A name decodes to
// them whatever the architecture; a number (strace -X raw, -e raw=, or
// bits strace did not know) is read as the recording machine printed it
// and translated bit by bit. Most values are the same everywhere; arm64
// moves O_DIRECTORY, O_NOFOLLOW, O_DIRECT and O_LARGEFILE (0x4000 is
// O_DIRECT on amd64 and O_DIRECTORY on arm64), and i386 shares every
// value amd64 has (the *LK64 fcntl commands aside). Arm (32-bit) is not
// read: its calls would be taken for i386's.
//
// # Which architecture
//
// A trace does not name its machine. crashsim takes it, in order, from
// --arch; from the "arch" line of the listing crashsim trace writes
// beside the trace (TRACE.initial); from what the trace shows, which
// Evidence works out as the parser reads: calls only some architectures
// have (arch_prctl and set_thread_area only on x86, mmap2, _llseek and
// fstat64 only on 32-bit ones, newfstatat only on 64-bit ones), and
// personality lines ("[ Process PID=N runs in x32 mode. ]" only on
// x86-64; "AArch64" and "32-bit" mode only from older straces on arm64;
// "32 bit" and "64 bit" from either). x86-64 and i386 together (a 32-bit
// program run by a 64-bit shell) read as amd64, whose values they share.
// Otherwise the architecture is Unknown and numbers are read as amd64's;
// check says so with the blind spot blind-unknown-arch when such a number
// means something else on another architecture, rather than guess
// silently. An arm64 trace recorded with -X raw and no listing shows
// nothing only arm64 has: it needs --arch arm64 or its listing.
//
// A call strace printed by its number ("syscall_0x102") rules out the
// architectures on which every strace in use names that number (NamedBy:
// 258 is mkdirat on amd64, which no strace prints as a number), and
// Evidence.Possible tells what is left. That never concludes one: crashsim
// reads three architectures of the many strace traces, and a raw number
// is most often the sign of one it does not read (riscv64's riscv_hwprobe,
// 258, which no strace up to 7.2 names), so Arch stays Unknown.
package syscalls
