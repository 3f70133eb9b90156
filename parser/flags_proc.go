package parser

import "golang.org/x/sys/unix"

// CloneFlags decodes clone/clone3 flags; the low byte of clone's flags is
// the exit signal, which strace prints as a signal name (SIGCHLD).
var CloneFlags = FlagTable{
	"CLONE_VM":             unix.CLONE_VM,
	"CLONE_FS":             unix.CLONE_FS,
	"CLONE_FILES":          unix.CLONE_FILES,
	"CLONE_SIGHAND":        unix.CLONE_SIGHAND,
	"CLONE_PIDFD":          unix.CLONE_PIDFD,
	"CLONE_PTRACE":         unix.CLONE_PTRACE,
	"CLONE_VFORK":          unix.CLONE_VFORK,
	"CLONE_PARENT":         unix.CLONE_PARENT,
	"CLONE_THREAD":         unix.CLONE_THREAD,
	"CLONE_NEWNS":          unix.CLONE_NEWNS,
	"CLONE_SYSVSEM":        unix.CLONE_SYSVSEM,
	"CLONE_SETTLS":         unix.CLONE_SETTLS,
	"CLONE_PARENT_SETTID":  unix.CLONE_PARENT_SETTID,
	"CLONE_CHILD_CLEARTID": unix.CLONE_CHILD_CLEARTID,
	"CLONE_DETACHED":       unix.CLONE_DETACHED,
	"CLONE_UNTRACED":       unix.CLONE_UNTRACED,
	"CLONE_CHILD_SETTID":   unix.CLONE_CHILD_SETTID,
	"CLONE_NEWCGROUP":      unix.CLONE_NEWCGROUP,
	"CLONE_NEWUTS":         unix.CLONE_NEWUTS,
	"CLONE_NEWIPC":         unix.CLONE_NEWIPC,
	"CLONE_NEWUSER":        unix.CLONE_NEWUSER,
	"CLONE_NEWPID":         unix.CLONE_NEWPID,
	"CLONE_NEWNET":         unix.CLONE_NEWNET,
	"CLONE_IO":             unix.CLONE_IO,
	"CLONE_CLEAR_SIGHAND":  unix.CLONE_CLEAR_SIGHAND,
	"CLONE_INTO_CGROUP":    unix.CLONE_INTO_CGROUP,
	"SIGCHLD":              uint64(unix.SIGCHLD),
}

// FcntlCmds maps fcntl command names to their numbers.
var FcntlCmds = FlagTable{
	"F_DUPFD":         unix.F_DUPFD,
	"F_GETFD":         unix.F_GETFD,
	"F_SETFD":         unix.F_SETFD,
	"F_GETFL":         unix.F_GETFL,
	"F_SETFL":         unix.F_SETFL,
	"F_DUPFD_CLOEXEC": unix.F_DUPFD_CLOEXEC,
	"F_FULLFSYNC":     0x7fffffff, // macOS only; never matches on Linux
}

// FDFlags decodes F_SETFD's argument.
var FDFlags = FlagTable{"FD_CLOEXEC": unix.FD_CLOEXEC}

// SockFlags decodes the type argument of socket/socketpair and the flags
// of pipe2, accept4, eventfd2 and the like (the CLOEXEC bit is shared).
var SockFlags = FlagTable{
	"SOCK_CLOEXEC":  unix.SOCK_CLOEXEC,
	"SOCK_NONBLOCK": unix.SOCK_NONBLOCK,
	"O_CLOEXEC":     unix.O_CLOEXEC,
	"O_NONBLOCK":    unix.O_NONBLOCK,
	"O_DIRECT":      unix.O_DIRECT,
	"EFD_CLOEXEC":   unix.EFD_CLOEXEC,
	"EFD_NONBLOCK":  unix.EFD_NONBLOCK,
	"EFD_SEMAPHORE": unix.EFD_SEMAPHORE,
}

// SeekWhence maps lseek's whence names to numbers.
var SeekWhence = FlagTable{
	"SEEK_SET":  unix.SEEK_SET,
	"SEEK_CUR":  unix.SEEK_CUR,
	"SEEK_END":  unix.SEEK_END,
	"SEEK_DATA": unix.SEEK_DATA,
	"SEEK_HOLE": unix.SEEK_HOLE,
}
