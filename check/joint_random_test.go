package check

import (
	"math/rand"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestRandomTracesJointCount: on the refinement tests' random traces
// (creates, writes, renames, links, directories, syncs), under every
// model, wherever a crash point's joint count is exact and small, the
// joint states enumerated are exactly as many as the timeline counted
// step by step. Under the ordered models this holds the count and the
// enumeration to the same journal order of sizes and names
// (model/sizeorder.go), on traces no one wrote by hand.
func TestRandomTracesJointCount(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	for seed := range n {
		rng := rand.New(rand.NewSource(int64(seed)))
		trace := genTrace(rng.Intn, 4+rng.Intn(24))
		evs := readEventsFrom(t, trace)
		for _, p := range model.Persistences {
			tl := model.NewTimeline(model.Options{Persistence: p, Existed: func(q string) (bool, bool) { return q == "/w", true }}, func(string) bool { return true }, 256)
			for _, ev := range evs {
				pt, ok := tl.Step(ev)
				if !ok || !pt.Exact || pt.States > 2000 {
					continue
				}
				var got int64
				for range pt.Joint().All {
					got++
				}
				if got != pt.States {
					t.Fatalf("seed %d under %s, line %d: %d joint states enumerated, %d counted\n%s", seed, p, ev.Pos.Line, got, pt.States, trace)
				}
			}
		}
	}
}
