package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/crashsim/crashsim/internal/reap"
)

// check runs the checker on one state. A checker that exits non-zero or
// runs past the timeout fails the state; one killed because ctx was
// cancelled leaves it unchecked (s.ran false).
func (e *explorer) check(ctx context.Context, s *state) error {
	cctx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	defer cancel()
	// Whatever the checker starts carries a token, and goes when it
	// ends: a setsid daemon leaves the session, not its environment.
	token := checkerToken()
	env := reap.Env(append(os.Environ(),
		"CRASHSIM_STATE_DIR="+s.dir,
		"CRASHSIM_CRASH_LINE="+strconv.Itoa(s.line),
		"CRASHSIM_MODEL="+e.opt.Persistence.String(),
	), token)
	argv := []string{"sh", "-c", e.opt.Checker}
	// As root, in namespaces of its own (see jail_linux.go): only the
	// state directory is writable, and the pid namespace dies with it.
	// Otherwise in a session of its own.
	var cmd *exec.Cmd
	if !noJail {
		cmd = jailCommand(s.dir, argv)
	}
	if cmd != nil {
		cmd.Env = append(env, jailEnv+"="+s.dir)
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	}
	cmd.Dir = s.dir
	out := &limitedBuffer{max: outputLimit}
	err := runKilling(cctx, cmd, token, out)
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

// noJail runs checkers unjailed even with CAP_SYS_ADMIN: tests of the
// unprivileged path set it.
var noJail bool

// WritableEnv names the variable that lists, colon separated, directories
// a jailed checker may write besides its state directory (a log of what
// the checker saw, say). Read from crashsim's environment.
const WritableEnv = "CRASHSIM_CHECKER_WRITABLE"

// checkers is the token of every checker crashsim runs, and the
// watchdog that kills what is left of them if crashsim is killed (the
// jail's pid namespace does that by itself; a checker run without root
// needs the watchdog).
var checkers struct {
	once  sync.Once
	token string
	n     atomic.Int64
	// watchdog is kept referenced: were it collected, its pipe would be
	// closed, and it would take that for crashsim's end.
	watchdog *reap.Watchdog
}

func checkerToken() string {
	checkers.once.Do(func() {
		checkers.token = reap.NewToken()
		checkers.watchdog, _ = reap.StartWatchdog(0, checkers.token)
	})
	return reap.Sub(checkers.token, int(checkers.n.Add(1)))
}

// runKilling runs cmd, which leads a session of its own, with its output
// into out, until it ends or ctx is done; then it kills the session and
// every holder of token. The output goes through a pipe crashsim reads
// itself, so that Wait returns when the checker ends, not when the last
// leftover holding the pipe does.
func runKilling(ctx context.Context, cmd *exec.Cmd, token string, out io.Writer) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return err
	}
	copied := make(chan struct{})
	go func() {
		io.Copy(out, r)
		r.Close()
		close(copied)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers in the session
	reap.Kill(token)
	<-copied // every writer is dead: the pipe has ended
	return err
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

// Jailed reports whether checkers run jailed (see jail_linux.go): only
// their state directory writable, their processes in a pid namespace.
func Jailed() bool { return !noJail && canJail() }
