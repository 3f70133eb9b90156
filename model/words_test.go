package model

import "testing"

// A file left as it was, or gone, says nothing of writes that did not
// persist; a file left empty or torn says which of them did.
func TestStateWordsPersisted(t *testing.T) {
	file := &Inode{ID: 7, Size: 21, pending: []DataOp{{Len: 21, Size: 21}}}
	for _, c := range []struct {
		s    PathState
		want string
	}{
		{PathState{Outcome: Initial, Inode: 7, Persisted: "none"}, "as it was before the run"},
		{PathState{Outcome: Missing, Inode: 7, Persisted: "none"}, "missing"},
		{PathState{Outcome: Empty, Inode: 7, Persisted: "none"}, "empty (none of its pending writes persisted)"},
		{PathState{Outcome: Latest, Inode: 7, Persisted: "all"}, "as the program saw it then (all of its pending writes persisted)"},
		{PathState{Outcome: Torn, Inode: 7, Persisted: "line 4 torn after 10 bytes"}, "torn (some of its new data on disk, some not) (line 4 torn after 10 bytes persisted)"},
	} {
		if got := stateWords(c.s, file); got != c.want {
			t.Errorf("stateWords(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
	// A file with no write pending (a temp file synced, then renamed):
	// none or all of nothing is not said.
	synced := &Inode{ID: 8, Size: 21}
	for _, c := range []struct {
		s    PathState
		want string
	}{
		{PathState{Outcome: Earlier, Inode: 8, Persisted: "none"}, "with an earlier version the program wrote"},
		{PathState{Outcome: Latest, Inode: 8, Persisted: "all"}, "as the program saw it then"},
	} {
		if got := stateWords(c.s, synced); got != c.want {
			t.Errorf("no write pending: stateWords(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}
