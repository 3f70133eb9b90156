package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A path from the trace that holds a newline and a fake verdict prints on
// its own line, escaped, in both kinds of oracle report: it cannot pass
// for a point of crashsim's own.
func TestOracleTextEscapesPaths(t *testing.T) {
	evil := "a\npoint 9 after line 1: fsync(3) = 0  [sound]"
	for _, source := range []string{OracleSnapshot, OracleBlocks} {
		r := &OracleResult{Command: []string{"./save", "x\ny"}, FS: "ext4", Model: "ext4", Source: source, Points: []OraclePoint{{
			Index: 1, Line: 4, Call: "rename(...) = 0", Reached: true, Note: "stopped at " + evil,
			Paths:       map[string]*OraclePath{evil: {Observed: []string{"missing"}, Predicted: []string{"latest"}}, "b": {Observed: []string{"latest"}, Predicted: []string{"latest"}}},
			Mismatches:  []OracleMismatch{{Path: evil, Observed: "missing", Predicted: []string{"latest"}, Size: -1, State: "kept " + evil}},
			Unmountable: []string{"state 1: " + evil},
		}}}
		var b bytes.Buffer
		if err := OracleText(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "\npoint 9") {
			t.Errorf("%s: the path's newline reached the output:\n%s", source, out)
		}
		if n := strings.Count(out, `a\npoint 9 after line 1`); n != 5 {
			t.Errorf("%s: the path shows escaped %d times, want 5 (path, mismatch, its state, the note, unmountable):\n%s", source, n, out)
		}
		if !strings.Contains(out, `./save x\ny on ext4`) {
			t.Errorf("%s: the command is not escaped:\n%s", source, out)
		}
	}
}

// One result type, two sources: a snapshot prints one outcome per path, a
// block replay the sets with what the device held; both say a mismatch in
// the outcome words every report uses.
func TestOracleText(t *testing.T) {
	point := OraclePoint{Index: 2, Line: 7, Call: `rename("a.tmp", "a") = 0`, Reached: true, States: 1, Distinct: 1, DistinctAt: 1,
		Paths: map[string]*OraclePath{
			"a":     {Observed: []string{"torn"}, Predicted: []string{"initial", "latest"}, Produced: []string{}},
			"a.tmp": {Observed: []string{"missing"}, Predicted: []string{"missing", "earlier"}, Produced: []string{"missing"}},
		},
		Mismatches: []OracleMismatch{{Path: "a", Observed: "torn", Matches: []string{"torn"}, Predicted: []string{"initial", "latest"}, Size: 21}},
	}
	snap := &OracleResult{Command: []string{"./save"}, FS: "xfs", Model: "xfs", Source: OracleSnapshot,
		Points:  []OraclePoint{{Index: 1, Line: 5, Call: "write(3, ..., 21) = 21", Note: "not reached: the program ended first"}, point},
		Summary: OracleSummary{Points: 2, Reached: 1, States: 1, Distinct: 1, Mismatches: 1, Joint: 1, Predicted: 4, Produced: 1}}
	want := `oracle: ./save on xfs, xfs model

point 1 after line 5: write(3, ..., 21) = 21  [not observed]
  note: not reached: the program ended first

point 2 after line 7: rename("a.tmp", "a") = 0  [MISMATCH]
  a      observed torn     predicted {initial | latest}  MISMATCH
  a.tmp  observed missing  predicted {missing | earlier}  sound
  MISMATCH a: torn (some of its new data on disk, some not), 21 bytes; the xfs model predicts as it was before the run or as the program saw it then

summary: 2 crash points, 1 observed (1 distinct states), 1 mismatches; 1 points judged whole, not only path by path; 1 of 4 predicted outcomes observed
`
	point.Sound = false
	snap.Points[1].Sound = false
	var b bytes.Buffer
	OracleText(&b, snap)
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}

	blocks := &OracleResult{Command: []string{"./save"}, FS: "xfs", Model: "xfs", Source: OracleBlocks,
		Enumeration: &OracleEnumeration{Exhaustive: 6, Samples: 24, Seed: 1},
		Points:      []OraclePoint{point},
		Summary:     OracleSummary{Points: 1, Reached: 1, States: 3, Mounted: 2, Distinct: 2, Mismatches: 1, Predicted: 4, Produced: 1, Precision: 0.25, ReplaySeconds: 2, StatesPerSecond: 1.5}}
	p := &blocks.Points[0]
	p.Device = &OracleDevice{Flushes: 3, InFlight: 2, Subsets: 4, Windows: 1}
	p.States, p.Distinct, p.DistinctAt, p.DistinctDuring = 3, 2, 1, 1
	p.Paths = map[string]*OraclePath{"a": {Observed: []string{"torn"}, During: []string{"initial", "torn"}, Predicted: []string{"initial", "latest"}, Produced: []string{"initial"}}}
	p.Mismatches = []OracleMismatch{{Path: "a", Observed: "torn", Predicted: []string{"initial", "latest"}, Size: 21, State: "in flight kept: #2"},
		{Path: "b", Observed: "latest", Predicted: []string{"missing"}, Untracked: true, Size: 3, State: "all 2 in flight"},
		{Joint: "a.tmp missing, log latest", Size: -1, State: "in flight kept: #1"}}
	want = `oracle --blocks: ./save on xfs, xfs model (exhaustive up to 6 in flight, else 24 samples, seed 1)

point 2 after line 7: rename("a.tmp", "a") = 0  [MISMATCH]
  device: 3 flushes, then 2 writes in flight (4 subsets); 1 flushes during the call with writes before them
  states: 3 replayed, 2 distinct trees (1 at the point, 1 during the call)
  a  observed {torn} during {initial | torn} predicted {initial | latest} produced {initial}
  MISMATCH a: torn (some of its new data on disk, some not), 21 bytes, in the state with in flight kept: #2; the xfs model predicts as it was before the run or as the program saw it then
  MISMATCH b: as the program saw it then, 3 bytes, in the state with all 2 in flight; the xfs model does not track it, so it must be missing
  MISMATCH together: a.tmp missing, log latest; each is predicted, but no crash state of the xfs model leaves them so (the state with in flight kept: #1)

summary: 1 crash points, 1 reached; 3 states replayed (2 images mounted, 2 distinct trees over the points); 1 mismatches, 0 unmountable: NOT sound; 0 points judged whole, not only path by path; precision 1/4 predicted outcomes produced (25%); replay 2.0 s, 1.5 states/s
`
	b.Reset()
	OracleText(&b, blocks)
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}
