//go:build !linux

package reap

import (
	"errors"
	"os/exec"
	"syscall"
)

// Containment needs Linux: elsewhere nothing can be started kept.

func SetSubreaper() error { return errors.New("child subreapers need Linux") }

func Descendants(int) []Proc { return nil }

func KillTree(int, ...int) []Proc { return nil }

func TracedCommand(int) (int, error) { return 0, ErrNoProc }

type Attr struct{ Setpgid, Foreground bool }

type Kept struct {
	Cmd   *exec.Cmd
	Group *Group
}

func Keep(string, []string, Attr) *Kept { return &Kept{Cmd: &exec.Cmd{}} }

func (*Kept) Start() error            { return errors.New("a kept command needs Linux") }
func (*Kept) Pid() int                { return 0 }
func (*Kept) Keeper() int             { return 0 }
func (*Kept) Exited() <-chan struct{} { return nil }
func (*Kept) Running(...int) []Proc   { return nil }
func (*Kept) Kill(...int) []Proc      { return nil }
func (*Kept) Wait() (syscall.WaitStatus, []Proc, error) {
	return 0, nil, errors.New("a kept command needs Linux")
}
