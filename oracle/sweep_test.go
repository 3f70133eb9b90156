package oracle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/internal/reap/reaptest"
)

// ownGroup moves the test process into a cgroup of its own
// (reaptest.Group) until the test ends: an oracle run makes its cgroup
// below its own and sweeps the dead runs' there, and this test's runs
// are in-process. Where no group can be made, or the process cannot
// move, nothing changes.
func ownGroup(t *testing.T) {
	g := reaptest.Group(t)
	if g == nil {
		return
	}
	back := filepath.Join(filepath.Dir(g.Dir), "cgroup.procs")
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(g.Dir, "cgroup.procs"), pid, 0); err != nil {
		t.Logf("the test cannot move into a cgroup of its own (%v): the runs sweep beside it", err)
		return
	}
	// Back where it was before the group goes (cleanups run last
	// registered first).
	t.Cleanup(func() {
		if err := os.WriteFile(back, pid, 0); err != nil {
			t.Errorf("moving the test back to its cgroup: %v", err)
		}
	})
}

// startKillHelper starts TestKillHelper (an oracle run whose program
// leaves a daemon, sleep d, and sleeps, sleep e) with TMPDIR dir, and
// returns once its program runs.
func startKillHelper(t *testing.T, dir string) (h *exec.Cmd, d, e string) {
	t.Helper()
	d, e = mark(), mark()
	t.Cleanup(func() { killSleeps(d, e) })
	h = exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.timeout=5m")
	h.Env = append(os.Environ(), "TMPDIR="+dir, "CRASHSIM_ORACLE_TEST_TMP="+dir, "CRASHSIM_ORACLE_KILL_HELPER="+d+" "+e)
	h.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	for deadline := time.Now().Add(2 * time.Minute); len(sleeping(e)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the program never ran")
		}
	}
	return h, d, e
}

// dirOf is the oracle directory below tmp whose record names pid.
func dirOf(t *testing.T, tmp string, pid int) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(tmp, dirPrefix+"*"))
	for _, d := range dirs {
		b, _ := os.ReadFile(filepath.Join(d, ".crashsim-owner"))
		if strings.Contains(string(b), fmt.Sprintf("\npid %d\n", pid)) {
			return d
		}
	}
	t.Fatalf("no oracle directory of pid %d among %v", pid, dirs)
	return ""
}

// cgroupOf is the directory of process pid's cgroup (version 2), "" when
// there is none.
func cgroupOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return ""
	}
	var path string
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			path = p
		}
	}
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	for _, l := range strings.Split(string(mi), "\n") {
		if f := strings.Fields(l); len(f) > 8 && strings.Contains(l, " - cgroup2 ") && f[3] == "/" {
			return filepath.Join(f[4], path)
		}
	}
	return ""
}

// An oracle run killed with its watchdog leaves its mounts, loop devices,
// directory and cgroup; the next oracle run removes them and says so,
// and leaves those of a run still going alone.
func TestSweepKilledWithWatchdog(t *testing.T) {
	needsLoop(t)
	ownGroup(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("CRASHSIM_ORACLE_TEST_TMP", tmp)
	t.Cleanup(func() { undoBelow(t, tmp, nil) })

	dead, _, deadProg := startKillHelper(t, tmp)
	live, _, liveProg := startKillHelper(t, tmp)
	deadDir, liveDir := dirOf(t, tmp, dead.Process.Pid), dirOf(t, tmp, live.Process.Pid)
	deadGroup, liveGroup := cgroupOf(sleeping(deadProg)[0]), cgroupOf(sleeping(liveProg)[0])
	if !strings.Contains(filepath.Base(deadGroup), "crashsim-") {
		deadGroup, liveGroup = "", "" // no cgroup of the run's here
	}
	if deadGroup != "" {
		t.Cleanup(func() { os.Remove(deadGroup) }) // when the sweep failed
	}
	reaptest.KillAll(t, dead)

	// What the sweep must undo is there: the watchdog died too.
	left := strings.Join(mountsBelow(t, tmp), "\n")
	for _, w := range []string{deadDir + "/live", liveDir + "/live", "loop: "} {
		if !strings.Contains(left, w) {
			t.Fatalf("before the sweep, no %q among\n%s", w, left)
		}
	}
	if deadGroup != "" {
		if _, err := os.Stat(deadGroup); err != nil {
			t.Fatalf("the killed run's cgroup is not left: %v", err)
		}
	}

	var notes strings.Builder
	start := time.Now()
	_, err := Run(context.Background(), Options{FS: "ext4", Cmd: []string{"/bin/sh", "-c", "printf x > f"}, Notes: &notes})
	t.Logf("the sweeping run took %v; it said:\n%s", time.Since(start), notes.String())
	if err != nil {
		t.Fatal(err)
	}
	after := strings.Join(mountsBelow(t, tmp), "\n")
	if strings.Contains(after, deadDir) {
		t.Errorf("the killed run's mounts or loop devices are left:\n%s", after)
	}
	if _, err := os.Lstat(deadDir); !os.IsNotExist(err) {
		t.Errorf("the killed run's directory is left (%v)", err)
	}
	if deadGroup != "" {
		if _, err := os.Stat(deadGroup); !os.IsNotExist(err) {
			t.Errorf("the killed run's cgroup %s is left (%v)", deadGroup, err)
		}
	}
	for _, w := range []string{"unmounted " + deadDir + "/live", "detached /dev/loop", "removed " + deadDir} {
		if !strings.Contains(notes.String(), w) {
			t.Errorf("the sweep did not say %q:\n%s", w, notes.String())
		}
	}
	if deadGroup != "" && !strings.Contains(notes.String(), "removed its cgroup "+deadGroup) {
		t.Errorf("the sweep did not name the cgroup %s:\n%s", deadGroup, notes.String())
	}
	// The run still going keeps everything.
	if !strings.Contains(after, liveDir+"/live") || !strings.Contains(after, liveDir+"/") || strings.Contains(notes.String(), liveDir) {
		t.Errorf("the live run's mounts were touched:\n%s\nnotes:\n%s", after, notes.String())
	}
	if _, err := os.Stat(filepath.Join(liveDir, ".crashsim-owner")); err != nil {
		t.Error(err)
	}
	if len(sleeping(liveProg)) == 0 {
		t.Error("the live run's program was killed")
	}
	if liveGroup != "" {
		if _, err := os.Stat(liveGroup); err != nil {
			t.Errorf("the live run's cgroup: %v", err)
		}
	}
	// The live run, killed alone, is undone by its watchdog, as before.
	live.Process.Signal(syscall.SIGKILL)
	live.Wait()
	for deadline := time.Now().Add(30 * time.Second); len(mountsBelow(t, tmp)) > 0 || len(sleeping(liveProg)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the live run's watchdog left: %v", mountsBelow(t, tmp))
		}
	}
}

// A --blocks run killed with its watchdog while the program runs leaves
// the live filesystem's mount, the loop device over the image its FUSE
// server served, and that FUSE mount, now without a server; the next run
// aborts the connection, unmounts the filesystem, detaches the loop
// device, then unmounts the FUSE mount and removes the directory.
func TestSweepKilledBlocksWithWatchdog(t *testing.T) {
	needsBlocks(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("CRASHSIM_ORACLE_TEST_TMP", tmp)
	t.Cleanup(func() { undoBelow(t, tmp, nil) })
	h := exec.Command(os.Args[0], "-test.run=^TestBlocksKillHelper$", "-test.timeout=5m")
	h.Env = append(os.Environ(), "TMPDIR="+tmp, "CRASHSIM_ORACLE_TEST_TMP="+tmp,
		"CRASHSIM_BLOCKS_KILL_HELPER=run", "CRASHSIM_BLOCKS_KILL_MARK="+tmp,
		// Sleeps long only on the filesystem the FUSE server serves, not
		// in the first run, which learns the crash points.
		`CRASHSIM_BLOCKS_KILL_CMD=printf x > f; if grep -F "$CRASHSIM_BLOCKS_KILL_MARK/" /proc/self/mountinfo | grep -q ' - fuse'; then sleep 600; fi`)
	h.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	h.Stderr = nil
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Process.Kill(); h.Wait() })
	// The program sleeps on the filesystem the FUSE server serves.
	for deadline := time.Now().Add(2 * time.Minute); len(procsBelow(tmp, "sleep")) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the program never ran")
		}
	}
	dir := dirOf(t, tmp, h.Process.Pid)
	reaptest.KillAll(t, h)
	before := strings.Join(leftBelow(t, tmp), "\n")
	for _, w := range []string{"fuse.crashsim", dir + "/live ", "/dev/loop"} {
		if !strings.Contains(before, w) {
			t.Fatalf("before the sweep, no %q among\n%s", w, before)
		}
	}
	var notes strings.Builder
	_, err := Run(context.Background(), Options{FS: "ext4", Cmd: []string{"/bin/sh", "-c", "printf x > f"}, Notes: &notes})
	t.Logf("the sweeping run said:\n%s", notes.String())
	if err != nil {
		t.Fatal(err)
	}
	if left := leftBelow(t, tmp); len(left) > 0 {
		t.Errorf("left after the sweep:\n%s", strings.Join(left, "\n"))
	}
	for _, w := range []string{"unmounted " + dir + "/live", "unmounted " + dir + "/fuse", "detached /dev/loop", "removed " + dir} {
		if !strings.Contains(notes.String(), w) {
			t.Errorf("the sweep did not say %q", w)
		}
	}
}

// The helper process of TestSweepLeavesKept: a run that keeps its
// directory, which it prints.
func TestKeepHelper(t *testing.T) {
	if os.Getenv("CRASHSIM_ORACLE_KEEP_HELPER") == "" {
		t.Skip("the helper process of TestSweepLeavesKept")
	}
	res, err := Run(context.Background(), Options{FS: "ext4", Cmd: []string{"/bin/sh", "-c", "printf x > f"}, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("kept=%s\n", res[0].Dir)
}

// A run asked to keep its directory leaves it to the user: once it has
// ended, the next run does not sweep it.
func TestSweepLeavesKept(t *testing.T) {
	needsLoop(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("CRASHSIM_ORACLE_TEST_TMP", tmp)
	h := exec.Command(os.Args[0], "-test.run=^TestKeepHelper$", "-test.v")
	h.Env = append(os.Environ(), "CRASHSIM_ORACLE_KEEP_HELPER=1")
	out, err := h.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, kept, ok := strings.Cut(string(out), "kept=")
	kept, _, _ = strings.Cut(kept, "\n")
	if !ok || !strings.HasPrefix(kept, tmp+"/") {
		t.Fatalf("the helper kept no directory in %s:\n%s", tmp, out)
	}
	var notes strings.Builder
	if _, err := Run(context.Background(), Options{FS: "ext4", Cmd: []string{"/bin/sh", "-c", "printf x > f"}, Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(kept, "initial.img")); err != nil || strings.Contains(notes.String(), kept) {
		t.Errorf("the kept directory: %v; the second run said %q", err, notes.String())
	}
}
