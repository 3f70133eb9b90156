package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnseenChangeSQLite: sqlite3 recorded with -e trace=!pwrite64 writes
// its pages unseen, while the rows it prints keep write calls in the
// trace, so the filter shows in no count of calls. SQLite stats its
// database, and the stat shows pages the trace never wrote: check says
// blind-unseen-change. Recorded without the filter, the same run has no
// blind spot.
func TestUnseenChangeSQLite(t *testing.T) {
	needStrace(t)
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 is not installed")
	}
	const sql = "create table t(x); insert into t values(1); insert into t values(2); select * from t;"
	for _, c := range []struct {
		filter []string
		blind  bool
	}{
		{[]string{"-e", "trace=!pwrite64"}, true},
		{nil, false},
	} {
		dir := t.TempDir()
		errs, code := recordAndCheck(t, dir, append([]string{"-y"}, c.filter...), "sqlite3", filepath.Join(dir, "db.sqlite"), sql)
		got := strings.Contains(errs, "warning: blind-unseen-change:")
		if got != c.blind {
			t.Errorf("recorded with %v: blind-unseen-change said %v, want %v (exit %d):\n%s", c.filter, got, c.blind, code, errs)
		}
		// The first call to show the change is SQLite's read of its header
		// or its stat, by version: each names the database.
		if c.blind && !strings.Contains(errs, "db.sqlite at ") && !strings.Contains(errs, "db.sqlite up to byte ") {
			t.Errorf("recorded with %v: the warning does not name the database:\n%s", c.filter, errs)
		}
		if !c.blind && strings.Contains(errs, "blind-") {
			t.Errorf("recorded with no filter: a blind spot (exit %d):\n%s", code, errs)
		}
	}
}

// TestUnseenChangeReadBack records a shell that rewrites a file, then dd
// and head reading it back, with the shell's write filtered out
// (-e trace=!write). Neither reader stats the file: what shows the change
// is dd's and head's reads, which return bytes past the empty file the
// trace's calls leave. Without the filter, no blind spot.
func TestUnseenChangeReadBack(t *testing.T) {
	needStrace(t)
	for _, c := range []struct {
		filter []string
		blind  bool
	}{
		{[]string{"-e", "trace=!write"}, true},
		{nil, false},
	} {
		dir := t.TempDir()
		f := filepath.Join(dir, "log")
		if err := os.WriteFile(f, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		script := fmt.Sprintf("printf abcdef > %[1]s; dd if=%[1]s of=/dev/null status=none; head -c 3 %[1]s >/dev/null", f)
		errs, code := recordAndCheck(t, dir, c.filter, "sh", "-c", script)
		got := strings.Contains(errs, "warning: blind-unseen-change: this read returns bytes of "+f+" up to byte 6")
		if got != c.blind {
			t.Errorf("recorded with %v: blind-unseen-change on a read said %v, want %v (exit %d):\n%s", c.filter, got, c.blind, code, errs)
		}
		if c.blind && code != 6 {
			t.Errorf("recorded with %v: exit %d, want 6 (a blind spot, no finding):\n%s", c.filter, code, errs)
		}
		if !c.blind && strings.Contains(errs, "blind-") {
			t.Errorf("recorded with no filter: a blind spot (exit %d):\n%s", code, errs)
		}
	}
}

// recordAndCheck records command under strace -f with the flags given
// into dir, then checks the trace with dir as the root, and returns what
// check said on stderr and its exit status.
func recordAndCheck(t *testing.T, dir string, flags []string, command ...string) (string, int) {
	t.Helper()
	trace := filepath.Join(dir, "t.strace")
	args := append(append([]string{"-f", "-o", trace}, flags...), command...)
	if out, err := exec.Command("strace", args...).CombinedOutput(); err != nil {
		t.Fatalf("strace %v: %v\n%s", args, err, out)
	}
	_, errs, code := runCLI(t, "check", "--root", dir, trace)
	return errs, code
}

// TestFilteredAppendToNewFile records a shell that appends to a file that
// is not there yet, then cat reading it, with every write filtered out
// (-e trace=!write). Without a listing the trace cannot say whether the
// shell made the file: cat's read of data the trace never wrote says it
// was there before, unchanged, which checked clean. The trace has not one
// write, so check now says the filter may have hidden them (exit 6).
// Without the filter: a finding for the new file, no blind spot.
func TestFilteredAppendToNewFile(t *testing.T) {
	needStrace(t)
	for _, c := range []struct {
		filter []string
		blind  bool
	}{
		{[]string{"-e", "trace=!write"}, true},
		{nil, false},
	} {
		dir := t.TempDir()
		f := filepath.Join(dir, "log")
		errs, code := recordAndCheck(t, dir, c.filter, "sh", "-c", fmt.Sprintf("printf abcdef >> %[1]s; cat %[1]s", f))
		got := strings.Contains(errs, "warning: blind-syscall-filter: "+f+" holds data here")
		if got != c.blind || c.blind && code != 6 {
			t.Errorf("recorded with %v: blind-syscall-filter on the log said %v, want %v (exit %d):\n%s", c.filter, got, c.blind, code, errs)
		}
		if !c.blind && (strings.Contains(errs, "blind-") || code != 1) {
			t.Errorf("recorded with no filter: exit %d, want 1 (the new log is not synced) and no blind spot:\n%s", code, errs)
		}
	}
}
