//go:build linux

package reap

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashsimEnv makes the test binary stand in for crashsim: it keeps the
// shell command in the variable, prints the pids (and the group), and
// waits to be killed. With groupEnv set, the keeper starts in a group of
// its own that a watchdog guards.
const (
	crashsimEnv = "REAP_TEST_CRASHSIM"
	groupEnv    = "REAP_TEST_GROUP"
)

func TestMain(m *testing.M) {
	if os.Getenv(fdsEnv) != "" {
		os.Exit(fdsHelper())
	}
	if cmd := os.Getenv(crashsimEnv); cmd != "" {
		k := Keep("/bin/sh", []string{"sh", "-c", cmd}, Attr{Setpgid: true})
		var wd *Watchdog
		if os.Getenv(groupEnv) != "" {
			g, err := NewGroup()
			if err != nil {
				fmt.Println("error:", err)
				os.Exit(1)
			}
			k.Group = g
			if wd, err = StartWatchdog(0, NewToken(), g); err != nil {
				fmt.Println("error:", err)
				os.Exit(1)
			}
		}
		if err := k.Start(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		dir := "-"
		if k.Group != nil {
			dir = k.Group.Dir
		}
		fmt.Printf("%d %d %s\n", k.Pid(), k.Keeper(), dir)
		// wd stays referenced: its pipe must close only with this process.
		for {
			time.Sleep(time.Hour)
			runtime.KeepAlive(wd)
		}
	}
	os.Exit(m.Run())
}

// mark is a sleep duration no other process uses: the processes a test
// starts are found by it in their command line.
func mark() string { return fmt.Sprintf("%d.%06d", 500+rand.IntN(400), rand.IntN(1000000)) }

// sleeping lists the processes whose command line is "sleep d".
func sleeping(d string) []string {
	var pids []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && string(b) == "sleep\x00"+d+"\x00" {
			if p, ok := live(atoi(filepath.Base(filepath.Dir(f)))); ok {
				pids = append(pids, fmt.Sprint(p.PID))
			}
		}
	}
	return pids
}

// cleanupSleeps kills, when the test ends, the sleeps a failed test left.
func cleanupSleeps(t *testing.T, marks ...string) {
	t.Cleanup(func() {
		for _, d := range marks {
			for _, p := range sleeping(d) {
				syscall.Kill(atoi(p), syscall.SIGKILL)
			}
		}
	})
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// waitFor waits until f is true, or fails after 20 s.
func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if f() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// A daemon that leaves the session and clears its environment (so no
// token finds it) is still the keeper's: killed and named when the
// command exits, and the command's own status comes back.
func TestKeeperEndsDaemonWhenCommandExits(t *testing.T) {
	d := mark()
	cleanupSleeps(t, d)
	k := Keep("/bin/sh", []string{"sh", "-c", "setsid env -i sleep " + d + " </dev/null >/dev/null 2>&1 & exit 3"}, Attr{Setpgid: true})
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	ws, left, err := k.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !ws.Exited() || ws.ExitStatus() != 3 {
		t.Errorf("status %v, want exit 3", ws)
	}
	// The daemon was forked before sh exited; it is sh, setsid, env or
	// sleep by now.
	if len(left) != 1 || !strings.Contains("sh setsid env sleep", left[0].Comm) {
		t.Errorf("leftovers %v, want the daemon", left)
	}
	if pids := sleeping(d); len(pids) > 0 {
		t.Errorf("left running: %v", pids)
	}
}

// Running and Kill reach the whole tree while the command runs; Kill
// spares the pids it is told to.
func TestKeeperKillSparesExcept(t *testing.T) {
	d, e := mark(), mark()
	cleanupSleeps(t, d, e)
	k := Keep("/bin/sh", []string{"sh", "-c", "setsid env -i sleep " + d + " </dev/null >/dev/null 2>&1 & sleep " + e + "; exit 0"}, Attr{})
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both sleeps", func() bool { return len(sleeping(d)) == 1 && len(sleeping(e)) == 1 })
	if n := len(k.Running()); n != 3 {
		t.Errorf("Running() = %v, want sh and two sleeps", k.Running())
	}
	killed := k.Kill(k.Pid())
	if len(killed) != 2 {
		t.Errorf("Kill(sh) = %v, want the two sleeps", killed)
	}
	ws, left, err := k.Wait() // sh's sleep is gone: sh exits
	if err != nil || !ws.Exited() || ws.ExitStatus() != 0 || len(left) != 0 {
		t.Errorf("Wait = %v, %v, %v; want exit 0 and nothing left (killed %v, d %v e %v)", ws, left, err, killed, sleeping(d), sleeping(e))
	}
	if len(sleeping(d))+len(sleeping(e)) > 0 {
		t.Error("a sleep is left")
	}
}

// crashsim killed with SIGKILL: its keeper kills the command and the
// daemon it started.
func TestKeeperOutlivesSIGKILL(t *testing.T) {
	d, e := mark(), mark()
	cleanupSleeps(t, d, e)
	c, keeper, _ := startCrashsim(t, "setsid env -i sleep "+d+" </dev/null >/dev/null 2>&1 & exec sleep "+e)
	waitFor(t, "both sleeps", func() bool { return len(sleeping(d)) == 1 && len(sleeping(e)) == 1 })
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	waitFor(t, "nothing left", func() bool {
		_, k := live(keeper)
		return len(sleeping(d))+len(sleeping(e)) == 0 && !k
	})
}

// startCrashsim starts the test binary as crashsim on cmd, and returns
// it, its keeper's pid and its group's directory ("-" when none).
func startCrashsim(t *testing.T, cmd string, env ...string) (*exec.Cmd, int, string) {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(append(os.Environ(), crashsimEnv+"="+cmd), env...)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var pid, keeper int
	var dir string
	if _, serr := fmt.Sscan(line, &pid, &keeper, &dir); err != nil || serr != nil {
		t.Fatalf("helper said %q: %v %v", line, err, serr)
	}
	return c, keeper, dir
}

// Killed with SIGKILL, keeper first, so that nothing sweeps the tree:
// the daemon went to init (the command died with the keeper, its
// parent-death signal), but not out of the group, and the watchdog kills
// the group and removes it.
func TestGroupOutlivesKeeper(t *testing.T) {
	if g, err := NewGroup(); err != nil {
		t.Skipf("no cgroup for crashsim here: %v", err)
	} else {
		g.Close()
	}
	d, e := mark(), mark()
	cleanupSleeps(t, d, e)
	c, keeper, dir := startCrashsim(t, "setsid env -i sleep "+d+" </dev/null >/dev/null 2>&1 & exec sleep "+e, groupEnv+"=1")
	t.Cleanup(func() { killGroup(dir); removeGroup(dir) })
	waitFor(t, "both sleeps", func() bool { return len(sleeping(d)) == 1 && len(sleeping(e)) == 1 })
	syscall.Kill(keeper, syscall.SIGKILL)
	waitFor(t, "the keeper's end", func() bool { _, ok := live(keeper); return !ok })
	if len(sleeping(d)) != 1 {
		t.Fatal("the daemon went with the keeper: the test shows nothing")
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	waitFor(t, "nothing left", func() bool {
		_, err := os.Stat(dir)
		return len(sleeping(d))+len(sleeping(e)) == 0 && os.IsNotExist(err)
	})
}

// A command that cannot start is an error from Start, not a hang.
func TestKeeperStartFails(t *testing.T) {
	k := Keep(filepath.Join(t.TempDir(), "missing"), []string{"missing"}, Attr{})
	if err := k.Start(); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Start = %v, want no such file", err)
	}
}

// TracedCommand skips a child that still runs its parent's program (as
// strace's probes never exec) and returns the first that execs another.
func TestTracedCommand(t *testing.T) {
	d := mark()
	c := exec.Command("/bin/sh", "-c", "exec 3<&0; (read x <&3) & sleep "+d+" & wait")
	stdin, err := c.StdinPipe() // never written: the subshell waits in read
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { KillTree(c.Process.Pid); c.Process.Kill(); c.Wait() })
	waitFor(t, "the sleep", func() bool { return len(sleeping(d)) == 1 && len(children(c.Process.Pid)) == 2 })
	got, err := TracedCommand(c.Process.Pid)
	if want := sleeping(d)[0]; err != nil || fmt.Sprint(got) != want {
		t.Errorf("TracedCommand = %d, %v; want the sleep, %s (children %v)", got, err, want, children(c.Process.Pid))
	}
}

// A command whose arguments take more bytes than one environment string
// may hold (128 KiB) starts with every one of them: the keeper's spec
// used to travel in its environment, and such a command failed with
// "argument list too long".
func TestKeeperManyArgs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "args")
	args := []string{"sh", "-c", `printf '%s\0' "$@" > "$0"`, out}
	var want strings.Builder
	for i := range 40_000 {
		a := fmt.Sprintf("argument-%d\n\xff", i)
		args = append(args, a)
		want.WriteString(a + "\x00")
	}
	k := Keep("/bin/sh", args, Attr{})
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	if ws, _, err := k.Wait(); err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("Wait = %v, %v; want exit 0", ws, err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("the command wrote %d bytes of arguments, want %d", len(got), want.Len())
	}
}
