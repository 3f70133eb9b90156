package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAdversarialExploreEnds: after a run, a Ctrl-C or a kill -9 of
// crashsim explore, nothing a checker started is left running, a setsid
// daemon with a clean environment included, nor is anything mounted
// below the run's directories, nor does a cgroup of the run hold a
// process (issue 23). Every process of the test's run carries a marker of
// its own in its environment (the daemon gets it back after env -i), by
// which it is found in /proc: no other process on the machine is looked
// at. As root it runs jailed, and without CAP_SYS_ADMIN (setpriv), as a
// user would.
func TestAdversarialExploreEnds(t *testing.T) {
	bin, err := exec.LookPath("crashsim")
	if err != nil {
		t.Skip("crashsim is not on PATH (TestMain puts it there)")
	}
	if testing.Short() {
		t.Skip("-short: runs explore with checkers that start daemons")
	}
	modes := []struct {
		name   string
		prefix []string
	}{{"as-is", nil}}
	if os.Getuid() == 0 {
		if p, err := exec.LookPath("setpriv"); err == nil {
			modes = append(modes, struct {
				name   string
				prefix []string
			}{"no-sys-admin", []string{p, "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"}})
		}
	}
	for _, m := range modes {
		// SIGHUP: the terminal closed (an ssh session ended).
		for _, end := range []string{"run", "SIGINT", "SIGHUP", "SIGKILL"} {
			t.Run(m.name+"/"+end, func(t *testing.T) {
				exploreEnds(t, bin, m.prefix, end)
			})
		}
	}
}

func exploreEnds(t *testing.T, bin string, prefix []string, end string) {
	var b [8]byte
	rand.Read(b[:])
	mark := "CRASHSIM_TEST_MARK=" + hex.EncodeToString(b[:])
	dir := t.TempDir()
	root, initial, work := filepath.Join(dir, "root"), filepath.Join(dir, "initial"), filepath.Join(dir, "work")
	for _, d := range []string{initial, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	trace := filepath.Join(dir, "t.strace")
	tr := fmt.Sprintf("openat(AT_FDCWD, %q, O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\nwrite(3, \"x\", 1) = 1\nclose(3) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\n", root+"/f")
	if err := os.WriteFile(trace, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	daemon := "setsid env -i " + mark + " sleep 600 </dev/null >/dev/null 2>&1 &"
	checker := daemon + " env " + mark + " sleep 600" // until killed
	if end == "run" {
		checker = daemon + " exit 0"
	}
	args := append(append(prefix, bin, "explore", "--work-dir", work, "--root", root, "--initial", initial,
		"--checker", checker), trace)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), mark)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Whatever happens, nothing of this run outlives the test.
	t.Cleanup(func() {
		cmd.Process.Kill()
		for _, p := range marked(mark) {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})

	cgroups := map[string]bool{}
	var err error
	if end == "run" {
		select {
		case err = <-done:
		case <-time.After(5 * time.Minute):
			t.Fatalf("explore did not end in five minutes: %s", stderr.String())
		}
		if err != nil {
			t.Fatalf("explore: %v: %s", err, stderr.String())
		}
	} else {
		// Under way once both sleeps run: the daemon and the checker's.
		for deadline := time.Now().Add(2 * time.Minute); ; {
			n := 0
			for _, p := range marked(mark) {
				if p.comm == "sleep" {
					n++
				}
				if p.cgroup != "" {
					cgroups[p.cgroup] = true
				}
			}
			if n >= 2 {
				break
			}
			select {
			case err := <-done:
				t.Fatalf("explore ended before its checker ran: %v: %s", err, stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("no checker running after two minutes: %s", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		sig := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGHUP": syscall.SIGHUP, "SIGKILL": syscall.SIGKILL}[end]
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case err = <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("explore did not end two minutes after %v: %s", sig, stderr.String())
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("explore ended with %v after %v", err, sig)
		}
		if sig != syscall.SIGKILL && ee.ExitCode() != exitInterrupted {
			t.Errorf("exit status %d after %v, want %d: %s", ee.ExitCode(), sig, exitInterrupted, stderr.String())
		}
	}

	// What the checker left is killed by the starter or runner (or, once
	// crashsim was killed, by its keeper), which takes a moment after
	// crashsim ended.
	var left []proc
	for deadline := time.Now().Add(30 * time.Second); ; {
		if left = marked(mark); len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range left {
		t.Errorf("left running: pid %d %s (parent %d)", p.pid, p.comm, p.ppid)
	}
	if mi, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		for _, l := range strings.Split(string(mi), "\n") {
			if f := strings.Fields(l); len(f) > 4 && strings.HasPrefix(f[4], dir) {
				t.Errorf("left mounted: %s", l)
			}
		}
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	for cg := range cgroups {
		if strings.Contains(string(self), "::"+cg+"\n") {
			continue // the test's own: explore made none here
		}
		procs, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", cg, "cgroup.procs"))
		if err == nil && len(bytes.TrimSpace(procs)) > 0 {
			t.Errorf("cgroup %s still holds %s", cg, strings.Fields(string(procs)))
		}
	}
}

// proc is a process that carries a test's marker.
type proc struct {
	pid, ppid    int
	comm, cgroup string
}

// marked returns the processes whose environment (as at their execve)
// holds mark.
func marked(mark string) []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+mark+"\x00")) {
			continue
		}
		p := proc{pid: pid}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// pid (comm) state ppid ...
			if i, j := bytes.IndexByte(st, '('), bytes.LastIndexByte(st, ')'); i >= 0 && j > i {
				p.comm = string(st[i+1 : j])
				if f := strings.Fields(string(st[j+1:])); len(f) > 1 {
					if f[0] == "Z" {
						continue // ended, its parent not yet told
					}
					p.ppid, _ = strconv.Atoi(f[1])
				}
			}
		}
		if cg, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup")); err == nil {
			if _, path, ok := strings.Cut(strings.TrimSpace(string(cg)), "::"); ok {
				p.cgroup = path
			}
		}
		out = append(out, p)
	}
	return out
}
