//go:build linux

package tracer

import (
	"io"
	"os"
	"os/signal"
	"syscall"
	"unsafe"

	"github.com/crashsim/crashsim/internal/reap"
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
func procAttr(stdin io.Reader) (attr reap.Attr, restore func()) {
	attr = reap.Attr{Setpgid: true}
	f, ok := stdin.(*os.File)
	if !ok {
		return attr, func() {}
	}
	fd := int(f.Fd())
	fg, err := tcgetpgrp(fd)
	if err != nil || fg != syscall.Getpgrp() {
		return attr, func() {}
	}
	attr.Foreground = true
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

// killGroup sends sig to process group pgid. ESRCH (the group is gone) is
// the usual outcome after strace exits, and EPERM (a member changed its
// credentials) leaves nothing more to try. The keeper holds strace, the
// group's leader, as a zombie until the rest of the run is gone, so the
// group id is not reused meanwhile.
func killGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}
