//go:build !linux

package explore

import (
	"context"
	"errors"
	"io"
	"syscall"
)

// Checkers need Linux: their runner is a child subreaper or the first
// process of a pid namespace.
func canJail() bool { return false }

type runner struct{ jailed bool }

type outcome struct {
	status syscall.WaitStatus
	notRun string
}

func (outcome) words(bool) string { return "" }

func startRunner(bool, string) (*runner, error) {
	return nil, errors.New("checkers run on Linux only")
}

func (*runner) stale() bool { return true }
func (*runner) stop()       {}
func (*runner) run(context.Context, string, []string, []string, string, io.Writer) (outcome, error) {
	return outcome{}, errors.New("checkers run on Linux only")
}
