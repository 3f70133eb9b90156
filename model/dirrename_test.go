package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// dirRenameTrace makes a file in a new directory, renames the directory
// into place and fsyncs only the parent: BorgBackup makes its lock and
// its cache's txn.active this way.
const dirRenameTrace = `10 mkdir("/r/d.tmp", 0755) = 0
10 openat(AT_FDCWD, "/r/d.tmp/f", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
10 close(3) = 0
10 rename("/r/d.tmp", "/r/d") = 0
10 openat(AT_FDCWD, "/r", O_RDONLY|O_DIRECTORY) = 4
10 fsync(4) = 0
10 close(4) = 0
`

// TestDirRenameKeepsEntriesPending: an entry made in a directory is
// durable only once that directory is fsynced, whatever its name became
// since. The rename of d.tmp to d and the fsync of /r make d durable, not
// its entry f: under posix d can come back empty, as when d is made with
// its own name (mkdir d; create d/f; fsync /r). btrfs logs /r's entries
// and not those of the new directory d in it, as without the rename; ext4
// and xfs commit every earlier entry op with the rename. The model used to
// move f's name with the rename, which made it durable with it. An fsync
// of d at its new path then makes f durable.
func TestDirRenameKeepsEntriesPending(t *testing.T) {
	existed := func(p string) (bool, bool) { return p == "/r", true }
	syncD := `10 openat(AT_FDCWD, "/r/d", O_RDONLY|O_DIRECTORY) = 5
10 fsync(5) = 0
`
	plain := strings.NewReplacer(`/r/d.tmp`, `/r/d`).Replace(strings.Replace(dirRenameTrace, "10 rename(\"/r/d.tmp\", \"/r/d\") = 0\n", "", 1))
	for _, c := range []struct {
		name, trace string
		p           Persistence
		want        []Outcome
	}{
		{"renamed", dirRenameTrace, Posix, []Outcome{Missing, Latest}},
		{"renamed", dirRenameTrace, Btrfs, []Outcome{Missing, Latest}},
		{"renamed", dirRenameTrace, Ext4, []Outcome{Latest}},
		{"renamed", dirRenameTrace, Xfs, []Outcome{Latest}},
		{"made in place", plain, Posix, []Outcome{Missing, Latest}},
		{"made in place", plain, Btrfs, []Outcome{Missing, Latest}},
		{"renamed, then d synced", dirRenameTrace + syncD, Posix, []Outcome{Latest}},
		{"renamed, then d synced", dirRenameTrace + syncD, Btrfs, []Outcome{Latest}},
	} {
		tl := NewTimeline(Options{Persistence: c.p, Existed: existed}, func(string) bool { return true }, 256)
		tl.checkJoint = true
		var last Point
		rd := parser.NewReader(strings.NewReader(c.trace), "t.strace", parser.Options{})
		for {
			ev, err := rd.Next()
			if err != nil {
				break
			}
			if pt, ok := tl.Step(ev); ok {
				last = pt
			}
		}
		got := tl.Model().Crash("/r/d/f", 256).Outcomes
		if !slices.Equal(got, c.want) {
			t.Errorf("%s, %s: d/f %v, want %v", c.name, c.p, got, c.want)
		}
		// The joint states agree: d can be there without f.
		empty := false
		for s := range last.Joint().All {
			d, dThere := s.Name("/r/d")
			f, fThere := s.Name("/r/d/f")
			if d != nil && dThere && (f == nil || !fThere) {
				empty = true
			}
		}
		if wantEmpty := slices.Contains(c.want, Missing); empty != wantEmpty {
			t.Errorf("%s, %s: a joint state with d and without d/f: %v, want %v", c.name, c.p, empty, wantEmpty)
		}
	}
}
