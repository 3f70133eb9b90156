package tracer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
)

// helperEnv makes the test binary a crashsim stand-in: it runs the command
// in the variable's value (JSON) under Run and prints the Result.
const helperEnv = "CRASHSIM_TRACER_TEST_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		var cmd []string
		if err := json.Unmarshal([]byte(v), &cmd); err != nil {
			panic(err)
		}
		res, err := Run(context.Background(), cmd, Options{Out: os.Getenv("TRACE_OUT"), Stderr: os.Stderr})
		if res != nil {
			fmt.Printf("leftovers=%d\n", len(res.Leftovers))
		}
		if err != nil {
			fmt.Println(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startHelper runs the helper on cmd; the caller kills or waits for it.
func startHelper(t *testing.T, out string, cmd ...string) *exec.Cmd {
	t.Helper()
	b, _ := json.Marshal(cmd)
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), helperEnv+"="+string(b), "TRACE_OUT="+out)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

// mark returns a sleep duration no other process uses, to find the
// sleeps a test started by their command line.
func mark() string { return fmt.Sprintf("%d.%d", 40+rand.IntN(20), rand.IntN(1000000)) }

// waitFor waits until f is true, or fails after 10 s.
func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if f() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// stracesUnder lists the strace processes below pid.
func stracesUnder(pid int) []string {
	var pids []string
	for _, p := range reap.Descendants(pid) {
		if p.Comm == "strace" {
			pids = append(pids, fmt.Sprint(p.PID))
		}
	}
	return pids
}

// alive reports whether any of pids is a live process.
func alive(pids []string) bool {
	for _, p := range pids {
		b, err := os.ReadFile("/proc/" + p + "/stat")
		if err == nil && !strings.Contains(string(b), ") Z ") {
			return true
		}
	}
	return false
}

// TestAdversarialSIGKILL: crashsim killed with SIGKILL takes strace, the
// command and a daemon the command started with it (issue 14, case 5).
func TestAdversarialSIGKILL(t *testing.T) {
	needStrace(t)
	a, b := mark(), mark()
	out := filepath.Join(realTempDir(t), "t.strace")
	h := startHelper(t, out, "sh", "-c", "setsid sleep "+a+" & sleep "+b)
	waitFor(t, "both sleeps", func() bool { return len(leftover("sleep", a)) == 1 && len(leftover("sleep", b)) == 1 })
	straces := stracesUnder(h.Process.Pid)
	if len(straces) == 0 {
		t.Fatal("no strace found for the run")
	}
	h.Process.Signal(syscall.SIGKILL)
	h.Wait()
	waitFor(t, "no process left", func() bool {
		return len(leftover("sleep", a))+len(leftover("sleep", b)) == 0 && !alive(straces)
	})
}

// TestAdversarialLinger: a daemon that outlives the command is killed
// Linger after the command's first process exits, and listed.
func TestAdversarialLinger(t *testing.T) {
	needStrace(t)
	a := mark()
	dir := realTempDir(t)
	start := time.Now()
	res, err := Run(context.Background(), []string{"sh", "-c", "setsid sh -c 'trap \"\" TERM INT HUP; sleep " + a + "' & exit 0"},
		Options{Dir: dir, Out: filepath.Join(dir, "t.strace"), Linger: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %v", d)
	}
	var names []string
	for _, p := range res.Leftovers {
		names = append(names, p.Comm)
	}
	if !strings.Contains(strings.Join(names, " "), "sleep") {
		t.Errorf("Leftovers %v, want the sleep among them", res.Leftovers)
	}
	if pids := leftover("sleep", a); len(pids) > 0 {
		t.Errorf("still running: %v", pids)
	}
	if res.ExitCode != 0 {
		t.Errorf("ExitCode %d, want the command's 0", res.ExitCode)
	}
}

// TestAdversarialSecondInterrupt: a command that ignores SIGINT is killed
// by the second one (issue 14, case 5).
func TestAdversarialSecondInterrupt(t *testing.T) {
	needStrace(t)
	a := mark()
	out := filepath.Join(realTempDir(t), "t.strace")
	h := startHelper(t, out, "sh", "-c", "trap '' INT; sleep "+a)
	waitFor(t, "the sleep", func() bool { return len(leftover("sleep", a)) == 1 })
	h.Process.Signal(syscall.SIGINT)
	time.Sleep(500 * time.Millisecond)
	if len(leftover("sleep", a)) != 1 {
		t.Fatal("the first SIGINT ended a command that ignores it")
	}
	h.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- h.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("crashsim still waits after a second SIGINT")
	}
	if pids := leftover("sleep", a); len(pids) > 0 {
		t.Errorf("still running: %v", pids)
	}
}

// killMarked kills the sleeps of a test that failed, by their marks.
func killMarked(marks ...string) {
	for _, m := range marks {
		for _, p := range leftover("sleep", m) {
			var pid int
			fmt.Sscan(p, &pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestAdversarialCleanEnvDaemon: a daemon that leaves the session and
// clears its environment, so that no token finds it, does not hold Run
// up: Linger after the command exits it is killed and named (issue 28).
func TestAdversarialCleanEnvDaemon(t *testing.T) {
	needStrace(t)
	a := mark()
	t.Cleanup(func() { killMarked(a) })
	dir := realTempDir(t)
	type result struct {
		res *Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := Run(context.Background(), []string{"sh", "-c", "setsid env -i sh -c 'trap \"\" TERM INT HUP; exec sleep " + a + "' </dev/null >/dev/null 2>&1 & exit 0"},
			Options{Dir: dir, Out: filepath.Join(dir, "t.strace"), Linger: 300 * time.Millisecond})
		done <- result{res, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run still waits for the daemon 30 s after its command exited")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.res.Leftovers) != 1 || !strings.Contains("sh setsid env sleep", r.res.Leftovers[0].Comm) {
		t.Errorf("Leftovers %v, want the daemon", r.res.Leftovers)
	}
	if pids := leftover("sleep", a); len(pids) > 0 {
		t.Errorf("still running: %v", pids)
	}
	if r.res.ExitCode != 0 {
		t.Errorf("ExitCode %d, want the command's 0", r.res.ExitCode)
	}
}

// TestAdversarialSIGKILLCleanEnv: crashsim killed with SIGKILL takes a
// daemon with a clean environment with it too.
func TestAdversarialSIGKILLCleanEnv(t *testing.T) {
	needStrace(t)
	a, b := mark(), mark()
	t.Cleanup(func() { killMarked(a, b) })
	out := filepath.Join(realTempDir(t), "t.strace")
	h := startHelper(t, out, "sh", "-c", "setsid env -i sleep "+a+" </dev/null >/dev/null 2>&1 & sleep "+b)
	waitFor(t, "both sleeps", func() bool { return len(leftover("sleep", a)) == 1 && len(leftover("sleep", b)) == 1 })
	h.Process.Signal(syscall.SIGKILL)
	h.Wait()
	waitFor(t, "no process left", func() bool { return len(leftover("sleep", a))+len(leftover("sleep", b)) == 0 })
}
