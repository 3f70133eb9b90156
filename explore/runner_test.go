//go:build linux

package explore

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A daemon that leaves the checker's session and drops its environment
// (so no token finds it) still ends with its state: the runner is its
// subreaper, jailed or not.
func TestCheckerDaemonWithCleanEnvironmentIsReaped(t *testing.T) {
	jailModes(t, func(t *testing.T) {
		d := mark()
		trace, root := oneWrite(t)
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, WorkDir: t.TempDir(),
			Checker: "setsid env -i sleep " + d + " </dev/null >/dev/null 2>&1 & sleep 0.2; exit 0"})
		if res.Checked == 0 {
			t.Fatal("no state checked")
		}
		if pids := sleeping(d); len(pids) > 0 {
			t.Errorf("left running: %v", pids)
		}
	})
}

// One runner serves many states, and a checker killed at its timeout
// takes only its runner with it: the next states get a new one and pass.
func TestCheckerAfterTimeoutRuns(t *testing.T) {
	jailModes(t, func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "root")
		trace := writeTrace(t, root,
			`openat(AT_FDCWD, "/R/f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
			`write(3, "x", 1) = 1`,
			`write(3, "y", 1) = 1`,
		)
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, WorkDir: t.TempDir(), Timeout: 2 * time.Second,
			Checker: `case "$CRASHSIM_FIRST_LINE" in 1) sleep 30;; esac; test -d "$CRASHSIM_STATE_DIR"`})
		if res.Checked < 4 {
			t.Fatalf("checked %d states, want at least 4", res.Checked)
		}
		timedOut := 0
		for _, f := range res.Findings {
			if !strings.Contains(f.Message, "timed out") || f.State == nil || f.Related[len(f.Related)-1].Line != 1 {
				t.Errorf("unexpected finding: %s", f.Message)
			}
			timedOut++
		}
		if timedOut != 1 {
			t.Errorf("%d states timed out, want the one first left at line 1", timedOut)
		}
	})
}

// A jailed runner idle past its age ends by itself (a confined one is
// refused by crashsim); a state sent to it then was not started (so it
// may be run on a new runner), and the next check gets a new runner.
func TestIdleJailedRunnerEnds(t *testing.T) {
	if !canJail() {
		t.Skip("needs CAP_SYS_ADMIN for namespaces")
	}
	if testing.Short() {
		t.Skip("-short: jailed runners need root and namespaces, left to the full run")
	}
	for _, c := range []struct {
		name  string
		start func(work string) (checkerRunner, error)
	}{
		{"runner", func(work string) (checkerRunner, error) { return startRunner(true, false, work, nil) }},
		{"confined", newRunner},
	} {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			dir := filepath.Join(work, "state")
			os.Mkdir(dir, 0o755)
			r, err := c.start(work)
			if err != nil {
				t.Fatal(err)
			}
			defer r.stop()
			time.Sleep(maxRunnerAge + 300*time.Millisecond)
			if rr, ok := r.(*runner); ok {
				// The runner ends by itself once its age is past; on a
				// busy machine it may not have yet: wait for it to exit
				// rather than for longer.
				_ = rr.cmd.Wait()
				rr.waited = true
			}
			_, err = r.run(context.Background(), dir, []string{"sh", "-c", "true"}, os.Environ(), checkerToken(), io.Discard)
			if !errors.Is(err, errNotStarted) {
				t.Fatalf("run on an expired runner: %v, want %v", err, errNotStarted)
			}
			e := &explorer{opt: Options{Checker: "true", Timeout: time.Minute}, work: work}
			w := &worker{r: r}
			s := &state{dir: dir}
			if err := e.check(context.Background(), s, w); err != nil || s.failed {
				t.Fatalf("check after the runner ended: %v %s %s", err, s.why, s.output)
			}
			w.close()
		})
	}
}
