package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/parser"
)

// TestJointIncrementalEqualsScratch: the joint state count a timeline keeps
// step by step equals jointCount over every path, from scratch, at every
// crash point of every fixture trace (with and without its listing), a
// many-files trace and a trace of repeated saves, under every model.
func TestJointIncrementalEqualsScratch(t *testing.T) {
	for _, in := range timelineInputs(t) {
		for _, p := range testModels() {
			s, err := in.open()
			if err != nil {
				t.Fatal(err)
			}
			opt := in.options(p)
			tl := NewTimeline(opt, func(p string) bool { return !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/") }, 256)
			tl.checkJoint = true
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s under %s: %v", in.name, p, r)
					}
				}()
				for {
					ev, err := s.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						break // the fixtures of bad input end here
					}
					tl.Step(ev)
				}
			}()
			s.Close()
		}
	}
}

// timelineInputs are the traces a timeline's tests replay: every fixture
// trace (with and without its listing), a many-files trace, a trace of
// repeated saves and a renamed directory with a name on the way below.
func timelineInputs(t *testing.T) []traceInput {
	inputs := fixtureInputs(t)
	var files bytes.Buffer
	if _, err := gentrace.WriteFiles(&files, gentrace.FilesOptions{Files: 300, PerDir: 40}); err != nil {
		t.Fatal(err)
	}
	var saves strings.Builder
	for i := 0; i < 300; i++ {
		p := fmt.Sprintf("/data/app/f%d", i%7)
		fmt.Fprintf(&saves, "openat(AT_FDCWD, \"%s.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\nwrite(3, \"save %d\\n\", 7) = 7\n", p, i%10)
		if i%3 != 0 {
			saves.WriteString("fsync(3) = 0\n")
		}
		fmt.Fprintf(&saves, "close(3) = 0\nrename(\"%s.tmp\", \"%s\") = 0\n", p, p)
		if i%11 == 10 {
			saves.WriteString("openat(AT_FDCWD, \"/data/app\", O_RDONLY|O_DIRECTORY) = 4\nfsync(4) = 0\nclose(4) = 0\n")
		}
	}
	// A rename moves a name whose parent the count knows only as a
	// directory on the way to it (/w/c/a, on the way to /w/c/a/a):
	// FuzzRefinement found the count failing there.
	waypoint := "1 mkdir(\"/w/a/a\", 0777) = 0\n1 rmdir(\"/w/a/a/a\") = 0\n1 rmdir(\"/w/a/a\") = 0\n1 rename(\"/w/a\", \"/w/c\") = 0\n"
	// Directories renamed into place with names made in them and not
	// synced, which stay pending apart from the rename (renameTree): a
	// nested directory, a rename within, a file moved in from outside, a
	// lock taken and released twice under one name.
	dirren := dirRenameTrace + `10 mkdir("/r/t", 0755) = 0
10 mkdir("/r/t/s", 0755) = 0
10 openat(AT_FDCWD, "/r/t/s/g", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
10 write(3, "gg", 2) = 2
10 close(3) = 0
10 rename("/r/t/s/g", "/r/t/s/h") = 0
10 openat(AT_FDCWD, "/r/x", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
10 close(3) = 0
10 rename("/r/x", "/r/t/x") = 0
10 rename("/r/t", "/r/u") = 0
10 openat(AT_FDCWD, "/r/u/s", O_RDONLY|O_DIRECTORY) = 4
10 fsync(4) = 0
10 close(4) = 0
10 unlink("/r/d/f") = 0
10 rmdir("/r/d") = 0
10 mkdir("/r/d.tmp", 0755) = 0
10 openat(AT_FDCWD, "/r/d.tmp/f", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
10 close(3) = 0
10 rename("/r/d.tmp", "/r/d") = 0
10 rename("/r/u", "/r/v") = 0
`
	for name, text := range map[string]string{"files": files.String(), "saves": saves.String(), "waypoint": waypoint, "journaled": journaledTrace(), "dirrename": dirren, "manywrites": manyWritesTrace()} {
		text := text
		inputs = append(inputs, traceInput{name, func() (parser.Stream, error) {
			return parser.NewReader(strings.NewReader(text), name, parser.Options{}), nil
		}, nil})
	}
	return inputs
}

// A file with two names, both durable, appended to: the count takes the
// inode's states once, as they are after the append. It took them as
// they were when the second name came (one state), though both names'
// outcomes changed.
func TestJointCountHardLinkGrows(t *testing.T) {
	text := strings.Join([]string{
		`openat(AT_FDCWD, "/j/f0", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "one\n", 4) = 4`,
		`fsync(3) = 0`,
		`link("/j/f0", "/j/h0") = 0`,
		`openat(AT_FDCWD, "/j", O_RDONLY|O_DIRECTORY) = 4`,
		`fsync(4) = 0`,
		`openat(AT_FDCWD, "/j/journal", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 5`,
		`write(3, "more", 4) = 4`,
	}, "\n") + "\n"
	tl, last := replayToLast(t, text, Options{Persistence: Posix, Existed: func(p string) (bool, bool) { return p == "/j", true }}, 256)
	s, e, x := tl.m.jointCount(last.All())
	// The journal there or not, times f0's three states (none, all, its
	// size without its data).
	if last.States != 6 || s != 6 || e != last.Explored || x != last.Exact {
		t.Errorf("incremental %d of %d (exact %v), from scratch %d of %d (exact %v); want 6 states", last.Explored, last.States, last.Exact, e, s, x)
	}
}

// TestJointCountLeftOutPastTheBound: 70 synced files, then a directory
// made, and each file renamed, unlinked and appended to through its fd.
// Each name's own cuts leave the append out of its states
// (PathOutcomes.leftOut), so no explored state changes a size; the
// counts must still take the 70 paths for paths a cut constrains, and
// the count from scratch past jointCutPaths say "at least" as the
// timeline's does.
func TestJointCountLeftOutPastTheBound(t *testing.T) {
	var b strings.Builder
	for i := range 70 {
		fmt.Fprintf(&b, "1 openat(AT_FDCWD</w>, \"/w/f%d\", O_WRONLY|O_CREAT|O_EXCL, 0644) = %d</w/f%d>\n", i, 10+i, i)
		fmt.Fprintf(&b, "1 write(%d</w/f%d>, \"ab\", 2) = 2\n", 10+i, i)
		fmt.Fprintf(&b, "1 fsync(%d</w/f%d>) = 0\n", 10+i, i)
	}
	b.WriteString("1 openat(AT_FDCWD</w>, \"/w\", O_RDONLY|O_DIRECTORY) = 3</w>\n1 fsync(3</w>) = 0\n1 close(3</w>) = 0\n")
	b.WriteString("1 mkdir(\"/w/x\", 0777) = 0\n")
	for i := range 70 {
		fmt.Fprintf(&b, "1 rename(\"/w/f%d\", \"/w/g%d\") = 0\n", i, i)
		fmt.Fprintf(&b, "1 unlink(\"/w/g%d\") = 0\n", i)
		fmt.Fprintf(&b, "1 write(%d</w/g%d (deleted)>, \"cd\", 2) = 2\n", 10+i, i)
	}
	tl := NewTimeline(Options{Persistence: Ext4, Existed: func(q string) (bool, bool) { return q == "/w", true }}, func(string) bool { return true }, 256)
	tl.checkJoint = true
	defer func() {
		if r := recover(); r != nil {
			t.Fatal(r)
		}
	}()
	left := false
	for _, ev := range traceEvents(t, b.String(), "leftout") {
		if pt, ok := tl.Step(ev); ok {
			po, _ := pt.Outcome("/w/f0")
			left = len(po.leftOut) > 0
		}
	}
	if !left {
		t.Fatal("/w/f0 left no state out: the trace no longer tests what it is for")
	}
}

// TestJointCountPendingRenames: on a trace whose every crash point
// enumerates the subsets of pending renames into a directory that is
// itself pending (the shape of pendingRenames in bench_test.go), with a
// file hanging below that directory, the incremental count equals
// the count from scratch at every point, and it is exact.
func TestJointCountPendingRenames(t *testing.T) {
	var b strings.Builder
	b.WriteString("1 mkdir(\"/w/d\", 0755) = 0\n")
	// A file whose name is durable in /w/d, which is not in /w, with an
	// unsynced write: it hangs below /w/d with states of its own.
	b.WriteString("1 openat(AT_FDCWD, \"/w/d/keep\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 5\n1 write(5, \"k\", 1) = 1\n1 fsync(5) = 0\n1 write(5, \"more\", 4) = 4\n1 close(5) = 0\n")
	b.WriteString("1 openat(AT_FDCWD, \"/w/d\", O_RDONLY|O_DIRECTORY) = 5\n1 fsync(5) = 0\n1 close(5) = 0\n")
	for i := range 4 {
		fmt.Fprintf(&b, "1 openat(AT_FDCWD, \"/w/t%d\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 6\n1 write(6, \"ab\", 2) = 2\n1 fsync(6) = 0\n1 close(6) = 0\n", i)
		fmt.Fprintf(&b, "1 rename(\"/w/t%d\", \"/w/d/b%d\") = 0\n", i, i)
	}
	b.WriteString("1 link(\"/w/d/b0\", \"/w/d/c0\") = 0\n")
	b.WriteString("1 openat(AT_FDCWD, \"/w/d/log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 7\n")
	for range 20 {
		b.WriteString("1 write(7, \"xyz\", 3) = 3\n1 fdatasync(7) = 0\n")
	}
	for _, p := range testModels() {
		tl := NewTimeline(Options{Persistence: p, Existed: func(q string) (bool, bool) { return q == "/w", true }}, func(string) bool { return true }, 256)
		tl.Summarize()
		tl.checkJoint = true
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("under %s: %v", p, r)
				}
			}()
			n := 0
			for _, ev := range traceEvents(t, b.String(), "pendingrenames") {
				if pt, ok := tl.Step(ev); ok {
					n++
					if p == Posix && pt.States <= 1 {
						t.Errorf("under posix after line %d: %d joint states, want more", ev.Pos.Line, pt.States)
					}
				}
			}
			if n < 40 {
				t.Errorf("under %s: %d crash points, want at least 40", p, n)
			}
		}()
	}
}
