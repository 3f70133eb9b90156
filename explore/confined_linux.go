//go:build linux

package explore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
	"golang.org/x/sys/unix"
)

// Confined checkers (zygote_linux.go) need no runner process. The jail is
// a thread of crashsim's own, in a mount namespace of its own (a thread
// may have one once it no longer shares its filesystem attributes with
// the others), which sets the jail up, starts the starter there (the
// starter shares the thread's mount namespace), and binds each state
// directory before the starter runs its checker. A state then costs what
// it cost through a runner: one other process (the starter, in place of
// the runner) and its checker. The jail thread and its starter are
// renewed after maxRunnerAge, as a runner is.

// confinedRunner is a worker's jail thread and starter.
type confinedRunner struct {
	jt    *jailThread
	born  time.Time
	done  bool // killed, or broken: start a new one
	paths map[string]string
}

// jailThread is a goroutine locked to a thread in the jail's mount
// namespace, which runs the calls it is given there.
type jailThread struct {
	calls chan func()
	ended chan struct{}
	j     *jail
}

// startJailThread makes a jail thread for the state directories below
// work, whose starter goes in group (none when nil).
func startJailThread(work string, group *reap.Group) (*jailThread, error) {
	t := &jailThread{calls: make(chan func()), ended: make(chan struct{})}
	ready := make(chan error)
	go func() {
		defer close(t.ended)
		// Never unlocked: the thread, with a mount namespace of its own,
		// ends with this goroutine instead of serving another.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_FS | unix.CLONE_NEWNS); err != nil {
			ready <- fmt.Errorf("a mount namespace: %w", err)
			return
		}
		j, err := jailSetup(work, jailConfined, group)
		if err != nil {
			ready <- err
			return
		}
		t.j = j
		close(ready)
		for f := range t.calls {
			f()
		}
		j.close()
	}()
	if err := <-ready; err != nil {
		<-t.ended
		return nil, err
	}
	return t, nil
}

// do runs f on the jail thread.
func (t *jailThread) do(f func()) {
	done := make(chan struct{})
	t.calls <- func() { f(); close(done) }
	<-done
}

// end stops the starter and ends the thread.
func (t *jailThread) end() {
	close(t.calls)
	<-t.ended
}

// confinement remembers the work directories where checkers cannot be
// confined, and why: a runner is not tried again for each worker.
var confinement sync.Map // work directory → reason

// newRunner starts what runs a worker's checkers: a jail thread and its
// starter when checkers are confined, else a runner process.
func newRunner(work string) (checkerRunner, error) {
	jailed := Jailed()
	hostRoot := os.Getenv(HostRootEnv) == "1"
	if !jailed || hostRoot {
		return startRunner(jailed, hostRoot, work, checkers.group)
	}
	var why string
	if v, ok := confinement.Load(work); ok {
		why = v.(string)
	} else {
		jt, err := startJailThread(work, checkers.group)
		if err == nil {
			return &confinedRunner{jt: jt, born: time.Now(), paths: map[string]string{}}, nil
		}
		var cc errCannotConfine
		if !errors.As(err, &cc) {
			return nil, fmt.Errorf("checker jail: %w", err)
		}
		why = cc.Error()
		confinement.Store(work, why)
	}
	r, err := startRunner(true, false, work, checkers.group)
	if err != nil {
		return nil, err
	}
	r.why = why
	return r, nil
}

func (r *confinedRunner) stale() bool {
	return r.done || time.Since(r.born) > maxRunnerAge
}

func (r *confinedRunner) unconfined() string { return "" }

// stop ends the starter (which kills what is below it) and the thread.
func (r *confinedRunner) stop() {
	if r.jt != nil {
		r.jt.end()
		r.jt = nil
	}
}

// kill kills the starter and what is below it, and what carries token.
func (r *confinedRunner) kill(token string) {
	r.jt.j.z.kill()
	reap.Kill(token)
	r.done = true
}

// jailFailure is a jail's failure to run a checker, said in its output
// with exit status 126, as a shell says it cannot run a command.
func (r *confinedRunner) jailFailure(out io.Writer, what string, err error) outcome {
	fmt.Fprintf(out, "crashsim: checker jail: %s: %v\n", what, err)
	r.done = true
	return outcome{status: unix.WaitStatus(126 << 8)}
}

// run runs argv in dir with env through the starter, its output into
// out, until it ends or ctx is done (then what the checker started is
// killed, and the error is ctx's).
func (r *confinedRunner) run(ctx context.Context, dir string, argv, env []string, token string, out io.Writer) (outcome, error) {
	if r.stale() {
		return outcome{}, fmt.Errorf("checker jail: %w", errNotStarted)
	}
	path, ok := r.paths[argv[0]]
	if !ok {
		p, err := exec.LookPath(argv[0])
		if err != nil {
			return r.jailFailure(out, "run", err), nil
		}
		path = p
		r.paths[argv[0]] = p
	}
	var err error
	r.jt.do(func() { err = r.jt.j.enter(dir) })
	if err != nil {
		return r.jailFailure(out, "bind "+dir, err), nil
	}
	// After the checker's processes are gone.
	defer r.jt.do(func() { r.jt.j.leave(dir) })
	z := r.jt.j.z
	copied, err := sendRun(z.conn, out, []string{dir, path}, argv, env)
	if errors.Is(err, errNotStarted) {
		r.kill(token)
		return outcome{}, fmt.Errorf("checker jail: %w", err)
	}
	if err != nil {
		return outcome{}, err
	}
	answer := make(chan error, 1)
	var res outcome
	var notRun string
	go func() {
		kind, b, err := readFrame(z.conn)
		switch {
		case err != nil:
			answer <- err
		case kind == frameDone && len(b) == 5:
			res.status = unix.WaitStatus(binary.LittleEndian.Uint32(b))
			answer <- nil
		case kind == frameNotRun:
			notRun = string(b)
			answer <- nil
		default:
			answer <- fmt.Errorf("frame %q of %d bytes", kind, len(b))
		}
	}()
	if err, done := awaitAnswer(ctx, answer, copied, func() { r.endChecker(answer, token) }, func() { r.kill(token) }); done != nil {
		return outcome{}, done
	} else if err != nil {
		return outcome{}, fmt.Errorf("checker jail: %w", err)
	}
	if notRun != "" {
		return r.jailFailure(out, "run", errors.New(notRun)), nil
	}
	return res, nil
}

// endChecker ends a checker that must stop now (timeout, interrupt): it
// kills what is below the starter until the starter answers that the
// checker has ended (and serves on), or kills the starter when it does
// not answer within answerWait or answers wrong.
func (r *confinedRunner) endChecker(answer <-chan error, token string) {
	z := r.jt.j.z
	deadline := time.After(answerWait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		z.killTree()
		select {
		case err := <-answer:
			if err != nil {
				r.kill(token)
			}
			return
		case <-tick.C:
		case <-deadline:
			r.kill(token)
			<-answer
			return
		}
	}
}
