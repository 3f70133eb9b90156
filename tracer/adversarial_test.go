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

// stracesUnder lists the strace processes whose parent is pid.
func stracesUnder(pid int) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 || !strings.HasSuffix(string(b[:i]), "(strace") {
			continue
		}
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == fmt.Sprint(pid) {
			pids = append(pids, strings.Fields(string(b))[0])
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
