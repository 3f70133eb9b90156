package check

import (
	"runtime/debug"
	"testing"
)

// gcPercent is the collector's percentage now.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLowerGC: the end of a check lowers the collector's percentage and
// puts the process's own back when the last check that overlaps it ends,
// whatever the order; one that is lower already, or off, is left alone.
func TestLowerGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	restoreA := lowerGC()
	if p := gcPercent(); p != endGCPercent {
		t.Fatalf("in a check's end: GOGC %d, want %d", p, endGCPercent)
	}
	restoreB := lowerGC()
	restoreA()
	if p := gcPercent(); p != endGCPercent {
		t.Fatalf("one of two overlapping ends over: GOGC %d, want still %d", p, endGCPercent)
	}
	restoreB()
	if p := gcPercent(); p != 100 {
		t.Fatalf("both ends over: GOGC %d, want the process's 100 back", p)
	}
	for _, own := range []int{-1, 30, endGCPercent} {
		debug.SetGCPercent(own)
		restore := lowerGC()
		if p := gcPercent(); p != own {
			t.Errorf("GOGC %d before: %d in a check's end, want it left alone", own, p)
		}
		restore()
		if p := gcPercent(); p != own {
			t.Errorf("GOGC %d before: %d after, want it back", own, p)
		}
	}
}
