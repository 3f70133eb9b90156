package oracle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
)

// linger is how long what the program started may run on once its first
// process has exited, as crashsim trace's --linger default.
const linger = 3 * time.Second

// waitProgram waits for the program's first run to end. A program that
// leaves processes running (a daemon) is an error saying so once they
// have run linger past its exit, not a timeout: the oracle reruns the
// program for every crash point, and a process left from one run would
// write into the next.
func (r *runner) waitProgram(ctx context.Context, t *traced) (runErr, err error) {
	timeout := time.After(r.opt.Timeout)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	strace := t.cmd.Process.Pid
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
			left := r.sys.leftovers(strace)
			if len(left) == 0 {
				continue // strace is writing its last lines
			}
			t.kill()
			return nil, fmt.Errorf("the program exited, but %s it started still ran %v later (killed now): the oracle runs the program once per crash point, so it must end with all its processes", procList(left), linger)
		case first == 0:
			pid, err := reap.FirstChild(strace)
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
