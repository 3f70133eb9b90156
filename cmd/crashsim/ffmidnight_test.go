package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckFFSetMidnight: check of an -ff set stamped -tt whose parent
// synced a file at 23:59:58 before its child wrote it at 00:00:00. The
// child's write was merged first, as the earliest line of the run, and
// check said the set was clean (exit 0); it finds the early fsync, as it
// does in noon.*, the same run twelve hours earlier. rename-late.*, whose
// child renames the synced file after midnight, is clean, and is read in
// order.
func TestCheckFFSetMidnight(t *testing.T) {
	dir := filepath.Join("..", "..", "parser", "testdata", "midnight")
	for _, tc := range []struct {
		set  string
		code int
		want string
	}{
		{"fsync-early", exitFindings, "fsync-before-write: /data/app/state"},
		{"noon", exitFindings, "fsync-before-write: /data/app/state"},
		{"rename-late", exitOK, "0 problems"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			out, errs, code := runCLI(t, "check", "--root", "/data/app", filepath.Join(dir, tc.set))
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s%s", code, tc.code, tc.want, out, errs)
			}
			if tc.code == exitFindings && !strings.Contains(out, "data-not-synced") {
				t.Errorf("no data-not-synced for the write after the fsync:\n%s", out)
			}
			out, errs, code = runCLI(t, "events", filepath.Join(dir, tc.set))
			if code != exitOK {
				t.Fatalf("events: exit %d: %s", code, errs)
			}
			first := strings.Fields(strings.SplitN(out, "\n", 2)[0])
			if len(first) == 0 || !strings.HasSuffix(first[0], ".200:1") {
				t.Errorf("events begin with %q, want the parent's first line:\n%s", first, out)
			}
		})
	}
}
