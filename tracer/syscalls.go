package tracer

// traced is one syscall in the default -e trace= set.
type traced struct {
	name string
	// optional marks a name that some architecture lacks (open and rename
	// on arm64, mmap2 and _llseek on 64-bit ones) or that an older strace
	// does not know: it is written "?name" so strace skips it quietly.
	optional bool
	// raw prints the call with -e raw=: its arguments as numbers, so a
	// read's buffer is an address and not a copy of the data read.
	raw bool
	// rawNoData prints the call raw in a recording without data
	// (Options.NoData): its buffer is then an address, which strace need
	// not read from the tracee (one process_vm_readv less per call), and
	// the length still comes from the return value.
	rawNoData bool
	// why says what the crash model reads from it.
	why string
}

// defaultSyscalls is what the durability model reads, and nothing else:
// every stop costs a context switch to strace, so a syscall that does not
// change file data, names, offsets, fd tables or durability stays out. stat
// and friends are the usual bulk of a program's calls and are not here.
//
// Pipes, sockets, eventfds and memfds are not traced at birth: -y annotates
// every fd argument with what it is (pipe:[N], socket:[N]), so a write or a
// dup of one is recognised without its creation. pread64 and preadv are not
// traced: they move no offset.
var defaultSyscalls = []traced{
	// Opening and naming files.
	{name: "open", optional: true, why: "fd table; O_CREAT may add an entry; O_TRUNC sets the size"},
	{name: "openat", why: "fd table; O_CREAT may add an entry; O_TRUNC sets the size"},
	{name: "openat2", optional: true, why: "as openat (Linux 5.6)"},
	{name: "creat", optional: true, why: "as open with O_CREAT|O_TRUNC"},
	{name: "close", why: "fd table"},
	{name: "close_range", optional: true, why: "fd table (Linux 5.9)"},
	{name: "dup", why: "fd table: shares an offset"},
	{name: "dup2", optional: true, why: "fd table"},
	{name: "dup3", why: "fd table"},
	{name: "fcntl", why: "F_DUPFD*; F_SETFL turns O_APPEND and O_DIRECT on and off"},
	{name: "fcntl64", optional: true, why: "fcntl on 32-bit architectures"},

	// Offsets. Reads only move the offset, so their data is not copied.
	{name: "read", raw: true, why: "moves the fd offset"},
	{name: "readv", raw: true, why: "moves the fd offset"},
	{name: "preadv2", optional: true, raw: true, why: "moves the offset when given offset -1"},
	{name: "lseek", why: "sets the fd offset"},
	{name: "_llseek", optional: true, why: "lseek on 32-bit architectures"},

	// Data.
	{name: "write", rawNoData: true, why: "data"},
	{name: "writev", rawNoData: true, why: "data"},
	{name: "pwrite64", rawNoData: true, why: "data"},
	{name: "pwritev", rawNoData: true, why: "data"},
	{name: "pwritev2", optional: true, why: "data; RWF_DSYNC/RWF_SYNC make it durable"},
	{name: "copy_file_range", optional: true, why: "data copied in the kernel"},
	{name: "sendfile", why: "data copied in the kernel"},
	{name: "sendfile64", optional: true, why: "sendfile on 32-bit architectures"},
	{name: "splice", why: "data from a pipe into a file"},
	{name: "truncate", why: "size"},
	{name: "ftruncate", why: "size"},
	{name: "truncate64", optional: true, why: "truncate on 32-bit architectures"},
	{name: "ftruncate64", optional: true, why: "ftruncate on 32-bit architectures"},
	{name: "fallocate", why: "size, unless FALLOC_FL_KEEP_SIZE"},

	// Directory entries.
	{name: "rename", optional: true, why: "entries"},
	{name: "renameat", optional: true, why: "entries (absent on riscv64 and loongarch64)"},
	{name: "renameat2", optional: true, why: "entries; RENAME_NOREPLACE, RENAME_EXCHANGE"},
	{name: "link", optional: true, why: "entries"},
	{name: "linkat", why: "entries"},
	{name: "symlink", optional: true, why: "entries"},
	{name: "symlinkat", why: "entries"},
	{name: "unlink", optional: true, why: "entries"},
	{name: "unlinkat", why: "entries"},
	{name: "mkdir", optional: true, why: "entries"},
	{name: "mkdirat", why: "entries"},
	{name: "rmdir", optional: true, why: "entries"},
	{name: "mknod", optional: true, why: "entries: mknod can create a regular file"},
	{name: "mknodat", why: "entries"},

	// Barriers.
	{name: "fsync", why: "barrier"},
	{name: "fdatasync", why: "barrier"},
	{name: "sync", why: "barrier: everything"},
	{name: "syncfs", why: "barrier: one filesystem"},
	{name: "sync_file_range", optional: true, why: "no barrier, and rule sync-file-range-not-durable says so"},
	{name: "sync_file_range2", optional: true, why: "sync_file_range on arm and powerpc"},
	{name: "msync", why: "barrier for a mapped range"},

	// Writes a trace cannot show: noticed so that the blind spots
	// blind-shared-mmap and blind-io-uring, and rule unmodeled-write
	// (reflinks), can say so.
	{name: "mmap", why: "MAP_SHARED|PROT_WRITE of a file: stores are invisible"},
	{name: "mmap2", optional: true, why: "mmap on 32-bit architectures"},
	{name: "munmap", why: "ends a mapping"},
	{name: "ioctl", why: "FICLONE, FICLONERANGE, FIDEDUPERANGE change data"},
	{name: "io_uring_setup", optional: true, why: "io_uring writes are invisible"},
	{name: "io_uring_enter", optional: true, why: "io_uring writes are invisible"},
	{name: "io_uring_register", optional: true, why: "io_uring files and buffers"},

	// Processes: who shares which fd table and cwd.
	{name: "chdir", why: "cwd"},
	{name: "fchdir", why: "cwd"},
	{name: "fork", optional: true, why: "process tree; copies the fd table"},
	{name: "vfork", optional: true, why: "process tree"},
	{name: "clone", why: "process tree; CLONE_FILES shares the fd table"},
	{name: "clone3", optional: true, why: "as clone (Linux 5.3)"},
	{name: "unshare", why: "CLONE_FILES unshares the fd table"},
	{name: "execve", why: "O_CLOEXEC fds close"},
	{name: "execveat", optional: true, why: "as execve"},
	{name: "exit", why: "process end"},
	{name: "exit_group", why: "process end"},
}
