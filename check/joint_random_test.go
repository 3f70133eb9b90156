package check

import (
	"fmt"
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
// path's part of the joint states: none more, none fewer.
func TestRandomTracesJointCount(t *testing.T) {
	seededTraces(200, 40, 24, func(seed int, trace string) {
		if err := jointCountErr(t, trace); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, trace)
		}
	})
}

// FuzzJointCount is TestRandomTracesJointCount on traces the fuzzer's
// bytes choose: go test ./check -fuzz FuzzJointCount.
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
			var got int64
			for s := range sp.All {
				got++
				for _, q := range sp.Paths() {
					parts[q][idOf(s.Path(q))] = true
				}
			}
			if got != pt.States {
				return fmt.Errorf("under %s, line %d: %d joint states enumerated, %d counted", p, ev.Pos.Line, got, pt.States)
			}
			for _, q := range sp.Paths() {
				if err := sameStates(tl.Model().Crash(q, 4096), parts[q]); err != nil {
					return fmt.Errorf("under %s, line %d, %s: %v", p, ev.Pos.Line, q, err)
				}
			}
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
