package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestExitCodes pins the exit statuses scripts rely on: 0 clean, 1
// findings, 2 usage, 3 input, 6 a blind spot and no finding.
func TestExitCodes(t *testing.T) {
	fx := "../../fixtures/traces/"
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("\x7fELF\x02\x01\x01\x00\x00"), 0o644)
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"check", fx + "go-atomic/f-ttt-y-xx.strace"}, exitOK},
		{[]string{"check", fx + "python-noflush/f-ttt-y-xx.strace"}, exitFindings},
		{[]string{"check", "--fail-on", "never", fx + "python-noflush/f-ttt-y-xx.strace"}, exitOK},
		{[]string{"check", "--fail-on", "error", fx + "truncate-in-place/f-ttt-y-xx.strace"}, exitOK},
		{[]string{"check", fx + "truncate-in-place/f-ttt-y-xx.strace"}, exitFindings},
		{[]string{"check"}, exitUsage},
		{[]string{"check", "--format", "xml", "x"}, exitUsage},
		{[]string{"check", "--model", "zfs", "x"}, exitUsage},
		{[]string{"nope"}, exitUsage},
		{[]string{"check", filepath.Join(dir, "missing")}, exitInput},
		{[]string{"check", dir}, exitInput},
		{[]string{"check", garbage}, exitInput},
		{[]string{"events", garbage}, exitInput},
		{[]string{"check", "--initial-list", filepath.Join(dir, "missing"), fx + "go-atomic/f-ttt-y-xx.strace"}, exitInput},
		{[]string{"explain", "no-such-rule"}, exitUsage},
		{[]string{"rules"}, exitOK},
		{[]string{"check", fx + "blind-no-calls/trace.strace"}, exitBlind},
		{[]string{"states", fx + "blind-no-calls/trace.strace"}, exitBlind},
		{[]string{"check", "--accept-blind", "blind-no-calls", fx + "blind-no-calls/trace.strace"}, exitOK},
		{[]string{"check", fx + "blind-unknown-fd/trace.strace"}, exitBlind},
		{[]string{"states", fx + "blind-unknown-fd/trace.strace"}, exitBlind},
		{[]string{"check", "--fail-on", "never", fx + "blind-cut-short/trace.strace"}, exitBlind},
		{[]string{"check", "--fail-on", "never", "--accept-blind", "blind-cut-short", fx + "blind-cut-short/trace.strace"}, exitOK},
		{[]string{"states", fx + "blind-cut-short/trace.strace"}, exitBlind},
		{[]string{"check", fx + "blind-failed-only/trace.strace"}, exitBlind},
		{[]string{"check", "--fail-on", "never", fx + "blind-failed-only/trace.strace"}, exitBlind},
		{[]string{"check", "--accept-blind", "blind-failed-only", fx + "blind-failed-only/trace.strace"}, exitOK},
		{[]string{"check", "--accept-blind", "blind-raw-args", fx + "blind-failed-only/trace.strace"}, exitBlind},
		{[]string{"check", "--accept-blind", "no-such", fx + "blind-failed-only/trace.strace"}, exitUsage},
		{[]string{"check", "--cwd", "/tmp/crashsim-fixtures/blind-syscall-filter", fx + "blind-syscall-filter/trace.strace"}, exitFindings},
		{[]string{"states", fx + "blind-raw-args/trace.strace"}, exitBlind},
		{[]string{"states", "--accept-blind", "blind-raw-args", fx + "blind-raw-args/trace.strace"}, exitOK},
		{[]string{"explore", "--checker", "true", "--root", "/tmp/crashsim-fixtures/blind-no-data", fx + "blind-no-data/trace.strace"}, exitBlind},
	}
	for _, tc := range tests {
		_, errs, code := runCLI(t, tc.args...)
		if code != tc.want {
			t.Errorf("crashsim %q: exit %d, want %d (stderr: %s)", tc.args, code, tc.want, errs)
		}
	}
}

// TestExitTable: the exit table under every --help names every status
// crashsim exits with, and the Action's description of its exit-code
// output names every status trace and check give, so that a CI author
// who reads either meets exit 6 before a job fails with it.
func TestExitTable(t *testing.T) {
	listed := map[int]bool{}
	for _, line := range strings.Split(exitTable, "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			if n, err := strconv.Atoi(f[0]); err == nil && line[:2] == "  " && line[2] != ' ' {
				listed[n] = true
			}
		}
	}
	for _, code := range []int{exitOK, exitFindings, exitUsage, exitInput, exitDirect, exitProgram, exitBlind, exitInterrupted} {
		if !listed[code] {
			t.Errorf("the exit table under --help does not list %d:\n%s", code, exitTable)
		}
	}
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, outputs, _ := strings.Cut(string(action), "\noutputs:")
	_, desc, _ := strings.Cut(outputs, "exit-code:")
	desc, _, _ = strings.Cut(desc, "\n    value:")
	for _, code := range []int{exitOK, exitFindings, exitUsage, exitInput, exitProgram, exitBlind} {
		if !regexp.MustCompile(`\b` + strconv.Itoa(code) + ` [a-z]`).MatchString(desc) {
			t.Errorf("action.yml's exit-code output does not say what %d means: %s", code, desc)
		}
	}
}

// TestExploreNamedFromOutside: a hard link (or a rename) that names below
// the root a file from before the trace outside it needs bytes no
// snapshot of the root holds. explore stopped with exit 3 and told the
// user to pass --initial, which cannot help; it is blind-no-data, exit 6,
// as a copy in the kernel from outside the root is.
func TestExploreNamedFromOutside(t *testing.T) {
	dir := t.TempDir()
	root, initial := filepath.Join(dir, "root"), filepath.Join(dir, "initial")
	if err := os.Mkdir(initial, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, call := range []string{"link", "rename"} {
		trace := filepath.Join(dir, call+".strace")
		text := "300 " + call + `("/src/obj", "` + root + `/obj") = 0` + "\n300 exit_group(0) = ?\n300 +++ exited with 0 +++\n"
		if err := os.WriteFile(trace, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs, code := runCLI(t, "explore", "--checker", "true", "--root", root, "--initial", initial, trace)
		if code != exitBlind || !strings.Contains(errs, "blind-no-data: "+call+" named "+root+"/obj the file /src/obj") || strings.Contains(errs, "pass --initial") {
			t.Errorf("%s from outside the root: exit %d, want %d with blind-no-data naming both files (stderr: %s)", call, code, exitBlind, errs)
		}
	}
}
