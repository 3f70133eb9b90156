//go:build !linux

package tracer

import (
	"io"
	"syscall"
)

// strace exists only on Linux; elsewhere Run fails when it looks for it.

func procAttr(io.Reader) (*syscall.SysProcAttr, func()) {
	return &syscall.SysProcAttr{Setpgid: true}, func() {}
}

func waitExited(int) {}

func killGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }
