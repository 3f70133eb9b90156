package syscalls

// The fd table: closing and duplicating fds, and the calls that make fds
// on no file in scope (pipes, sockets, eventfds), which the process model
// keeps so that a later dup or write of one is not taken for a file.

// whyPseudo is why the calls that make fds on no file are traced: crashsim
// trace records without -y, and a write to a pipe, socket or eventfd whose
// birth the trace lacks would be a write to an fd it cannot name
// (blind-unknown-fd) where it is no file at all.
const whyPseudo = "fd table: an fd on no file in scope; without -y (crashsim trace) a later write to it is known for no file only by its birth"

// fcntlArgs are fcntl's arguments. Its third is open flags for F_SETFL,
// FD_CLOEXEC for F_SETFD, an fd number for F_DUPFD: it is described as
// open flags, the one reading whose numbers differ by architecture.
var fcntlArgs = args(argFD("fd"), argCmd("cmd", FcntlCmds), argFlags("arg", OpenFlags))

var fdRows = []Row{
	{Name: "close", Effect: Close, Arches: AllArches, Traced: true, Why: "fd table", Args: args(argFD("fd"))},
	{Name: "close_range", Effect: CloseRange, Arches: AllArches, Traced: true, Optional: true, Why: "fd table (Linux 5.9)",
		Args: args(argOther("first"), argOther("last"), argFlags("flags", CloseRangeFlags))},
	{Name: "dup", Effect: Dup, Arches: AllArches, Traced: true, Why: "fd table: shares an offset", Args: args(argFD("oldfd"))},
	{Name: "dup2", Effect: Dup, Arches: x86, Traced: true, Optional: true, Why: "fd table", Args: args(argFD("oldfd"), argFDOther("newfd"))},
	{Name: "dup3", Effect: Dup, Arches: AllArches, Traced: true, Why: "fd table",
		Args: args(argFD("oldfd"), argFDOther("newfd"), argFlags("flags", OpenFlags))},
	{Name: "fcntl", Effect: Fcntl, Arches: AllArches, Traced: true, Why: "F_DUPFD*; F_SETFL turns O_APPEND and O_DIRECT on and off", Args: fcntlArgs},
	{Name: "fcntl64", Effect: Fcntl, Arches: on386, Traced: true, Optional: true, Why: "fcntl on 32-bit architectures", Args: fcntlArgs},
	{Name: "ioctl", Effect: Ioctl, Arches: AllArches, Traced: true, Why: "FICLONE, FICLONERANGE, FIDEDUPERANGE change data",
		Args: args(argFD("fd"), argCmd("request", nil), argOther("arg"))},

	{Name: "pipe", Effect: Pipe, Arches: x86, Traced: true, Optional: true, Why: whyPseudo, Args: args(argFDPair("pipefd"))},
	{Name: "pipe2", Effect: Pipe, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argFDPair("pipefd"), argFlags("flags", OpenFlags))},
	{Name: "socketpair", Effect: Pipe, Arches: AllArches, Traced: true, Why: whyPseudo,
		Args: args(argOther("domain"), argOther("type"), argOther("protocol"), argFDPair("sv"))},
	{Name: "socket", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("domain"), argOther("type"), argOther("protocol"))},
	{Name: "accept", Effect: NewFD, Arches: bit64, Traced: true, Optional: true, Why: whyPseudo, Args: args(argFDOther("sockfd"), argOther("addr"), argOther("addrlen"))},
	{Name: "accept4", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo,
		Args: args(argFDOther("sockfd"), argOther("addr"), argOther("addrlen"), argOther("flags"))},
	{Name: "eventfd", Effect: NewFD, Arches: x86, Traced: true, Optional: true, Why: whyPseudo, Args: args(argOther("initval"))},
	{Name: "eventfd2", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("initval"), argOther("flags"))},
	{Name: "epoll_create", Effect: NewFD, Arches: x86, Traced: true, Optional: true, Why: whyPseudo, Args: args(argOther("size"))},
	{Name: "epoll_create1", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("flags"))},
	{Name: "signalfd", Effect: NewFD, Arches: x86, Traced: true, Optional: true, Why: whyPseudo, Args: args(argFDOther("fd"), argOther("mask"), argSize("sizemask"))},
	{Name: "signalfd4", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo,
		Args: args(argFDOther("fd"), argOther("mask"), argSize("sizemask"), argOther("flags"))},
	{Name: "timerfd_create", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("clockid"), argOther("flags"))},
	{Name: "inotify_init", Effect: NewFD, Arches: x86, Traced: true, Optional: true, Why: whyPseudo},
	{Name: "inotify_init1", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("flags"))},
	{Name: "memfd_create", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("name"), argOther("flags"))},
	{Name: "userfaultfd", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("flags"))},
	{Name: "pidfd_open", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("pid"), argOther("flags"))},
	{Name: "fanotify_init", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo, Args: args(argOther("flags"), argOther("event_f_flags"))},
	{Name: "perf_event_open", Effect: NewFD, Arches: AllArches, Traced: true, Why: whyPseudo,
		Args: args(argOther("attr"), argOther("pid"), argOther("cpu"), argFDOther("group_fd"), argOther("flags"))},
	{Name: "bpf", Effect: BPF, Arches: AllArches, Why: "not traced: its fds are maps and programs, which no write goes to", Args: args(argOther("cmd"), argOther("attr"), argSize("size"))},
}
