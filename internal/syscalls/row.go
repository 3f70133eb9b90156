package syscalls

import "fmt"

// Effect is what a call does in the model's terms: the class the model
// and the process model dispatch on.
type Effect uint8

const (
	None Effect = iota // nothing the model reads: no fd, file, name or barrier changes

	// The fd table, cwds and processes (model.Procs).
	Open       // open, openat, openat2, creat: a new fd; O_CREAT may add a name, O_TRUNC sets the size
	Close      // close an fd
	CloseRange // close, or mark close-on-exec, a range of fds
	Dup        // dup, dup2, dup3: a second fd on the same open file description
	Fcntl      // F_DUPFD*, F_SETFD, F_SETFL (O_APPEND, O_DIRECT on and off)
	Pipe       // pipe, pipe2, socketpair: two fds on no file, in an array argument
	NewFD      // a new fd on no file in scope (socket, eventfd, memfd, ...)
	BPF        // bpf: a new fd for the commands that make one (it returns 0 for the others)
	Receive    // recvmsg: the fds another process sent over a Unix socket (SCM_RIGHTS) join the table
	Chdir      // the cwd, by path
	Fchdir     // the cwd, by fd
	Getcwd     // tells the cwd
	Chroot     // the root that absolute paths start from, by path
	Fork       // fork, vfork, clone, clone3: a new process or thread; CLONE_FILES, CLONE_FS share
	Execve     // O_CLOEXEC fds close
	Exit       // exit, exit_group: the process ends (the exit line says how)
	Wait       // wait4, waitid, waitpid: a process's life, nothing on disk

	// Data and offsets.
	ReadFD   // read at the fd offset, moving it
	ReadAt   // read at an offset; the fd offset stays
	Seek     // set the fd offset
	WriteFD  // write at the fd offset (the end of file with O_APPEND), moving it
	WriteAt  // write at an offset (at the fd offset when it is -1: pwritev2)
	CopyInto // bytes copied in the kernel into the fd's file (copy_file_range, sendfile, splice)
	Truncate // set a file's size, by path or by fd
	Fallocate

	// Names.
	Mkdir
	Unlink // unlink, unlinkat (a directory with AT_REMOVEDIR)
	Rmdir
	Rename
	Link
	Symlink
	Mknod // a node, maybe a regular file: counted as a change, not modelled
	Bind  // bind of a Unix socket to a path: a new name on a socket, as mknod of one
	Stat  // stat family, access, readlink: whether a name existed, a file's size before the trace

	// Barriers.
	Fsync
	Fdatasync
	Sync
	Syncfs
	SyncFileRange // starts or waits for writeback: no barrier
	Msync

	// Changes a trace cannot show.
	Mmap         // a shared writable mapping of a file: stores change it
	Mprotect     // mprotect, pkey_mprotect: PROT_WRITE added to a shared mapping of a file makes it one
	Ioctl        // FICLONE, FICLONERANGE, FIDEDUPERANGE change data
	IOUringSetup // an io_uring: its writes never reach the trace
	IOUringEnter
	AIOSubmit // io_submit: Linux AIO writes and fsyncs, done when the kernel completes them

	numEffects
)

var effectNames = [numEffects]string{
	"none", "open", "close", "close_range", "dup", "fcntl", "pipe", "new-fd", "bpf", "receive",
	"chdir", "fchdir", "getcwd", "chroot", "fork", "execve", "exit", "wait",
	"read", "read-at-offset", "seek", "write", "write-at-offset", "copy-into", "truncate", "fallocate",
	"mkdir", "unlink", "rmdir", "rename", "link", "symlink", "mknod", "bind", "stat",
	"fsync", "fdatasync", "sync", "syncfs", "sync_file_range", "msync",
	"mmap", "mprotect", "ioctl", "io_uring_setup", "io_uring_enter", "io_submit",
}

func (e Effect) String() string {
	if e < numEffects {
		return effectNames[e]
	}
	return fmt.Sprintf("Effect(%d)", e)
}

// IsSync reports whether the effect is a barrier whose failure matters:
// a failed fsync, fdatasync, syncfs or msync is applied (the data it
// covered may be lost), where any other failed call changes nothing.
func (e Effect) IsSync() bool {
	switch e {
	case Fsync, Fdatasync, Syncfs, Msync:
		return true
	}
	return false
}

// Changes reports whether the effect changes a file's data or size or a
// name, besides opening one.
func (e Effect) Changes() bool {
	switch e {
	case WriteFD, WriteAt, CopyInto, Truncate, Fallocate,
		Mkdir, Unlink, Rmdir, Rename, Link, Symlink, Mknod, Bind:
		return true
	}
	return false
}

// ArgKind says what an argument is, as far as crashsim cares.
type ArgKind uint8

const (
	ArgOther     ArgKind = iota // nothing crashsim reads
	ArgFD                       // the fd of the file the call acts on
	ArgFDOther                  // another fd: the source of a copy, a socket, a pipe, the new number of dup2
	ArgDirfd                    // the directory the next ArgPath is relative to (AT_FDCWD: the cwd)
	ArgPath                     // a path, relative to the ArgDirfd before it, or to the cwd
	ArgTarget                   // a symlink's target: a string never resolved
	ArgData                     // bytes written or read: referenced in the trace, never decoded
	ArgIovec                    // an array of struct iovec, whose bases hold data
	ArgMsg                      // a struct msghdr, whose iovecs hold data
	ArgSize                     // a byte count
	ArgOffset                   // a file offset
	ArgOffsetPtr                // a pointer to an offset ([N], or NULL for the fd's own)
	ArgOffsetOut                // where the call puts the new offset (_llseek's [N])
	ArgWhence                   // lseek's whence (Table)
	ArgMode                     // permission bits
	ArgFlags                    // flags (Table)
	ArgCmd                      // a command (fcntl's; ioctl's request, read as text)
	ArgOpenHow                  // openat2's struct open_how (its flags: Table)
	ArgCloneArgs                // clone3's struct clone_args (its flags: Table)
	ArgStat                     // a stat or statx buffer the call fills (st_size, st_mode)
	ArgBuf                      // a string the call fills (readlink's target, getcwd's path)
	ArgFDPair                   // the two fds pipe and socketpair return, [r, w]
	ArgAddr                     // an address (mmap's result, msync's start)
	// ArgSockAddr is a struct sockaddr; a Unix socket's (sa_family=AF_UNIX)
	// names a path in its sun_path, which bind makes. It is the row's path.
	ArgSockAddr
)

// Arg is one argument of a call, in the order strace prints them.
type Arg struct {
	Name  string
	Kind  ArgKind
	Table *FlagTable // ArgFlags, ArgCmd, ArgWhence, ArgOpenHow, ArgCloneArgs
}

// Raw says whether crashsim trace prints a call with -e raw=, its
// arguments as numbers.
type Raw uint8

const (
	RawNever  Raw = iota
	RawAlways     // a read's buffer is an address, not a copy of the data read
	RawNoData     // in a recording without data: a write's buffer is an address, which strace need not read
)

// Row is what crashsim knows of one system call, by the name strace
// prints for it.
type Row struct {
	Name   string
	Args   []Arg
	Effect Effect
	// Arches are the architectures whose strace prints this name; none
	// for a name only older straces or other architectures print.
	Arches Arches
	// RetFD is set for a call that returns a new fd on its path, which
	// strace -y annotates.
	RetFD bool
	// Traced is set for the calls crashsim trace records by default; Why
	// says what the model reads from the call, or why it is left out.
	// NoDataOnly keeps a traced call out of a recording with data
	// (explore's), which -y names every written fd in.
	Traced     bool
	NoDataOnly bool
	Why        string
	// Optional writes the name "?name" in -e trace=: some architecture
	// crashsim may run on, or a strace before 4.17, lacks it.
	Optional bool
	Raw      Raw

	// Positions worked out from Args once (see index): the first of each.
	fd, dirfd, path, dirfd2, path2, data, offset, offPtr, offOut, flags, stat int8
}

// Socket reports whether the call works on a socket (or a message
// queue) only: its fd argument (ArgFDOther) is no file.
func (r *Row) Socket() bool { return r.Why == whySocket || r.Effect == Receive }

// Pos returns the position of the first argument of kind k, or -1.
func (r *Row) Pos(k ArgKind) int {
	for i, a := range r.Args {
		if a.Kind == k {
			return i
		}
	}
	return -1
}

// PosOf returns the position of the first argument decoded with table t,
// or -1.
func (r *Row) PosOf(t *FlagTable) int {
	for i, a := range r.Args {
		if a.Table == t {
			return i
		}
	}
	return -1
}

// FD is the position of the fd the call acts on, or -1.
func (r *Row) FD() int { return int(r.fd) }

// Path is the position of the first path, and Dirfd that of the
// directory it is relative to (-1: the cwd); -1 when the call names none.
func (r *Row) Path() int  { return int(r.path) }
func (r *Row) Dirfd() int { return int(r.dirfd) }

// Path2 and Dirfd2 are the second path (a rename's or a link's new name)
// and its directory.
func (r *Row) Path2() int  { return int(r.path2) }
func (r *Row) Dirfd2() int { return int(r.dirfd2) }

// Data is the position of the argument that holds the bytes written or
// read (ArgData, ArgIovec or ArgMsg), or -1.
func (r *Row) Data() int { return int(r.data) }

// Offset is the position of an explicit file offset, or -1.
func (r *Row) Offset() int { return int(r.offset) }

// OffsetPtr is the position of the offset pointer that goes with the fd
// the call acts on (the one right after it: copy_file_range's off_out),
// or -1 (sendfile's offset belongs to the file it reads).
func (r *Row) OffsetPtr() int { return int(r.offPtr) }

// SourceOffsetPtr is the position of the offset pointer that goes with
// the other fd, the one a copy reads (copy_file_range's off_in,
// sendfile's offset), or -1.
func (r *Row) SourceOffsetPtr() int {
	i := r.Pos(ArgFDOther)
	if i >= 0 && i+1 < len(r.Args) && r.Args[i+1].Kind == ArgOffsetPtr {
		return i + 1
	}
	return -1
}

// OffsetOut is the position where the call puts the new offset, or -1.
func (r *Row) OffsetOut() int { return int(r.offOut) }

// Flags is the position of the first argument with a flag table (flags,
// a command, open_how, clone_args), or -1.
func (r *Row) Flags() int { return int(r.flags) }

// Stat is the position of the buffer a stat fills, or -1.
func (r *Row) Stat() int { return int(r.stat) }

// HasFiles reports whether the call names a file by fd or path: the
// process model resolves those arguments for every such call.
func (r *Row) HasFiles() bool { return r.fd >= 0 || r.path >= 0 || r.path2 >= 0 }

// PathArgs are the positions of the paths, both names of a rename.
func (r *Row) PathArgs() []int {
	var out []int
	for _, p := range []int8{r.path, r.path2} {
		if p >= 0 {
			out = append(out, int(p))
		}
	}
	return out
}

// index works out the positions of a row's arguments. A path takes the
// dirfd right before it; the first path fills Path, the second Path2.
func (r *Row) index() {
	r.fd, r.dirfd, r.path, r.dirfd2, r.path2 = -1, -1, -1, -1, -1
	r.data, r.offset, r.offPtr, r.offOut, r.flags, r.stat = -1, -1, -1, -1, -1, -1
	first := func(p *int8, i int) {
		if *p < 0 {
			*p = int8(i)
		}
	}
	for i, a := range r.Args {
		switch a.Kind {
		case ArgFD:
			first(&r.fd, i)
		case ArgPath, ArgSockAddr:
			dir := int8(-1)
			if i > 0 && r.Args[i-1].Kind == ArgDirfd {
				dir = int8(i - 1)
			}
			if r.path < 0 {
				r.path, r.dirfd = int8(i), dir
			} else if r.path2 < 0 {
				r.path2, r.dirfd2 = int8(i), dir
			}
		case ArgData, ArgIovec, ArgMsg:
			first(&r.data, i)
		case ArgOffset:
			first(&r.offset, i)
		case ArgOffsetPtr:
			if i > 0 && r.Args[i-1].Kind == ArgFD {
				first(&r.offPtr, i)
			}
		case ArgOffsetOut:
			first(&r.offOut, i)
		case ArgFlags, ArgCmd, ArgOpenHow, ArgCloneArgs:
			first(&r.flags, i)
		case ArgStat:
			first(&r.stat, i)
		}
	}
}

// Call names a row of the table; the zero Call is a name the table does
// not have, which the model ignores.
type Call uint16

// Row returns the call's row (an empty one for the zero Call).
func (c Call) Row() *Row { return &rows[c] }

// Effect is the call's effect class.
func (c Call) Effect() Effect { return rows[c].Effect }

// Name is the call's name, "" for the zero Call.
func (c Call) Name() string { return rows[c].Name }

// rows is the table: rows[0] is the empty row of unknown calls.
var rows []Row

// byName finds a row by name.
var byName map[string]Call

func init() {
	rows = append(rows, Row{})
	for _, fam := range families {
		rows = append(rows, fam...)
	}
	byName = make(map[string]Call, len(rows))
	for i := range rows {
		rows[i].index()
		if i > 0 {
			byName[rows[i].Name] = Call(i)
		}
	}
}

// families are the table's files, in the order crashsim trace lists their
// calls in -e trace=.
var families = [][]Row{filesRows, fdRows, ioRows, dirRows, syncRows, memoryRows, ioUringRows, processRows}

// Lookup returns the call strace names name, or the zero Call.
func Lookup(name string) Call { return byName[name] }

// Rows returns every row, in table order.
func Rows() []*Row {
	out := make([]*Row, 0, len(rows)-1)
	for i := 1; i < len(rows); i++ {
		out = append(out, &rows[i])
	}
	return out
}

// Calls returns every call, in table order.
func Calls() []Call {
	out := make([]Call, 0, len(rows)-1)
	for i := 1; i < len(rows); i++ {
		out = append(out, Call(i))
	}
	return out
}
