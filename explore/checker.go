package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// check runs the checker on one state. A checker that exits non-zero or
// runs past the timeout fails the state; one killed because ctx was
// cancelled leaves it unchecked (s.ran false).
func (e *explorer) check(ctx context.Context, s *state) error {
	cctx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", e.opt.Checker)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(),
		"CRASHSIM_STATE_DIR="+s.dir,
		"CRASHSIM_CRASH_LINE="+strconv.Itoa(s.line),
		"CRASHSIM_MODEL="+e.opt.Persistence.String(),
	)
	out := &limitedBuffer{max: outputLimit}
	cmd.Stdout, cmd.Stderr = out, out
	// The checker and whatever it starts share a process group, killed
	// whole at the timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers in the background
	}
	s.output = out.bytes()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	s.ran = true
	var ee *exec.ExitError
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		s.failed, s.why = true, "timed out after "+e.opt.Timeout.String()
	case err == nil:
	case errors.As(err, &ee):
		s.failed, s.why = true, ee.ProcessState.String()
	default:
		s.failed, s.why = true, fmt.Sprintf("could not run: %v", err)
	}
	return nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b
}
