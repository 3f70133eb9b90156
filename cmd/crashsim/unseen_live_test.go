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
// trace's calls leave.
func TestUnseenChangeReadBack(t *testing.T) {
	writeFilterShows(t, []byte("old\n"),
		"printf abcdef > %[1]s; dd if=%[1]s of=/dev/null status=none; head -c 3 %[1]s >/dev/null",
		"warning: blind-unseen-change: this read returns bytes of %s up to byte 6")
}

// TestFilteredAppendToNewFile records a shell that appends to a file that
// is not there yet, then cat reading it, with every write filtered out
// (-e trace=!write). Without a listing the trace cannot say whether the
// shell made the file: cat's read of data the trace never wrote says it
// was there before, unchanged, which checked clean. The trace has not one
// write, so check now says the filter may have hidden them.
func TestFilteredAppendToNewFile(t *testing.T) {
	writeFilterShows(t, nil, "printf abcdef >> %[1]s; cat %[1]s", "warning: blind-syscall-filter: %s holds data here")
}

// writeFilterShows records sh -c script (%[1]s is a file, holding old
// before the run unless old is nil) twice: under -e trace=!write, where
// check must say warning (%s is the file) and exit 6, and without the
// filter, where it must say no blind spot and exit 1 (the file's new data
// is not synced).
func writeFilterShows(t *testing.T, old []byte, script, warning string) {
	needStrace(t)
	for _, filter := range [][]string{{"-e", "trace=!write"}, nil} {
		dir := t.TempDir()
		f := filepath.Join(dir, "log")
		if old != nil {
			if err := os.WriteFile(f, old, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		errs, code := recordAndCheck(t, dir, filter, "sh", "-c", fmt.Sprintf(script, f))
		if filter != nil && (code != 6 || !strings.Contains(errs, fmt.Sprintf(warning, f))) {
			t.Errorf("recorded with %v: exit %d, want 6 and %q:\n%s", filter, code, fmt.Sprintf(warning, f), errs)
		}
		if filter == nil && (code != 1 || strings.Contains(errs, "blind-")) {
			t.Errorf("recorded with no filter: exit %d, want 1 (the data is not synced) and no blind spot:\n%s", code, errs)
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
