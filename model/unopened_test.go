package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestUnopenedParentIsDir: fds the trace never opened, named only by -y
// (a recording whose filter left the opens out), write and sync a file
// and sync its directory. The directory is one in the model, as it is
// when the trace opens the file in it, and the crash points count the
// states they show (the count once took the directory for a file with a
// name below it, and counted one state where two were listed).
func TestUnopenedParentIsDir(t *testing.T) {
	const text = "100 pwrite64(4</d/j>, \"abc\", 3, 0) = 3\n" +
		"100 fdatasync(4</d/j>) = 0\n" +
		"100 fdatasync(5</d>) = 0\n" +
		"100 pwrite64(4</d/j>, \"x\", 1, 0) = 1\n"
	for _, p := range testModels() {
		s := parser.NewReader(strings.NewReader(text), "t.strace", parser.Options{})
		tl := NewTimeline(Options{Persistence: p}, func(string) bool { return true }, 256)
		tl.checkJoint = true // the incremental count against one from scratch
		var last Point
		for {
			ev, err := s.Next()
			if err != nil {
				break
			}
			if pt, ok := tl.Step(ev); ok {
				if n := pt.Joint().Count(); n != pt.States {
					t.Errorf("%s, line %d: %d states enumerated, %d counted", p, pt.Event.Line, n, pt.States)
				}
				last = pt
			}
		}
		if last.Event == nil || last.Event.Line != 4 || last.States != 2 {
			t.Errorf("%s: last point %+v, want line 4 with 2 states (the write or not)", p, last.Event)
		}
		if ino := tl.m.lookup("/d", false); ino == nil || !ino.Dir {
			t.Errorf("%s: /d is %+v, want a directory", p, ino)
		}
	}
}
