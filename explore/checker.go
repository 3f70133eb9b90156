package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/crashsim/crashsim/internal/reap"
)

// check runs the checker on one state, through the worker's runner
// (runner_linux.go). A checker that exits non-zero or runs past the
// timeout fails the state; one killed because ctx was cancelled leaves it
// unchecked (s.ran false).
func (e *explorer) check(ctx context.Context, s *state, w *worker) error {
	cctx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	defer cancel()
	// Whatever the checker starts carries a token: should crashsim and
	// the runner be killed, the watchdog finds it by that.
	token := checkerToken()
	// The files the two lines are in: the trace, or in an -ff set each
	// line's own process's file.
	crashTrace, firstTrace := e.opt.Trace, e.opt.Trace
	if s.event != nil {
		crashTrace = e.traceOf(*s.event)
	}
	if s.tree != nil && s.tree.first.Line > 0 {
		firstTrace = e.traceOf(s.tree.first)
	}
	env := reap.Env(append(os.Environ(),
		"CRASHSIM_STATE_DIR="+s.dir,
		"CRASHSIM_CRASH_LINE="+strconv.Itoa(s.line),
		"CRASHSIM_CRASH_TRACE="+crashTrace,
		"CRASHSIM_FIRST_LINE="+strconv.Itoa(s.first),
		"CRASHSIM_FIRST_TRACE="+firstTrace,
		"CRASHSIM_MODEL="+e.opt.Persistence.String(),
	), token)
	argv := []string{"sh", "-c", e.opt.Checker}
	out := &limitedBuffer{max: outputLimit}
	var o outcome
	var r checkerRunner
	var err error
	// A runner that ended between states (killed from outside, say)
	// is replaced once, before the checker has started.
	for try := 0; try < 2; try++ {
		if r, err = w.runner(e.work); err != nil {
			err = fmt.Errorf("starting the checker runner: %w", err)
			break
		}
		if o, err = r.run(cctx, s.dir, argv, env, token, out); !errors.Is(err, errNotStarted) {
			break
		}
	}
	s.output = out.bytes()
	if r != nil && r.unconfined() != "" {
		e.noteUnconfined(r.unconfined())
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	s.ran = true
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		s.failed, s.why = true, "timed out after "+e.opt.Timeout.String()
	case err != nil:
		s.failed, s.why = true, fmt.Sprintf("could not run: %v", err)
	case o.notRun != "":
		s.failed, s.why = true, "could not run: "+o.notRun
	case !o.status.Exited() || o.status.ExitStatus() != 0:
		s.failed, s.why = true, o.words()
	}
	return nil
}

// checkerRunner runs one worker's checkers, one after another: a runner
// process (runner_linux.go) or, for confined checkers, a jail thread of
// crashsim's and its starter (confined_linux.go).
type checkerRunner interface {
	// run runs argv in dir with env, its output into out; see runner.run.
	run(ctx context.Context, dir string, argv, env []string, token string, out io.Writer) (outcome, error)
	// stale reports whether it should not take another state.
	stale() bool
	stop()
	// unconfined says why its checkers, jailed, are the host's root ("":
	// they are not, or are not jailed, or HostRootEnv asked for it).
	unconfined() string
}

// worker is one checker goroutine's: its runner, started on first use and
// again when the last one ended or grew stale.
type worker struct{ r checkerRunner }

func (w *worker) runner(work string) (checkerRunner, error) {
	if w.r != nil && !w.r.stale() {
		return w.r, nil
	}
	w.close()
	r, err := newRunner(work)
	if err != nil {
		return nil, err
	}
	w.r = r
	return r, nil
}

func (w *worker) close() {
	if w.r != nil {
		w.r.stop()
		w.r = nil
	}
}

// noJail runs checkers unjailed even with CAP_SYS_ADMIN: tests of the
// unprivileged path set it.
var noJail bool

// WritableEnv names the variable that lists, colon separated, directories
// a jailed checker may write besides its state directory (a log of what
// the checker saw, say). Read from crashsim's environment.
const WritableEnv = "CRASHSIM_CHECKER_WRITABLE"

// ReadableEnv names the variable that lists, colon separated, directories
// a confined checker (see HostRootEnv) may read though others may not
// enter them or read their files (a checker script below /root, say): the
// jail shows them read-only, their files as the checker's own. Read from
// crashsim's environment.
const ReadableEnv = "CRASHSIM_CHECKER_READABLE"

// HostRootEnv names the variable that, set to 1 in crashsim's
// environment, runs jailed checkers as the host's root (uid 0, still
// without capabilities, behind read-only mounts) in the host's network
// namespace, as before crashsim confined them, for a checker that must
// read root's files, connect to root's sockets or reach the network. Such
// a checker can also signal root's processes, crashsim's among them.
const HostRootEnv = "CRASHSIM_CHECKER_HOST_ROOT"

// unconfinedMu guards Result.Unconfined, set by the workers.
var unconfinedMu sync.Mutex

// noteUnconfined records why jailed checkers ran as the host's root,
// for Result.Unconfined.
func (e *explorer) noteUnconfined(why string) {
	unconfinedMu.Lock()
	defer unconfinedMu.Unlock()
	if e.res.Unconfined == "" {
		e.res.Unconfined = "jailed checkers ran as the host's root (without capabilities), not as a user of their own, so a checker could signal root's processes and open root's files and sockets: " + why
	}
}

// checkers is the token of every checker crashsim runs, the cgroup of
// their runners where crashsim may make one, and the watchdog that kills
// what is left of them (the group, and what carries the token) if
// crashsim and a runner are both killed: a runner alone kills what is
// below it when crashsim goes.
var checkers struct {
	once  sync.Once
	token string
	group *reap.Group
	n     atomic.Int64
	// watchdog is kept referenced: were it collected, its pipe would be
	// closed, and it would take that for crashsim's end.
	watchdog *reap.Watchdog
}

func checkerToken() string {
	checkers.once.Do(func() {
		checkers.token = reap.NewToken()
		checkers.group, _ = reap.NewGroup()
		checkers.watchdog, _ = reap.StartWatchdog(0, checkers.token, checkers.group)
	})
	return reap.Sub(checkers.token, int(checkers.n.Add(1)))
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
// their state directory writable, no capabilities, a minimal /dev.
func Jailed() bool { return !noJail && canJail() }
