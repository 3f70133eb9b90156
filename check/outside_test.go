package check

import (
	"slices"
	"testing"
)

// A program that saves files both below the roots and elsewhere gets its
// findings for the first only, as the roots ask; a note says the others
// were left out, so that a clean verdict does not hide a save the check
// never looked at. Without roots, or with nothing changed below them
// (blind-root-unmatched says that), there is no note.
func TestNoteOutsideRoots(t *testing.T) {
	const inside = "1 openat(AT_FDCWD, \"/srv/app/a.txt\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"a\", 1) = 1\n1 fsync(3) = 0\n1 close(3) = 0\n"
	const outside = "1 openat(AT_FDCWD, \"/home/u/.config/app.conf\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n1 write(3, \"b\", 1) = 1\n1 close(3) = 0\n"
	const end = "1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, trace string
		roots       []string
		want        bool
	}{
		{"both, with a root", inside + outside + end, []string{"/srv/app"}, true},
		{"inside only", inside + end, []string{"/srv/app"}, false},
		{"no root", inside + outside + end, nil, false},
		{"outside only", outside + end, []string{"/srv/app"}, false},
	} {
		_, notes, _ := blindRun(t, writeTrace(t, c.trace), Options{Roots: c.roots})
		if got := slices.Contains(notes, NoteOutsideRoots); got != c.want {
			t.Errorf("%s: note %s %v, want %v (notes %q)", c.name, NoteOutsideRoots, got, c.want, notes)
		}
	}
}
