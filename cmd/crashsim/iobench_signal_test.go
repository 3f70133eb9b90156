package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAdversarialIobenchSignal: Ctrl-C or SIGTERM in the middle of a run
// stops iobench with exit status 130 and the files it made removed; they
// used to stay, and a create mode's FILE.d with them (issue 28). Each run
// is long enough (a million files, 256 MiB in fdatasynced blocks) that
// only the signal ends it.
func TestAdversarialIobenchSignal(t *testing.T) {
	bin, err := exec.LookPath("crashsim")
	if err != nil {
		t.Skip("crashsim is not on PATH (TestMain puts it there)")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"--mode", "create-file", "--count", "1000000"}},
		{syscall.SIGTERM, []string{"--mode", "create-rename", "--count", "1000000"}},
		{syscall.SIGTERM, []string{"--mode", "fsync-every", "--every", "1", "--size-mb", "256"}},
		{syscall.SIGINT, []string{"--mode", "replace-atomic", "--count", "1000000"}},
	} {
		t.Run(tc.args[1]+"/"+tc.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, append(append([]string{"iobench"}, tc.args...), "bench.bin")...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The run is under way once it has made its first file.
			for deadline := time.Now().Add(2 * time.Minute); ; {
				if entries, _ := os.ReadDir(dir); len(entries) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no file after two minutes: %s", stderr.String())
				}
				time.Sleep(time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Errorf("exit: %v, want status %d", err, exitInterrupted)
			}
			if !strings.Contains(stderr.String(), "interrupted: the files this run made are removed") {
				t.Errorf("stderr %q, want it to say the run was interrupted", stderr.String())
			}
			entries, _ := os.ReadDir(dir)
			var left []string
			for _, e := range entries {
				left = append(left, e.Name())
			}
			if len(left) > 0 {
				t.Errorf("left %q", left)
			}
		})
	}
}
