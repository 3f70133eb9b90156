// Package reaptest helps tests play the worst end of a crashsim run: every
// process of it killed at once, its watchdog included.
package reaptest

import (
	"os/exec"
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
