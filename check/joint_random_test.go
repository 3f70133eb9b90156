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
// (model/sizeorder.go), on traces no one wrote by hand.
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
			var got int64
			for range pt.Joint().All {
				got++
			}
			if got != pt.States {
				return fmt.Errorf("under %s, line %d: %d joint states enumerated, %d counted", p, ev.Pos.Line, got, pt.States)
			}
		}
	}
	return nil
}
