package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestRandomTracesJointCount: on the refinement tests' random traces
// (creates, writes, renames, links, directories, syncs), under every
// model, wherever a crash point's joint count is exact and small, the
// joint states enumerated are exactly as many as the timeline counted
// step by step. Under the ordered models this holds the count and the
// enumeration to the same journal order of sizes and names
// (model/sizeorder.go), on traces no one wrote by hand. There too, each
// path's own crash states (what check and states say of it) are the
// path's part of the joint states: none more, none fewer; and the
// states explore draws (Prefix, Drop, Torn, With, Sample) are among
// them, With finding one for each state of each path.
func TestRandomTracesJointCount(t *testing.T) {
	seededTraces(200, 40, 24, func(seed int, trace string) {
		if err := jointCountErr(t, trace); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, trace)
		}
	})
}

// FuzzJointCount is TestRandomTracesJointCount and
// TestRandomTracesJointRefinement on traces the fuzzer's bytes choose:
// go test ./check -fuzz FuzzJointCount.
func FuzzJointCount(f *testing.F) {
	f.Add([]byte{1, 3, 7, 8, 1, 3, 9, 11, 4, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		trace, ok := traceOfBytes(b)
		if !ok {
			return
		}
		if err := jointCountErr(t, trace); err != nil {
			t.Fatalf("%v\n%s", err, trace)
		}
		if err := jointRefinementErr(t, trace); err != nil {
			t.Fatalf("%v\n%s", err, trace)
		}
	})
}

// jointCountErr replays trace under every model and compares, at every
// crash point whose count is exact and at most 2000, the joint states
// enumerated with the count.
func jointCountErr(t testing.TB, trace string) error {
	evs := readEventsFrom(t, trace)
	for _, p := range model.Persistences {
		tl := model.NewTimeline(model.Options{Persistence: p, Existed: func(q string) (bool, bool) { return q == "/w", true }}, func(string) bool { return true }, 256)
		for _, ev := range evs {
			pt, ok := tl.Step(ev)
			if !ok || !pt.Exact || pt.States > 2000 {
				continue
			}
			sp := pt.Joint()
			parts := map[string]map[stateID]bool{}
			for _, q := range sp.Paths() {
				parts[q] = map[stateID]bool{}
			}
			trees := map[[32]byte]bool{}
			var got int64
			for s := range sp.All {
				got++
				trees[s.TreeKey()] = true
				for _, q := range sp.Paths() {
					parts[q][idOf(s.Path(q))] = true
				}
			}
			if got != pt.States {
				return fmt.Errorf("under %s, line %d: %d joint states enumerated, %d counted", p, ev.Pos.Line, got, pt.States)
			}
			for _, q := range sp.Paths() {
				po := tl.Model().Crash(q, 4096)
				if err := sameStates(po, parts[q]); err != nil {
					return fmt.Errorf("under %s, line %d, %s: %v", p, ev.Pos.Line, q, err)
				}
				if err := withEach(sp, q, po, trees); err != nil {
					return fmt.Errorf("under %s, line %d, %s: %v", p, ev.Pos.Line, q, err)
				}
			}
			if err := familiesAmong(sp, trees, uint64(ev.Pos.Line)); err != nil {
				return fmt.Errorf("under %s, line %d: %v", p, ev.Pos.Line, err)
			}
		}
	}
	return nil
}

// withEach asks With for each state of path q, the most and the least
// persisted: each must be found, hold q as asked and leave a tree one of
// the joint states leaves (trees, by TreeKey).
func withEach(sp *model.JointSpace, q string, po model.PathOutcomes, trees map[[32]byte]bool) error {
	for _, ps := range po.States {
		for _, most := range []bool{true, false} {
			s, ok := sp.With(q, ps, most)
			if !ok {
				return fmt.Errorf("With(%s %s, most %v): no such state", ps.Outcome, ps.Persisted, most)
			}
			if got := s.Path(q); idOf(got) != idOf(ps) {
				return fmt.Errorf("With(%s %s, most %v) holds %s %s", ps.Outcome, ps.Persisted, most, got.Outcome, got.Persisted)
			}
			if !trees[s.TreeKey()] {
				return fmt.Errorf("With(%s %s, most %v) is no joint state: %s", ps.Outcome, ps.Persisted, most, s.Key())
			}
		}
	}
	return nil
}

// familiesAmong builds every Prefix, Drop and Torn state and a few
// samples (seeded by seed): each must leave a tree one of the joint
// states leaves (trees).
func familiesAmong(sp *model.JointSpace, trees map[[32]byte]bool, seed uint64) error {
	fam := map[string]*model.JointState{}
	n := len(sp.Pending())
	for k := range n + 1 {
		fam[fmt.Sprintf("Prefix(%d)", k)] = sp.Prefix(k)
	}
	for k := range n {
		fam[fmt.Sprintf("Drop(%d)", k)] = sp.Drop(k)
		if s, ok := sp.Torn(k); ok {
			fam[fmt.Sprintf("Torn(%d)", k)] = s
		}
	}
	r := rand.New(rand.NewPCG(seed, 7))
	for i := range 4 {
		fam[fmt.Sprintf("Sample #%d", i)] = sp.Sample(r)
	}
	for name, s := range fam {
		if !trees[s.TreeKey()] {
			return fmt.Errorf("%s is no joint state: %s", name, s.Key())
		}
	}
	return nil
}

// stateID is what tells a path's crash states apart.
type stateID struct {
	inode     int
	outcome   model.Outcome
	persisted string
}

func idOf(s model.PathState) stateID { return stateID{s.Inode, s.Outcome, s.Persisted} }

// sameStates compares a path's own crash states, when they are all
// there, with its part of the joint states.
func sameStates(po model.PathOutcomes, part map[stateID]bool) error {
	if !po.Exact {
		return nil
	}
	own := map[stateID]bool{}
	for _, s := range po.States {
		own[idOf(s)] = true
		if !part[idOf(s)] {
			return fmt.Errorf("the path alone can be %s (%s), which no joint state has", s.Outcome, s.Persisted)
		}
	}
	for id := range part {
		if !own[id] {
			return fmt.Errorf("a joint state has it %s (%s), which its own states do not", id.outcome, id.persisted)
		}
	}
	return nil
}

// TestRandomTracesJointRefinement: on the same random traces, wherever
// both counts are exact and small, every joint crash state of ext4, xfs
// and btrfs leaves a tree that a joint state of posix leaves too: the
// filesystems' models only take states away from posix's, as a whole
// and not only path by path (the refinement tests).
func TestRandomTracesJointRefinement(t *testing.T) {
	seededTraces(300, 40, 24, func(seed int, trace string) {
		if err := jointRefinementErr(t, trace); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, trace)
		}
	})
}

// jointRefinementErr replays trace under every model side by side and
// compares, at every event that is a crash point under posix, each
// other model's joint states with posix's.
func jointRefinementErr(t testing.TB, trace string) error {
	evs := readEventsFrom(t, trace)
	tls := make([]*model.Timeline, len(model.Persistences))
	for i, p := range model.Persistences {
		tls[i] = model.NewTimeline(model.Options{Persistence: p, Existed: func(q string) (bool, bool) { return q == "/w", true }}, func(string) bool { return true }, 256)
	}
	pts := make([]model.Point, len(tls))
	oks := make([]bool, len(tls))
	for _, ev := range evs {
		posixAt := -1
		for i, tl := range tls {
			pts[i], oks[i] = tl.Step(ev)
			if model.Persistences[i] == model.Posix {
				posixAt = i
			}
		}
		small := func(i int) bool { return oks[i] && pts[i].Exact && pts[i].States <= 3000 }
		if !small(posixAt) {
			continue
		}
		posix := map[[32]byte]bool{}
		for s := range pts[posixAt].Joint().All {
			posix[s.TreeKey()] = true
		}
		for i, p := range model.Persistences {
			if i == posixAt || !small(i) {
				continue
			}
			for s := range pts[i].Joint().All {
				if !posix[s.TreeKey()] {
					return fmt.Errorf("under %s, line %d: a crash state posix does not have: %s", p, ev.Pos.Line, s.Key())
				}
			}
		}
	}
	return nil
}
