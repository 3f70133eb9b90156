package tracer

import "github.com/crashsim/crashsim/internal/syscalls"

// defaultSyscalls are the calls of the default -e trace= set: the rows of
// the syscall table (internal/syscalls) marked Traced, in table order,
// each with why the model reads it. The table keeps out whatever does not
// change file data, names, offsets, fd tables or durability: every stop
// costs a context switch to strace. stat and friends, the usual bulk of a
// program's calls, are not in it.
//
// Pipes, sockets, eventfds and memfds are traced at birth: crashsim trace
// records without -y, so a write to one (a Go program's netpoll wakeup, a
// pipe to a child) is known for no file only by the call that made it,
// and would otherwise be a write to an fd the trace cannot name
// (blind-unknown-fd). So is recvmsg, which brings fds another process
// sent over a Unix socket (SCM_RIGHTS): without -y the fd stays unnamed,
// but the warning says where it came from. pread64 and preadv are not
// traced: they move no offset.
var defaultSyscalls = func() []*syscalls.Row {
	var out []*syscalls.Row
	for _, r := range syscalls.Rows() {
		if r.Traced {
			out = append(out, r)
		}
	}
	return out
}()
