package model

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestTimelineDirDurableDeepBelow: a directory whose entry becomes
// durable changes the outcomes of every name below it, not only of its
// children: /w/a/b/f can be missing until /w/a's entry is durable, and
// the point after the fsync of /w lists it among the changed with the
// outcomes a crash can now leave (not "missing" any more).
func TestTimelineDirDurableDeepBelow(t *testing.T) {
	text := `mkdir("/w/a", 0777) = 0
mkdir("/w/a/b", 0777) = 0
openat(AT_FDCWD, "/w/a/b/f", O_WRONLY|O_CREAT, 0666) = 3
write(3, "x", 1) = 1
fsync(3) = 0
close(3) = 0
openat(AT_FDCWD, "/w/a/b", O_RDONLY|O_DIRECTORY) = 4
fsync(4) = 0
close(4) = 0
openat(AT_FDCWD, "/w/a", O_RDONLY|O_DIRECTORY) = 4
fsync(4) = 0
close(4) = 0
openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 4
fsync(4) = 0
close(4) = 0
`
	tl, last := replayToLast(t, text, Options{Persistence: Posix}, 256)
	if last.Event == nil || last.Event.Line != 14 {
		t.Fatalf("the last crash point is after %+v, want line 14 (the fsync of /w)", last.Event)
	}
	const f = "/w/a/b/f"
	if _, ok := slices.BinarySearch(last.Changed, f); !ok {
		t.Errorf("after the fsync of /w: changed %v, want %s among them", last.Changed, f)
	}
	po, _ := last.Outcome(f)
	if want := tl.m.Crash(f, 256); !slices.Equal(po.Outcomes, want.Outcomes) {
		t.Errorf("%s: %v, a crash now leaves %v", f, po.Outcomes, want.Outcomes)
	}
	if slices.Contains(po.Outcomes, Missing) {
		t.Errorf("%s can still be missing: %v", f, po.Outcomes)
	}
}

// TestInitialPath: a link the trace makes to a file that existed names
// the file's first path, for the oracle to compare an "as it was before
// the run" outcome at the new name with; a file the trace made has none.
func TestInitialPath(t *testing.T) {
	text := "link(\"/d/status\", \"/d/status-old\") = 0\n" +
		"openat(AT_FDCWD, \"/d/new\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n" +
		"link(\"/d/new\", \"/d/new-old\") = 0\n"
	_, last := replayToLast(t, text, Options{Existed: func(p string) (bool, bool) { return p == "/d" || p == "/d/status", true }}, 1<<10)
	got := map[string]string{}
	for p, po := range last.All() {
		for _, st := range po.States {
			if st.Outcome == Initial || st.Outcome == Latest {
				got[p] = last.InitialPath(st.Inode)
			}
		}
	}
	if got["/d/status-old"] != "/d/status" {
		t.Errorf("status-old: initial path %q, want /d/status", got["/d/status-old"])
	}
	if got["/d/new-old"] != "" {
		t.Errorf("new-old: initial path %q, want none", got["/d/new-old"])
	}
}

// TestPointUnmodeled: a file mapped shared and writable is changed out of
// the trace's sight, which the oracle asks of a point; a file written with
// write is not.
func TestPointUnmodeled(t *testing.T) {
	text := "openat(AT_FDCWD, \"/d/lock\", O_RDWR|O_CREAT, 0644) = 3\n" +
		"ftruncate(3, 8192) = 0\n" +
		"mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000\n" +
		"openat(AT_FDCWD, \"/d/data\", O_WRONLY|O_CREAT, 0644) = 4\n" +
		"write(4, \"x\", 1) = 1\n"
	_, last := replayToLast(t, text, Options{Existed: func(p string) (bool, bool) { return p == "/d", true }}, 1<<10)
	got := map[string]bool{}
	for p, po := range last.All() {
		for _, st := range po.States {
			if st.Outcome != Missing {
				got[p] = got[p] || last.Unmodeled(st.Inode)
			}
		}
	}
	if !got["/d/lock"] || got["/d/data"] {
		t.Errorf("unmodeled: lock %v, data %v; want true, false", got["/d/lock"], got["/d/data"])
	}
}

// replayToLast replays the trace text on a timeline under opt, every path
// in scope, and returns it with its last crash point.
func replayToLast(t *testing.T, text string, opt Options, pathStates int) (*Timeline, Point) {
	t.Helper()
	tl := NewTimeline(opt, func(string) bool { return true }, pathStates)
	rd := parser.NewReader(strings.NewReader(text), "t.strace", parser.Options{})
	var last Point
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return tl, last
		}
		if err != nil {
			t.Fatal(err)
		}
		if pt, ok := tl.Step(ev); ok {
			last = pt
		}
	}
}
