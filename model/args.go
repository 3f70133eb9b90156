package model

import "github.com/crashsim/crashsim/parser"

// Which calls' arguments the model reads, so that a caller can ask the
// parser to decode only those (parser.Options.DecodeArgs) and skip past
// the arguments of the rest: most lines of a real trace (brk, futex,
// rt_sigaction, mprotect, ...) are calls the model never looks into.

// argCalls are the calls outside the shapes table that the model's
// switches dispatch on (Model.apply, Model.stat, Model.write, Procs.Apply,
// openFlags) or that check's blind-spot watcher names. Some of them read
// no argument today (sync, fork, exit_group); they are kept so that the
// set is exactly the names the code dispatches on, which a test in
// cmd/crashsim checks against the source.
var argCalls = []string{
	"pwrite", "sync", "msync", "io_uring_enter", "io_uring_setup",
	"close_range", "fcntl64", "pipe", "pipe2", "socketpair", "getcwd",
	"clone", "clone3", "fork", "vfork", "exit", "exit_group",
	"socket", "eventfd", "eventfd2", "epoll_create", "epoll_create1", "signalfd", "signalfd4",
	"timerfd_create", "inotify_init", "inotify_init1", "memfd_create", "userfaultfd", "pidfd_open",
	"accept", "accept4", "fanotify_init", "perf_event_open", "bpf",
}

var readsArgs = func() map[string]bool {
	m := make(map[string]bool, len(shapes)+len(argCalls))
	// Paths resolves the file arguments of every call in shapes, for
	// every event, whatever the call then does.
	for name := range shapes {
		m[name] = true
	}
	for _, name := range argCalls {
		m[name] = true
	}
	return m
}()

// ReadsArgs reports whether the model, its process model or check's
// blind-spot watcher may read an argument of syscall name. The arguments
// of any other call can be left undecoded (parser.Options.DecodeArgs)
// without changing what they conclude.
func ReadsArgs(name string) bool { return readsArgs[name] }

// ArgCalls returns the calls ReadsArgs is true for, in no order, for
// tests that check the set against the code.
func ArgCalls() []string {
	out := make([]string, 0, len(readsArgs))
	for name := range readsArgs {
		out = append(out, name)
	}
	return out
}

// narrowArgs are the positions the model, the process model and check's
// blind-spot watcher read of the frequent calls that never change the
// model (they yield no Effect, so no crash point prints them with their
// arguments): the rest of their arguments can be scanned past. Every other
// call in ReadsArgs has every argument decoded. Positions count from 0.
//
// read family: the fd (Paths, fileHandle); the buffer and count are not
// read (the offset moves by the return value). lseek: the fd; the new
// offset is the return value. stat family: the fd or dirfd, the path and
// the stat buffer (Model.stat reads st_size and st_mode), not the flags or
// statx's mask. access: the path, not the mode. readlink: the path, not
// the buffer (the link's target) or its size. getdents: the fd, not the
// entries.
var narrowArgs = map[string]parser.ArgSet{
	"read": parser.ArgPositions(0), "readv": parser.ArgPositions(0), "pread64": parser.ArgPositions(0),
	"preadv": parser.ArgPositions(0), "preadv2": parser.ArgPositions(0),
	"lseek":      parser.ArgPositions(0),
	"newfstatat": parser.ArgPositions(0, 1, 2), "fstatat64": parser.ArgPositions(0, 1, 2),
	"statx":     parser.ArgPositions(0, 1, 4),
	"access":    parser.ArgPositions(0),
	"faccessat": parser.ArgPositions(0, 1), "faccessat2": parser.ArgPositions(0, 1),
	"readlink": parser.ArgPositions(0), "readlinkat": parser.ArgPositions(0, 1),
	"getdents64": parser.ArgPositions(0), "getdents": parser.ArgPositions(0),
}

// ArgPositions returns the argument positions of syscall name that the
// model, its process model or check's blind-spot watcher may read: none
// for a call ReadsArgs is false for, every one for most calls it is true
// for, and fewer for the frequent read-only calls in narrowArgs. It is
// what parser.Options.DecodePositions wants.
func ArgPositions(name string) parser.ArgSet {
	if s, ok := narrowArgs[name]; ok {
		return s
	}
	if readsArgs[name] {
		return parser.AllArgs
	}
	return 0
}

// NarrowedCalls returns the calls ArgPositions gives only some positions
// of, for tests.
func NarrowedCalls() []string {
	out := make([]string, 0, len(narrowArgs))
	for name := range narrowArgs {
		out = append(out, name)
	}
	return out
}
