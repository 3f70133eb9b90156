// Package reaptest helps tests play the worst end of a crashsim run: every
// process of it killed at once, its watchdog included.
package reaptest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
)

// KillAll kills c, which the test started in a process group of its own
// (Setpgid), with that group and every descendant of c, its watchdog (in
// a session of its own) included, as the OOM killer or a kill of every
// crashsim process would. It stops them all first, so that none acts on
// another's end, and returns once c is reaped and the others have exited.
func KillAll(t testing.TB, c *exec.Cmd) {
	t.Helper()
	pid := c.Process.Pid
	syscall.Kill(-pid, syscall.SIGSTOP)
	for _, p := range reap.Descendants(pid) {
		syscall.Kill(p.PID, syscall.SIGSTOP)
	}
	// Stopped, none forks: the tree is whole now.
	tree := reap.Descendants(pid)
	for _, p := range tree {
		syscall.Kill(p.PID, syscall.SIGKILL)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	c.Wait()
	for _, p := range tree {
		for deadline := time.Now().Add(10 * time.Second); reap.Alive(p.PID); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%v still alive after SIGKILL", p)
			}
		}
	}
}

// Group makes a cgroup of the test's own, below the test process's, for
// the crashsim runs the test starts (their cgroups go below it, and their
// sweeps look there only): beside the test's own cgroup, on a shared
// machine the root one, any other crashsim run sweeps a killed run's
// leftovers too, before the test's own run or doctor gets to see them.
// The group is reap.NewGroup's, named after the test process, so that a
// later run sweeps it should the test die. At the test's end it goes,
// with what the runs left in it (a failed test's). Nil, with the reason
// logged, where no group can be made: the runs then make none either.
func Group(t testing.TB) *reap.Group {
	t.Helper()
	g, err := reap.NewGroup()
	if err != nil {
		t.Logf("no cgroup of the test's own (%v): the runs sweep beside it", err)
		return nil
	}
	t.Cleanup(func() {
		// The group's kill reaches every process below it, and a
		// cgroup goes only once its members have exited and the groups
		// below it are gone.
		os.WriteFile(filepath.Join(g.Dir, "cgroup.kill"), []byte("1"), 0)
		subs, _ := filepath.Glob(filepath.Join(g.Dir, "crashsim-*"))
		for _, d := range subs {
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
				err := os.Remove(d)
				if err == nil || os.IsNotExist(err) || !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
					break
				}
			}
		}
		if err := g.Close(); err != nil {
			t.Errorf("the test's cgroup: %v", err)
		}
	})
	return g
}
