package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// A file renamed from one directory into another: syncing the new
// directory makes its new name durable (fsync(2): syncing the directory
// that holds an entry makes the entry durable), and only syncing both
// makes the move whole. The old name is not given up first: with the new
// directory synced a crash leaves the file under both names or the new
// one; with only the old one synced, under its old name or the new one,
// never under neither once its creation was durable.
func TestCrossDirRenameSyncedInPart(t *testing.T) {
	const move = `1 openat(AT_FDCWD, "/data/tmp/0-0.rev", O_WRONLY|O_CREAT|O_EXCL, 0666) = 3
1 write(3, "rev\n", 4) = 4
1 fdatasync(3) = 0
1 close(3) = 0
1 openat(AT_FDCWD, "/data/tmp", O_RDONLY|O_DIRECTORY) = 4
1 fsync(4) = 0
1 close(4) = 0
1 rename("/data/tmp/0-0.rev", "/data/revs/1") = 0
`
	sync := func(dir string) string {
		return "1 openat(AT_FDCWD, \"" + dir + "\", O_RDONLY|O_DIRECTORY) = 4\n1 fsync(4) = 0\n1 close(4) = 0\n"
	}
	outcomes := func(m *Model, p string) string {
		var s []string
		for _, o := range m.Crash(p, 256).Outcomes {
			s = append(s, string(o))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name, trace, newName, oldName string
	}{
		{"no sync", move, "missing latest", "missing earlier"},
		{"the new directory synced", move + sync("/data/revs"), "latest", "missing earlier"},
		{"the old directory synced", move + sync("/data/tmp"), "missing latest", "missing earlier"},
		{"both synced", move + sync("/data/revs") + sync("/data/tmp"), "latest", "missing"},
		{"both synced, the old one first", move + sync("/data/tmp") + sync("/data/revs"), "latest", "missing"},
	} {
		m := replayTextWith(t, c.trace, parser.Options{}, Options{Persistence: Posix, Existed: func(string) (bool, bool) { return false, true }})
		if got := outcomes(m, "/data/revs/1"); got != c.newName {
			t.Errorf("%s: the new name can be %q, want %q", c.name, got, c.newName)
		}
		if got := outcomes(m, "/data/tmp/0-0.rev"); got != c.oldName {
			t.Errorf("%s: the old name can be %q, want %q", c.name, got, c.oldName)
		}
		// Never under neither name, in the joint states, which the
		// timeline counts as it enumerates them.
		tl := NewTimeline(Options{Persistence: Posix, Existed: func(string) (bool, bool) { return false, true }}, func(string) bool { return true }, 256)
		r := parser.NewReader(strings.NewReader(c.trace), "t.strace", parser.Options{})
		var last Point
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			if pt, ok := tl.Step(ev); ok {
				last = pt
			}
		}
		sp := last.Joint()
		n := int64(0)
		for s := range sp.All {
			n++
			if s.Path("/data/revs/1").Outcome == Missing && s.Path("/data/tmp/0-0.rev").Outcome == Missing {
				t.Errorf("%s: a crash state leaves the file under neither name", c.name)
			}
		}
		if n != sp.Count() || n != last.States {
			t.Errorf("%s: %d joint states enumerated, %d counted, %d at the point", c.name, n, sp.Count(), last.States)
		}
	}
}
