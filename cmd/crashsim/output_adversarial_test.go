package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/internal/smallfs"
	"golang.org/x/sys/unix"
)

// TestAdversarialOutputInterrupt: crashsim check -o FILE stopped by
// SIGINT, SIGTERM or kill -9 while it writes FILE leaves FILE as it was
// and nothing beside it; it used to leave .FILE.tmp-* (37 MB in issue
// 28's test). strace holds the report's fsync for two seconds, and a
// signal sent while the report is written is taken at the latest when
// that fsync returns, before the report is named. The test knows the
// report is being written when crashsim has a file open in its directory.
func TestAdversarialOutputInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: each case writes a large report and signals crashsim halfway, seconds apiece")
	}
	bin, err := exec.LookPath("crashsim")
	if err != nil {
		t.Skip("crashsim is not on PATH (TestMain puts it there)")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed: it holds the fsync the signal must come before")
	}
	trace, err := filepath.Abs("../../fixtures/traces/python-noflush/f-ttt-y-xx.strace")
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "report.json")
			if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(strace, "-f", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:delay_enter=2000000",
				bin, "check", "--format", "json", "-o", out, trace)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			pid := 0
			for deadline := time.Now().Add(2 * time.Minute); pid == 0; {
				pid = writerIn(cmd.Process.Pid, dir)
				if pid == 0 {
					if time.Now().After(deadline) {
						t.Fatalf("crashsim opened no file in %s in two minutes: %s", dir, stderr.String())
					}
					time.Sleep(time.Millisecond)
				}
			}
			if err := syscall.Kill(pid, sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if b, _ := os.ReadFile(out); string(b) != "old" {
				t.Errorf("report.json holds %.40q, want what it had", b)
			}
			var left []string
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				left = append(left, e.Name())
			}
			if !slices.Equal(left, []string{"report.json"}) {
				t.Errorf("the directory holds %q", left)
			}
		})
	}
}

// writerIn is the process below (or at) pid that has a file open in dir,
// 0 when there is none yet.
func writerIn(pid int, dir string) int {
	for _, p := range descendants(pid) {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p))
		for _, fd := range fds {
			to, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", p, fd.Name()))
			if strings.HasPrefix(to, dir+"/") {
				return p
			}
		}
	}
	return 0
}

// descendants are pid and the processes below it.
func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", out[i]))
		for _, task := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", out[i], task.Name()))
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// TestAdversarialOutputFullDisk: a report that fills its filesystem is
// one error that names the report once (it used to name a temp file), and
// leaves the report's old content and the filesystem as free as before.
func TestAdversarialOutputFullDisk(t *testing.T) {
	bin, err := exec.LookPath("crashsim")
	if err != nil {
		t.Skip("crashsim is not on PATH (TestMain puts it there)")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	trace, err := filepath.Abs("../../fixtures/traces/python-noflush/f-ttt-y-xx.strace")
	if err != nil {
		t.Fatal(err)
	}
	// Enough copies of the trace that their report passes 1 MiB.
	args := []string{"check", "--format", "json", "--fail-on", "never"}
	for range 400 {
		args = append(args, trace)
	}
	// crashsim is started from the thread that sees the mount, into its
	// namespace.
	smallfs.Run(t, "crashsim-output-test", func(dir string) error { return fullDisk(bin, dir, args) })
}

func fullDisk(bin, dir string, args []string) error {
	out := filepath.Join(dir, "report.json")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		return err
	}
	var st0 unix.Statfs_t
	unix.Statfs(dir, &st0)
	cmd := exec.Command(bin, append(args, "-o", out)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInput {
		return fmt.Errorf("exit %v, want status %d; stderr %q", err, exitInput, stderr.String())
	}
	want := "crashsim: write " + out + ": no space left on device\n"
	if stderr.String() != want {
		return fmt.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		return fmt.Errorf("report.json holds %.40q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		return fmt.Errorf("%d entries left in the directory", len(entries))
	}
	var st unix.Statfs_t
	unix.Statfs(dir, &st)
	if st.Bfree != st0.Bfree {
		return fmt.Errorf("%d blocks free after, %d before", st.Bfree, st0.Bfree)
	}
	return nil
}
