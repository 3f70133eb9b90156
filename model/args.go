package model

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
