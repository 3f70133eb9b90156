package model

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestLeanTimelineEqualsFull: a lean timeline (Lean), which keeps no
// path's outcome set and works them out again when asked, gives every
// crash point as a timeline that keeps them all does: the changed paths,
// their sets, the moved ones, the counts, every path's set (All, which
// Joint reads), and a path the point did not change (Outcome), at every
// point of every fixture trace under every model. A path whose
// outcome set changed without the step listing it among the changed
// would be kept stale by one and worked out again by the other.
func TestLeanTimelineEqualsFull(t *testing.T) {
	againstFull(t, (*Timeline).Lean, samePoint)
}

// againstFull replays every fixture trace under every model through a
// full timeline and one that set makes otherwise, each from a stream of
// its own, and reports what same finds between their points
// (sameSteps).
func againstFull(t *testing.T, set func(*Timeline), same func(f, o Point) error) {
	t.Helper()
	scope := func(p string) bool { return !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/") }
	for _, in := range timelineInputs(t) {
		for _, p := range testModels() {
			streams := make([]parser.Stream, 2)
			for i := range streams {
				s, err := in.open()
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				streams[i] = s
			}
			full := NewTimeline(in.options(p), scope, 256)
			other := NewTimeline(in.options(p), scope, 256)
			set(other)
			if err := sameSteps(streams[0], streams[1], full, other, same); err != nil {
				t.Errorf("%s under %s: %v", in.name, p, err)
			}
		}
	}
}

// sameSteps steps full and other through their streams, event by event,
// and compares each pair of points with same: both timelines must make a
// point at the same events.
func sameSteps(fs, os parser.Stream, full, other *Timeline, same func(f, o Point) error) error {
	for {
		fe, ferr := fs.Next()
		oe, oerr := os.Next()
		if ferr != nil || oerr != nil {
			// The fixtures of bad input end at an error.
			if (ferr == nil) != (oerr == nil) {
				return fmt.Errorf("the streams end apart: %v, %v", ferr, oerr)
			}
			return nil
		}
		fp, fok := full.Step(fe)
		op, ook := other.Step(oe)
		if fok != ook {
			return fmt.Errorf("line %d: a point %v and %v", fe.Pos.Line, fok, ook)
		}
		if !fok {
			continue
		}
		if err := same(fp, op); err != nil {
			return fmt.Errorf("line %d: %v", fe.Pos.Line, err)
		}
	}
}

func samePoint(f, l Point) error {
	if f.Index != l.Index || *f.Event != *l.Event || f.Paths != l.Paths || f.States != l.States || f.Explored != l.Explored || f.Exact != l.Exact {
		return fmt.Errorf("point %+v, lean %+v", f, l)
	}
	if !slices.Equal(f.Changed, l.Changed) || !slices.Equal(f.Moved, l.Moved) || !reflect.DeepEqual(f.Outcomes, l.Outcomes) {
		return fmt.Errorf("changed %v moved %v, lean changed %v moved %v (or their outcomes differ)", f.Changed, f.Moved, l.Changed, l.Moved)
	}
	// A path the point did not change, alone, before All works them all out.
	fa := f.All()
	for q := range fa {
		if _, changed := slices.BinarySearch(f.Changed, q); changed {
			continue
		}
		fo, fok := f.Outcome(q)
		lo, lok := l.Outcome(q)
		if fok != lok || !reflect.DeepEqual(fo, lo) {
			return fmt.Errorf("Outcome(%s) = %+v, lean %+v", q, fo, lo)
		}
		break
	}
	if _, ok := l.Outcome("/no/such/path"); ok {
		return errors.New("lean Outcome of a path never touched")
	}
	return sameAll(fa, l.All(), "lean")
}

// sameAll compares every path's outcome set, as a full timeline's All
// holds it, with what another timeline's All works out (other names it).
func sameAll(fa, oa map[string]PathOutcomes, other string) error {
	if len(fa) != len(oa) {
		return fmt.Errorf("All holds %d paths, %s %d", len(fa), other, len(oa))
	}
	for q, fo := range fa {
		if oo, ok := oa[q]; !ok || !reflect.DeepEqual(fo, oo) {
			return fmt.Errorf("%s: kept %+v, %s %+v", q, fo, other, oo)
		}
	}
	return nil
}

// TestPointsOnlyTimelineEqualsFull: a timeline that only finds its
// points (PointsOnly, which the oracle uses to place a stopped program)
// finds the same points as a full one, at the same events, with the same
// changed paths, on every fixture trace under every model.
func TestPointsOnlyTimelineEqualsFull(t *testing.T) {
	againstFull(t, (*Timeline).PointsOnly, samePoints)
}

// samePoints compares what a points-only timeline says of a point.
func samePoints(f, p Point) error {
	if f.Index != p.Index || *f.Event != *p.Event || !slices.Equal(f.Changed, p.Changed) {
		return fmt.Errorf("point %d changing %v, points-only %d changing %v", f.Index, f.Changed, p.Index, p.Changed)
	}
	return nil
}
