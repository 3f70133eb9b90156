package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/internal/reap/reaptest"
)

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ownedBy lists the entries of dir whose name starts with prefix and
// whose record (see reap.OwnDir) names pid.
func ownedBy(dir, prefix string, pid int) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name(), ".crashsim-owner"))
		if strings.HasPrefix(e.Name(), prefix) && bytes.Contains(b, fmt.Appendf(nil, "\npid %d\n", pid)) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// sleepsMarked reports whether a checker's sleep carrying mark runs.
func sleepsMarked(mark string) bool {
	for _, p := range marked(mark) {
		if p.comm == "sleep" {
			return true
		}
	}
	return false
}

// groupsOf lists the cgroups in dir whose name says process pid made
// them; dir "" is beside this process's own cgroup.
func groupsOf(dir string, pid int) []string {
	if dir != "" {
		m, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("crashsim-%d-*", pid)))
		return m
	}
	b, _ := os.ReadFile("/proc/self/cgroup")
	var path string
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			path = p
		}
	}
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	var out []string
	for _, l := range strings.Split(string(mi), "\n") {
		if f := strings.Fields(l); len(f) > 8 && strings.Contains(l, " - cgroup2 ") && f[3] == "/" {
			m, _ := filepath.Glob(filepath.Join(f[4], path, fmt.Sprintf("crashsim-%d-*", pid)))
			out = append(out, m...)
		}
	}
	return out
}

// inGroup starts c in g (reaptest.Group), when there is one.
func inGroup(c *exec.Cmd, g *reap.Group) {
	if g == nil {
		return
	}
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.UseCgroupFD, c.SysProcAttr.CgroupFD = true, g.FD()
}

// groupDir is where the runs started in g make their cgroups: "" (beside
// this process's own) without g.
func groupDir(g *reap.Group) string {
	if g == nil {
		return ""
	}
	return g.Dir
}

// An explore killed with its watchdog leaves the copy of the directory
// it ran the program in, its state directories and its checkers' cgroup;
// the next explore removes them and says so, and leaves those of an
// explore still going alone.
func TestExploreSweepsKilledRuns(t *testing.T) {
	bin, err := exec.LookPath("crashsim")
	if err != nil {
		t.Skip("crashsim is not on PATH (TestMain puts it there)")
	}
	if testing.Short() {
		t.Skip("-short: runs explore -- PROGRAM under strace")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("needs strace: ", err)
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	group := reaptest.Group(t)
	// start runs explore -- PROGRAM in a directory of its own, with a
	// checker that sleeps until killed, and returns once a checker runs.
	start := func(name string) (*exec.Cmd, *syncBuffer, string) {
		var b [8]byte
		rand.Read(b[:])
		mark := "CRASHSIM_TEST_MARK=" + hex.EncodeToString(b[:])
		cwd := filepath.Join(tmp, name)
		if err := os.Mkdir(cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(bin, "explore", "--work-dir", work, "--checker", "env "+mark+" sleep 600", "--", "sh", "-c", "printf x > f")
		c.Dir = cwd
		c.Env = append(os.Environ(), "TMPDIR="+tmp, mark)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		inGroup(c, group)
		out := &syncBuffer{}
		c.Stderr = out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Process.Kill()
			c.Wait()
			for _, p := range marked(mark) {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
		})
		for deadline := time.Now().Add(2 * time.Minute); !sleepsMarked(mark); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no checker of %s ran in two minutes:\n%s", name, out.String())
			}
		}
		return c, out, mark
	}
	dead, _, _ := start("dead")
	live, liveOut, liveMark := start("live")
	deadPid, livePid := dead.Process.Pid, live.Process.Pid
	// What each run made: the copy of its directory ($TMPDIR), its state
	// directories (--work-dir), its checkers' cgroup where it may make one.
	made := func(pid int) []string {
		return append(append(ownedBy(tmp, "crashsim-explore-run-", pid), ownedBy(work, "crashsim-explore-", pid)...), groupsOf(groupDir(group), pid)...)
	}
	deadMade, liveMade := made(deadPid), made(livePid)
	if len(deadMade) < 2 || len(liveMade) < 2 {
		t.Fatalf("the runs made %v and %v: want a snapshot directory and a work directory each", deadMade, liveMade)
	}
	reaptest.KillAll(t, dead)
	for _, p := range deadMade {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("nothing to sweep: the killed run's %s went by itself (%v)", p, err)
		}
	}
	t.Cleanup(func() {
		for _, p := range deadMade { // when the sweep failed
			if strings.HasPrefix(p, "/sys/") {
				os.Remove(p)
			}
		}
	})

	// crashsim doctor lists them (those in its default places: the
	// snapshot's directory in $TMPDIR, the cgroup), not the live run's,
	// and changes nothing.
	doc := exec.Command(bin, "doctor")
	doc.Env = append(os.Environ(), "TMPDIR="+tmp)
	inGroup(doc, group)
	docOut, err := doc.Output()
	if err != nil {
		t.Fatalf("doctor: %v", err)
	}
	for _, p := range deadMade {
		if !strings.HasPrefix(p, work) && !strings.Contains(string(docOut), fmt.Sprintf("%s (pid %d)", p, deadPid)) {
			t.Errorf("doctor does not list %s:\n%s", p, docOut)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("doctor removed %s", p)
		}
	}
	if strings.Contains(string(docOut), fmt.Sprintf("pid %d", livePid)) {
		t.Errorf("doctor lists the live run's:\n%s", docOut)
	}

	// A third explore, of a saved trace, sweeps.
	root, initial := filepath.Join(tmp, "root"), filepath.Join(tmp, "initial")
	os.Mkdir(initial, 0o755)
	trace := filepath.Join(tmp, "t.strace")
	tr := fmt.Sprintf("openat(AT_FDCWD, %q, O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\nwrite(3, \"x\", 1) = 1\nclose(3) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\n", root+"/f")
	if err := os.WriteFile(trace, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(bin, "explore", "--work-dir", work, "--root", root, "--initial", initial, "--checker", "true", trace)
	c.Env = append(os.Environ(), "TMPDIR="+tmp)
	inGroup(c, group)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	began := time.Now()
	err = c.Run()
	t.Logf("the sweeping explore took %v and said:\n%s", time.Since(began), stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range deadMade {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("the killed run's %s is left (%v)", p, err)
		}
		if !strings.Contains(stderr.String(), "removed "+p) && !strings.Contains(stderr.String(), "removed its cgroup "+p) {
			t.Errorf("the sweep did not name %s", p)
		}
	}
	for _, p := range liveMade {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the live run's %s: %v", p, err)
		}
		if strings.Contains(stderr.String(), p) {
			t.Errorf("the sweep named the live run's %s", p)
		}
	}
	if !sleepsMarked(liveMark) {
		t.Error("the live run's checker was killed")
	}
	// The live run, interrupted, cleans up after itself as before.
	live.Process.Signal(syscall.SIGINT)
	live.Wait()
	for _, p := range liveMade {
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Lstat(p); os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the live run, interrupted, left %s:\n%s", p, liveOut.String())
				break
			}
		}
	}
}

// What an explore --keep said it kept is the user's: a later explore
// leaves it.
func TestExploreSweepLeavesKept(t *testing.T) {
	bin, err := exec.LookPath("crashsim")
	if err != nil {
		t.Skip("crashsim is not on PATH (TestMain puts it there)")
	}
	if testing.Short() {
		t.Skip("-short: runs explore -- PROGRAM under strace")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("needs strace: ", err)
	}
	tmp := t.TempDir()
	work, cwd := filepath.Join(tmp, "work"), filepath.Join(tmp, "cwd")
	for _, d := range []string{work, cwd} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		c := exec.Command(bin, append([]string{"explore", "--work-dir", work, "--checker", "true"}, args...)...)
		c.Dir = cwd
		c.Env = append(os.Environ(), "TMPDIR="+tmp)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("explore %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	out := run("--keep", "--", "sh", "-c", "printf x > f")
	var kept []string
	for _, l := range strings.Split(out, "\n") {
		for _, what := range []string{"crashsim: snapshot kept in ", "crashsim: state directories kept in "} {
			if p, ok := strings.CutPrefix(l, what); ok {
				kept = append(kept, p)
			}
		}
	}
	if len(kept) != 2 {
		t.Fatalf("want the snapshot and the state directories kept:\n%s", out)
	}
	out = run("--", "sh", "-c", "printf y > f")
	for _, p := range kept {
		if strings.Contains(out, filepath.Dir(p)) {
			t.Errorf("the second run swept %s:\n%s", p, out)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("kept, then: %v", err)
		}
	}
}
