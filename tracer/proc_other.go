//go:build !linux

package tracer

import (
	"io"
	"syscall"

	"github.com/crashsim/crashsim/internal/reap"
)

// strace exists only on Linux; elsewhere Run fails when it looks for it.

func procAttr(io.Reader) (reap.Attr, func()) {
	return reap.Attr{Setpgid: true}, func() {}
}

func killGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }
