package reap

import (
	"os/exec"
	"testing"
	"time"
)

// TestDying: a running process is not dying; one that has exited (a
// zombie not yet reaped) and one that is gone are.
func TestDying(t *testing.T) {
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	pid := c.Process.Pid
	since, err := startTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if dying(pid, since) {
		t.Errorf("a sleeping process is taken for dying")
	}
	if !dying(pid, since+1) {
		t.Errorf("a process started at another time (pid reused) is not taken for gone")
	}
	c.Process.Kill()
	// Not reaped yet: a zombie.
	for i := 0; i < 200 && Alive(pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !dying(pid, since) {
		t.Errorf("a zombie is not taken for dying")
	}
	c.Wait()
	if !dying(pid, since) {
		t.Errorf("a reaped process is not taken for gone")
	}
}
