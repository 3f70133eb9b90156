//go:build !linux

package explore

import (
	"context"
	"errors"
	"io"
	"syscall"

	"github.com/crashsim/crashsim/internal/reap"
)

// Checkers need Linux: their runner is a child subreaper.
func canJail() bool { return false }

type runner struct{ jailed bool }

type outcome struct {
	status syscall.WaitStatus
	notRun string
}

func (outcome) words() string { return "" }

func startRunner(bool, bool, string, *reap.Group) (*runner, error) {
	return nil, errors.New("checkers run on Linux only")
}

func newRunner(string) (checkerRunner, error) { return nil, errors.New("checkers run on Linux only") }

func (*runner) unconfined() string { return "" }

func (*runner) stale() bool { return true }
func (*runner) stop()       {}
func (*runner) run(context.Context, string, []string, []string, string, io.Writer) (outcome, error) {
	return outcome{}, errors.New("checkers run on Linux only")
}
