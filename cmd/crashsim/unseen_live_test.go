package main

import (
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
		trace := filepath.Join(dir, "t.strace")
		args := append([]string{"-f", "-y", "-o", trace}, c.filter...)
		args = append(args, "sqlite3", filepath.Join(dir, "db.sqlite"), sql)
		if out, err := exec.Command("strace", args...).CombinedOutput(); err != nil {
			t.Fatalf("strace %v: %v\n%s", args, err, out)
		}
		_, errs, code := runCLI(t, "check", "--root", dir, trace)
		got := strings.Contains(errs, "warning: blind-unseen-change:")
		if got != c.blind {
			t.Errorf("recorded with %v: blind-unseen-change said %v, want %v (exit %d):\n%s", c.filter, got, c.blind, code, errs)
		}
		if c.blind && !strings.Contains(errs, "db.sqlite at ") {
			t.Errorf("recorded with %v: the warning does not name the database:\n%s", c.filter, errs)
		}
		if !c.blind && strings.Contains(errs, "blind-") {
			t.Errorf("recorded with no filter: a blind spot (exit %d):\n%s", code, errs)
		}
	}
}
