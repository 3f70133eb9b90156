package model_test

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/google/go-cmp/cmp"
)

// lastPoint replays a trace held in a string under persistence p, every
// path below /w in scope, and returns the last crash point.
func lastPoint(t *testing.T, trace string, p model.Persistence) model.Point {
	t.Helper()
	tl := model.NewTimeline(model.Options{Persistence: p}, func(s string) bool { return strings.HasPrefix(s, "/w/") }, 1<<16)
	var last model.Point
	for _, ev := range parseTrace(t, trace) {
		if pt, ok := tl.Step(ev); ok {
			last = pt
		}
	}
	return last
}

func outcomeSets(pt model.Point) map[string]string {
	out := map[string]string{}
	for p, po := range pt.All() {
		out[p] = join(po.Outcomes)
	}
	return out
}

// The Python save: makedirs("d"), then files in d with an fsync of
// d after each. Under posix d's own name is never durable (its parent is
// never synced), so every file below it can be missing, and the states
// are counted jointly: d missing is one state, not one per file content.
const makedirsTrace = `1 openat(AT_FDCWD</w>, "/lib/libc.so.6", O_RDONLY|O_CLOEXEC) = 3</lib/libc.so.6>
1 mkdir("d", 0777) = 0
1 openat(AT_FDCWD</w>, "d/f0", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3</w/d/f0>
1 write(3</w/d/f0>, "x", 1) = 1
1 close(3</w/d/f0>) = 0
1 openat(AT_FDCWD</w>, "d", O_RDONLY|O_CLOEXEC) = 3</w/d>
1 fsync(3</w/d>) = 0
1 close(3</w/d>) = 0
1 openat(AT_FDCWD</w>, "d/f1", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3</w/d/f1>
1 write(3</w/d/f1>, "x", 1) = 1
1 close(3</w/d/f1>) = 0
1 openat(AT_FDCWD</w>, "d", O_RDONLY|O_CLOEXEC) = 3</w/d>
1 fsync(3</w/d>) = 0
1 close(3</w/d>) = 0
`

func TestNamesLiveInATree(t *testing.T) {
	pt := lastPoint(t, makedirsTrace, model.Posix)
	want := map[string]string{
		"/w/d":    "missing latest",
		"/w/d/f0": "missing latest empty zeros",
		"/w/d/f1": "missing latest empty zeros",
	}
	if diff := cmp.Diff(want, outcomeSets(pt)); diff != "" {
		t.Errorf("posix outcomes (-want +got):\n%s", diff)
	}
	for _, p := range []string{"/w/d/f0", "/w/d/f1"} {
		gone := ""
		for _, s := range pt.All()[p].States {
			if s.Outcome == model.Missing {
				gone = s.Gone
			}
		}
		if gone != "/w/d" {
			t.Errorf("%s: missing because of %q, want /w/d", p, gone)
		}
	}
	// d missing (1), or d there with two files of three contents each
	// (9): not the 2·4·4 a product of the paths would count.
	if pt.States != 10 || !pt.Exact {
		t.Errorf("states = %d (exact %v), want exactly 10", pt.States, pt.Exact)
	}
	// ext4 commits the mkdir with the first directory fsync.
	pt = lastPoint(t, makedirsTrace, model.Ext4)
	want = map[string]string{
		"/w/d":    "latest",
		"/w/d/f0": "latest empty zeros",
		"/w/d/f1": "latest empty zeros",
	}
	if diff := cmp.Diff(want, outcomeSets(pt)); diff != "" {
		t.Errorf("ext4 outcomes (-want +got):\n%s", diff)
	}
}

// A directory renamed over an empty one: until the rename is durable the
// file is at its old path and the new path holds the old directory; the
// two paths of the file are never both there in one state.
func TestRenamedDirectory(t *testing.T) {
	trace := `1 mkdir("/w/new", 0777) = 0
1 openat(AT_FDCWD</w>, "/w/new/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</w/new/f>
1 write(3</w/new/f>, "x", 1) = 1
1 fsync(3</w/new/f>) = 0
1 openat(AT_FDCWD</w>, "/w/new", O_RDONLY) = 4</w/new>
1 fsync(4</w/new>) = 0
1 openat(AT_FDCWD</w>, "/w/cur", O_RDONLY|O_DIRECTORY) = 5</w/cur>
1 rename("/w/new", "/w/cur") = 0
`
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		pt := lastPoint(t, trace, p)
		want := map[string]string{
			"/w/new":   "missing earlier",
			"/w/new/f": "missing earlier",
			"/w/cur":   "initial latest",
			"/w/cur/f": "missing latest",
		}
		got := outcomeSets(pt)
		delete(got, "/w")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s outcomes (-want +got):\n%s", p, diff)
		}
	}
}
