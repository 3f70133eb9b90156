package tracer

import "github.com/crashsim/crashsim/internal/syscalls"

// defaultSyscalls are the calls of the default -e trace= set: the rows of
// the syscall table (internal/syscalls) marked Traced, in table order,
// each with why the model reads it. The table keeps out whatever does not
// change file data, names, offsets, fd tables or durability: every stop
// costs a context switch to strace. stat and friends, the usual bulk of a
// program's calls, are not in it.
//
// Pipes, sockets, eventfds and memfds are not traced at birth: -y
// annotates every fd argument with what it is (pipe:[N], socket:[N]), so a
// write or a dup of one is recognised without its creation. pread64 and
// preadv are not traced: they move no offset.
var defaultSyscalls = func() []*syscalls.Row {
	var out []*syscalls.Row
	for _, r := range syscalls.Rows() {
		if r.Traced {
			out = append(out, r)
		}
	}
	return out
}()
