package reap

import (
	"os"
	"os/exec"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// Inherited file descriptors. A program run under crashsim must see the
// fds it would see run alone: 0, 1 and 2, and every other fd its caller
// gave it (`prog 3>>log`, a --remote-debugging-pipe on fds 3 and 4,
// systemd's LISTEN_FDS from fd 3), at the same numbers. crashsim passes them on unchanged, and puts its
// own helper fds (a keeper's socket) above them, telling the helper their
// numbers in its environment.
//
// Which fds are the caller's: those open when crashsim started that are
// not close-on-exec. An fd cannot come through an exec close-on-exec,
// and everything crashsim opens itself, the Go runtime's epoll fd and
// pipes included, is close-on-exec from its first instant (O_CLOEXEC,
// SOCK_CLOEXEC, EPOLL_CLOEXEC): the flag tells them apart even among the
// fds the runtime opened before this package's variables were set.

// atStart lists the fds above 2 that were open, and not close-on-exec,
// when the process started: it is set before any init function of the
// package runs, a keeper's or a watchdog's included.
var atStart = openAtStart()

func openAtStart() []int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil // no /proc: only 0, 1 and 2 are known to be the caller's
	}
	var fds []int
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		// The directory's own fd is close-on-exec, and closed by now.
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
		}
	}
	slices.Sort(fds)
	return fds
}

// Inherited lists, in order, the fds above 2 that crashsim's caller gave
// it and that are still open and not close-on-exec: what a program
// crashsim starts on the caller's behalf inherits at the same numbers.
func Inherited() []int {
	var out []int
	for _, fd := range atStart {
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			out = append(out, fd)
		}
	}
	return out
}

// placeFiles sets c.ExtraFiles so that the process c starts gets own[i]
// at fds[i], besides its standard files. With inherit, it also gets every
// fd of Inherited at its number, and own sits above them all; without,
// own sits at 3, 4, ... and the inherited fds are closed in it. No other
// fd of crashsim's reaches it. release closes what placeFiles opened
// (dups of the inherited fds): call it once c has started, or failed to.
func placeFiles(c *exec.Cmd, inherit bool, own ...*os.File) (fds []int, release func(), err error) {
	inh := Inherited()
	top := 3
	if len(inh) > 0 {
		top = inh[len(inh)-1] + 1
	}
	var dups []*os.File
	release = func() {
		for _, f := range dups {
			f.Close()
		}
	}
	// A nil entry is closed in the child: a position below top that is
	// not an inherited fd (one of crashsim's, close-on-exec anyway), or,
	// without inherit, an inherited one.
	extra := make([]*os.File, top-3, top-3+len(own))
	if !inherit {
		extra = extra[:0]
	}
	for _, fd := range inh {
		if !inherit {
			break
		}
		// A dup shares the caller's open file (its offset, its flags):
		// the child gets the same file at fd, as if crashsim had not been
		// in between. os.File.Fd leaves a dup's blocking mode as it is.
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, top)
		if err != nil {
			release()
			return nil, nil, &os.SyscallError{Syscall: "fcntl(F_DUPFD_CLOEXEC)", Err: err}
		}
		f := os.NewFile(uintptr(d), "inherited fd "+strconv.Itoa(fd))
		dups = append(dups, f)
		extra[fd-3] = f
	}
	for _, f := range own {
		fds = append(fds, 3+len(extra))
		extra = append(extra, f)
	}
	// Without inherit, the inherited fds past own are closed too.
	for len(extra) < top-3 {
		extra = append(extra, nil)
	}
	c.ExtraFiles = extra
	return fds, release, nil
}
