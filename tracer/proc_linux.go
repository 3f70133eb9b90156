//go:build linux

package tracer

import (
	"io"
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// procAttr puts strace and everything it starts in a process group of their
// own, so that one kill(-pgid) reaches every tracee, strace's children
// included: strace itself blocks SIGINT and SIGTERM while it writes to -o
// (its -I3 default) and, given one with -I2, passes it only to the command
// and detaches the rest, which run on untraced.
//
// When stdin is crashsim's controlling terminal and crashsim is in the
// foreground, the new group becomes the foreground one, so the command reads
// the terminal and gets Ctrl-C as if it ran alone. restore gives the
// terminal back.
func procAttr(stdin io.Reader) (attr *syscall.SysProcAttr, restore func()) {
	attr = &syscall.SysProcAttr{Setpgid: true}
	f, ok := stdin.(*os.File)
	if !ok {
		return attr, func() {}
	}
	fd := int(f.Fd())
	fg, err := tcgetpgrp(fd)
	if err != nil || fg != syscall.Getpgrp() {
		return attr, func() {}
	}
	attr.Foreground, attr.Ctty = true, fd
	return attr, func() {
		// A background process that sets the foreground group gets SIGTTOU.
		if !signal.Ignored(syscall.SIGTTOU) {
			signal.Ignore(syscall.SIGTTOU)
			defer signal.Reset(syscall.SIGTTOU)
		}
		pgrp := syscall.Getpgrp()
		syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&pgrp)))
	}
}

func tcgetpgrp(fd int) (int, error) {
	var pgrp int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); errno != 0 {
		return 0, errno
	}
	return int(pgrp), nil
}

// waitExited blocks until process pid has exited, without reaping it.
func waitExited(pid int) {
	const pPID = 1
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}

// killGroup sends sig to process group pgid. ESRCH (the group is gone) is
// the usual outcome after strace exits, and EPERM (a member changed its
// credentials) leaves nothing more to try.
func killGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}
