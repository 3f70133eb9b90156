package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/tracer"
)

// Every program the oracle runs (Setup, and the program under strace)
// runs under a keeper (see package reap), in the oracle's cgroup where
// crashsim may make one: whatever it starts, a daemon that left its
// session and cleared its environment too, stays in the keeper's tree,
// and is killed with it. The program's exit is its first process's.

// linger is how long what the program started may run on once its first
// process has exited, as crashsim trace's --linger default.
const linger = 3 * time.Second

// traced is a running strace.
type traced struct {
	kept *reap.Kept
	out  string
	done chan error // strace's end: nil, or how it failed
	once sync.Once
	err  error
	sys  *system
}

// start runs the program under strace with the tracer's flags, plus
// extra options (the inject) in front.
func (r *runner) start(out string, extra ...string) (*traced, error) {
	args := append([]string{}, extra...)
	if r.opt.User != "" {
		args = append(args, "-u", r.opt.User) // strace stays root
	}
	for _, a := range tracer.Args(r.version, out, r.opt.Cmd) {
		// strace 6.1 does not inject into a tracee it follows with
		// --seccomp-bpf (the call runs, no signal comes): every run goes
		// without it, so the runs stop the tracee on the same calls.
		if a != "--seccomp-bpf" {
			args = append(args, a)
		}
	}
	r.sys.logf("running: strace %s", strings.Join(args, " "))
	// Ctrl-C is ours to handle: strace gets a process group of its own.
	k := reap.Keep(r.strace, append([]string{r.strace}, args...), reap.Attr{Setpgid: true})
	k.Group = r.sys.group
	c := k.Cmd
	c.Dir, c.Env = r.work, r.sys.env(r.opt.Env)
	w := r.opt.Output
	if w == nil {
		w = io.Discard
	}
	c.Stdout, c.Stderr = w, w
	c.WaitDelay = 2 * time.Second
	if err := k.Start(); err != nil {
		return nil, err
	}
	t := &traced{kept: k, out: out, done: make(chan error, 1), sys: r.sys}
	go func() {
		ws, left, err := k.Wait()
		if len(left) > 0 {
			r.sys.logf("killed after strace exited: %s", procList(left))
		}
		if err == nil {
			err = statusError(ws)
		}
		t.done <- err
	}()
	return t, nil
}

// kill ends strace and every process of the program, and waits (once).
func (t *traced) kill() {
	t.once.Do(func() {
		t.kept.Kill()
		select {
		case t.err = <-t.done:
		case <-time.After(10 * time.Second):
		}
		t.sys.killAll()
	})
}

// statusError says how a process that ended with ws failed, in the words
// of os/exec ("exit status 1", "signal: killed"); nil when it exited 0.
func statusError(ws syscall.WaitStatus) error {
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		return nil
	case ws.Exited():
		return fmt.Errorf("exit status %d", ws.ExitStatus())
	case ws.Signaled():
		s := "signal: " + ws.Signal().String()
		if ws.CoreDump() {
			s += " (core dumped)"
		}
		return errors.New(s)
	}
	return fmt.Errorf("wait status %#x", uint32(ws))
}

// runSetup runs the Setup command in the work directory. What it leaves
// running is killed when it exits: it would hold the image.
func (r *runner) runSetup(ctx context.Context) error {
	if r.opt.Setup == "" {
		return nil
	}
	k := reap.Keep("/bin/sh", []string{"sh", "-c", r.opt.Setup}, reap.Attr{Setpgid: true})
	k.Group = r.sys.group
	c := k.Cmd
	c.Dir, c.Env = r.work, r.sys.env(r.opt.Env)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	c.WaitDelay = time.Second
	if err := k.Start(); err != nil {
		return fmt.Errorf("setup %q: %w", r.opt.Setup, err)
	}
	select {
	case <-k.Exited():
	case <-ctx.Done():
		k.Kill()
	}
	ws, left, err := k.Wait()
	if len(left) > 0 {
		r.sys.logf("setup left %s running: killed", procList(left))
	}
	r.sys.killAll()
	if err == nil {
		err = statusError(ws)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("setup %q: %v: %s", r.opt.Setup, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// waitProgram waits for the program's first run to end. A program that
// leaves processes running (a daemon) is an error saying so once they
// have run linger past its exit, not a timeout: the oracle reruns the
// program for every crash point, and a process left from one run would
// write into the next.
func (r *runner) waitProgram(ctx context.Context, t *traced) (runErr, err error) {
	timeout := time.After(r.opt.Timeout)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	strace := t.kept.Pid()
	started := time.Now()
	var first int
	var gone time.Time
	for {
		select {
		case runErr = <-t.done:
			t.once.Do(func() { t.err = runErr })
			return runErr, nil
		case <-ctx.Done():
			t.kill()
			return nil, ctx.Err()
		case <-timeout:
			t.kill()
			return nil, fmt.Errorf("the program ran longer than %v (--timeout)", r.opt.Timeout)
		case <-poll.C:
		}
		switch {
		case !gone.IsZero():
			if time.Since(gone) < linger {
				continue
			}
			left := t.left()
			if len(left) == 0 {
				continue // strace is writing its last lines
			}
			t.kill()
			return nil, fmt.Errorf("the program exited, but %s it started still ran %v later (killed now): the oracle runs the program once per crash point, so it must end with all its processes", procList(left), linger)
		case first == 0:
			pid, err := reap.TracedCommand(strace)
			if err == nil {
				first = pid
			} else if errors.Is(err, reap.ErrNoProc) && time.Since(started) > time.Second {
				gone = time.Now()
			}
		case !reap.Alive(first):
			gone = time.Now()
		}
	}
}

// left lists the processes of the program that still run, strace aside:
// its keeper's tree (while the keeper lives, nothing of the program is
// outside it).
func (t *traced) left() []reap.Proc { return t.kept.Running(t.kept.Pid()) }

func procList(ps []reap.Proc) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	if len(s) == 1 {
		return "process " + s[0]
	}
	return "processes " + strings.Join(s, ", ")
}
