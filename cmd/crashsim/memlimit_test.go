package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// TestMemoryLimitInCgroup runs crashsim check on a trace of 100,000
// unsynced files (all of whose state stays live) in a cgroup that allows
// 150 MB, twice, both times with GOGC=off, so that only a memory limit
// makes the collector run. With the limit main sets from the cgroup, the
// check finishes with its findings (exit 1); with AUTOMEMLIMIT=off, which
// sets no limit, the kernel kills it (it allocates some 280 MB), which
// shows that the first run fits only because of the limit. Left with
// Go's own GOGC the second run peaks near 170 MB, too close to 150 MB to
// be killed every time. It needs root and a cgroup memory controller
// (v1, or v2 with memory delegated below the root) and skips without.
func TestMemoryLimitInCgroup(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds crashsim and runs a 100,000-file check twice")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a cgroup")
	}
	cg := newMemCgroup(t, 150<<20)
	dir := t.TempDir()
	trace := filepath.Join(dir, "files.strace")
	f, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	_, err = gentrace.WriteFileSet(f, gentrace.FileSetOptions{Files: 100000, Seed: 1})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "crashsim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(env ...string) (*os.ProcessState, string) {
		// The shell moves itself into the cgroup, then becomes crashsim,
		// so that nothing crashsim allocates is counted elsewhere.
		cmd := exec.Command("sh", "-c", `echo $$ > "$1" && exec "$2" check --format json "$3" > /dev/null`, "sh", cg.procs, bin, trace)
		// Killed with the test: a test binary killed (a timeout, ^C)
		// leaves no check running in the cgroup, which could then not
		// be removed.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		// The run's own GOGC, GOMEMLIMIT and AUTOMEMLIMIT, none from
		// the test's environment.
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") && !strings.HasPrefix(kv, "AUTOMEMLIMIT=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "GOGC=off")
		cmd.Env = append(cmd.Env, env...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState, stderr.String()
	}
	st, stderr := run()
	if st.ExitCode() != exitFindings {
		t.Fatalf("check in a 150 MB cgroup with GOGC=off: %v, want exit status %d (findings)\n%s", st, exitFindings, stderr)
	}
	st, _ = run("AUTOMEMLIMIT=off")
	if ws, ok := st.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("check in a 150 MB cgroup with GOGC=off and AUTOMEMLIMIT=off: %v, want it killed: then the test shows nothing", st)
	}
}

// memCgroup is a cgroup made for a test, with a memory limit.
type memCgroup struct {
	dir   string
	procs string // the file a process writes its pid to to join it
}

// newMemCgroup makes a cgroup that allows limit bytes of memory, removed
// when the test ends, or skips the test when no memory controller can
// be used.
func newMemCgroup(t *testing.T, limit int64) *memCgroup {
	name := fmt.Sprintf("crashsim-test-%d", os.Getpid())
	var cg memCgroup
	var limitFile string
	switch {
	case exists("/sys/fs/cgroup/memory/memory.limit_in_bytes"):
		cg.dir, limitFile = filepath.Join("/sys/fs/cgroup/memory", name), "memory.limit_in_bytes"
	case hasWord("/sys/fs/cgroup/cgroup.subtree_control", "memory"):
		cg.dir, limitFile = filepath.Join("/sys/fs/cgroup", name), "memory.max"
	default:
		t.Skip("no cgroup memory controller to use (v1 memory, or v2 with memory in the root's subtree_control)")
	}
	removeDeadCgroups(filepath.Dir(cg.dir))
	if err := os.Mkdir(cg.dir, 0o755); err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	t.Cleanup(func() {
		// The processes are gone by now: the tests wait for them.
		if err := os.Remove(cg.dir); err != nil {
			t.Errorf("removing the test's cgroup: %v", err)
		}
	})
	if err := os.WriteFile(filepath.Join(cg.dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		t.Skipf("cannot set the cgroup's memory limit: %v", err)
	}
	if exists(filepath.Join(cg.dir, "memory.swap.max")) {
		// v2: swap would let the second run live on, slowly.
		_ = os.WriteFile(filepath.Join(cg.dir, "memory.swap.max"), []byte("0"), 0o644)
	}
	cg.procs = filepath.Join(cg.dir, "cgroup.procs")
	return &cg
}

// removeDeadCgroups removes the empty cgroups below parent that an
// earlier run of this test made and could not remove: its process was
// killed before its cleanup ran. A cgroup of a test process still alive
// (another run beside this one) is left alone.
func removeDeadCgroups(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "crashsim-test-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "crashsim-test-"))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.Remove(d) // fails, harmlessly, while a process is in it
		}
	}
}

func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func hasWord(name, word string) bool {
	b, err := os.ReadFile(name)
	return err == nil && strings.Contains(" "+strings.Join(strings.Fields(string(b)), " ")+" ", " "+word+" ")
}
