package oracle

import (
	"bufio"
	"context"
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

// mark is a sleep duration no other process uses: the processes a test
// starts are found by it in their command line.
func mark() string { return fmt.Sprintf("%d.%06d", 600+rand.IntN(300), rand.IntN(1000000)) }

// sleeping lists the live processes whose command line is "sleep d".
func sleeping(d string) []int {
	var pids []int
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && string(b) == "sleep\x00"+d+"\x00" {
			var pid int
			fmt.Sscan(filepath.Base(filepath.Dir(f)), &pid)
			if st, err := os.ReadFile(filepath.Join(filepath.Dir(f), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func killSleeps(marks ...string) {
	for _, m := range marks {
		for _, pid := range sleeping(m) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// A program that exits at once but leaves a daemon that left its session
// and cleared its environment: the oracle says so linger after the
// program's exit (not at its timeout), kills the daemon, and leaves no
// mount or loop device (issue 28).
func TestDaemonWithCleanEnvironment(t *testing.T) {
	needsLoop(t)
	d := mark()
	t.Cleanup(func() { killSleeps(d) })
	before := ours(t)
	start := time.Now()
	_, err := Run(context.Background(), Options{FS: "ext4", Timeout: 60 * time.Second,
		Cmd: []string{"/bin/sh", "-c", "setsid env -i sleep " + d + " </dev/null >/dev/null 2>&1 & printf x > f; exit 0"}})
	took := time.Since(start)
	checkClean(t, before)
	if err == nil || !strings.Contains(err.Error(), "the program exited, but process") || !strings.Contains(err.Error(), "still ran 3s later (killed now)") {
		t.Errorf("err = %v, want the program's leftover named", err)
	}
	if took > 50*time.Second {
		t.Errorf("the run took %v: it waited for its timeout", took)
	}
	if pids := sleeping(d); len(pids) > 0 {
		t.Errorf("left running: %v", pids)
	}
}

// The helper process of TestKilledLeavesNothing: an oracle run whose
// program starts a daemon with a clean environment and sleeps.
func TestKillHelper(t *testing.T) {
	d := os.Getenv("CRASHSIM_ORACLE_KILL_HELPER")
	if d == "" {
		t.Skip("the helper process of TestKilledLeavesNothing")
	}
	d, e, _ := strings.Cut(d, " ")
	_, err := Run(context.Background(), Options{FS: "ext4", Timeout: 5 * time.Minute, Log: os.Stderr,
		Cmd: []string{"/bin/sh", "-c", "setsid env -i sleep " + d + " </dev/null >/dev/null 2>&1 & printf x > f; sleep " + e}})
	t.Fatalf("the run ended before it was killed: %v", err)
}

// Killed with SIGKILL while the program and its daemon run, the oracle
// leaves no process, mount, loop device or directory.
func TestKilledLeavesNothing(t *testing.T) {
	needsLoop(t)
	d, e := mark(), mark()
	t.Cleanup(func() { killSleeps(d, e) })
	dir := t.TempDir()
	h := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.timeout=5m")
	h.Env = append(os.Environ(), "TMPDIR="+dir, "CRASHSIM_ORACLE_TEST_TMP="+dir, "CRASHSIM_ORACLE_KILL_HELPER="+d+" "+e)
	stderr, err := h.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Process.Kill(); h.Wait() })
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
		}
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for len(sleeping(d)) == 0 || len(sleeping(e)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the program never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(mountsBelow(t, dir)) == 0 {
		t.Fatal("nothing mounted while the program runs: the test shows nothing")
	}
	h.Process.Signal(syscall.SIGKILL)
	h.Wait()
	deadline = time.Now().Add(30 * time.Second)
	for {
		left := mountsBelow(t, dir)
		entries, _ := os.ReadDir(dir)
		if len(sleeping(d))+len(sleeping(e)) == 0 && len(left) == 0 && len(entries) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind: sleeps %v %v, %v, %d entries in %s", sleeping(d), sleeping(e), left, len(entries), dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
