package model

import (
	"math"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestJointStampWraps: jointCount marks names with a stamp that counts
// its calls in 32 bits; when it comes round, the marks of earlier calls
// must go, else a name marked by the first call reads as marked by the
// first call after the wrap. Two calls on different files, the second
// after the wrap, must count what the second alone counts and leave only
// its own names marked.
func TestJointStampWraps(t *testing.T) {
	const trace = `1 mkdir("/d", 0755) = 0
1 openat(AT_FDCWD, "/d/a", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
1 write(3, "aa", 2) = 2
1 close(3) = 0
1 openat(AT_FDCWD, "/d/b", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
1 write(3, "bbb", 3) = 3
1 close(3) = 0
1 rename("/d/b", "/d/c") = 0
`
	replay := func() *Model { return replayText(t, trace, parser.Options{}) }
	outcomes := func(m *Model, ps ...string) map[string]PathOutcomes {
		out := map[string]PathOutcomes{}
		for _, p := range ps {
			out[p] = m.Crash(p, 256)
		}
		return out
	}
	fresh := replay()
	wantN, wantE, wantX := fresh.jointCount(outcomes(fresh, "/d/c"))

	m := replay()
	m.jointCount(outcomes(m, "/d/a", "/d/b"))
	m.jointStamp = math.MaxInt32
	gotN, gotE, gotX := m.jointCount(outcomes(m, "/d/c"))
	if gotN != wantN || gotE != wantE || gotX != wantX {
		t.Fatalf("after the stamp wrapped: %d states (%d explored, exact %v), want %d (%d, %v)", gotN, gotE, gotX, wantN, wantE, wantX)
	}
	if m.jointStamp != 1 {
		t.Fatalf("stamp %d after the wrap, want 1", m.jointStamp)
	}
	// The second call marked /d/c alone: the first call's marks (stamp 1
	// too) must be gone.
	for p, n := range m.names {
		if marked := n.touched == m.jointStamp; marked != (p == "/d/c") {
			t.Errorf("%s marked %v after the wrap", p, marked)
		}
	}
}
