package explore

import (
	"slices"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
)

// TestPredictedByState: a finding of check foresees a rejected state when
// what it says a crash can leave at its path is what the state holds
// there, and its window has begun by the crash point. Before, any finding
// about the same path at an earlier line counted: a torn record was
// "predicted by name-not-synced", whose state is the file missing, and a
// finding reported after the crash line (a directory fsync that exposes an
// earlier unsynced write) got no credit for a state its window covers.
func TestPredictedByState(t *testing.T) {
	rule := func(id string) *check.Rule {
		r, ok := check.Lookup(id)
		if !ok {
			t.Fatalf("no rule %s", id)
		}
		return r
	}
	finding := func(id string, line int, st check.State, related ...int) *check.Finding {
		f := &check.Finding{Rule: rule(id), Path: "/R/log", Line: line, Seq: line, State: &st}
		for _, l := range related {
			f.Related = append(f.Related, check.Related{Line: l})
		}
		return f
	}
	missing := check.State{Line: 13, Path: "/R/log", Outcome: string(model.Missing)}
	empty := check.State{Line: 13, Path: "/R/log", Outcome: string(model.Empty), Outcomes: []model.Outcome{model.Empty, model.Zeros, model.Torn}}
	// A state rejected at crash line at, holding outcome o at path p, a
	// file that also had the names paths.
	rejected := func(at int, p string, o model.Outcome, paths ...string) *state {
		return &state{line: at, event: &model.Ref{Seq: at, Line: at}, diffs: []diff{{path: p, ps: model.PathState{Outcome: o}, paths: append([]string{p}, paths...)}}}
	}
	tests := []struct {
		name    string
		predict []*check.Finding
		s       *state
		want    []string
	}{
		{"a torn record is not the name missing", []*check.Finding{finding(check.NameNotSynced, 2, missing)}, rejected(6, "/R/log", model.Torn), nil},
		{"the name missing", []*check.Finding{finding(check.NameNotSynced, 2, missing)}, rejected(6, "/R/log", model.Missing), []string{check.NameNotSynced}},
		{"an outcome the message names", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/log", model.Zeros), []string{check.DataNotSynced}},
		{"an outcome it does not name", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/log", model.Earlier), nil},
		{"another name of the file", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/log.tmp", model.Empty, "/R/log"), []string{check.DataNotSynced}},
		{"another file", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/other", model.Empty), nil},
		{"reported later, its window begun", []*check.Finding{finding(check.DirSyncBeforeData, 10, empty, 3, 8, 10)}, rejected(5, "/R/log", model.Empty), []string{check.DirSyncBeforeData}},
		{"its window not yet begun", []*check.Finding{finding(check.DirSyncBeforeData, 10, empty, 8, 10)}, rejected(5, "/R/log", model.Empty), nil},
		// remove-before-sync names the read of the file it removes (3)
		// and the create of the copy (8); the name is lost by its unlink
		// (12), not before.
		{"a name lost before the finding's call", []*check.Finding{finding(check.RemoveBeforeSync, 12, missing, 3, 8, 12)}, rejected(10, "/R/log", model.Missing), nil},
		{"a name lost by the finding's call", []*check.Finding{finding(check.RemoveBeforeSync, 12, missing, 3, 8, 12)}, rejected(12, "/R/log", model.Missing), []string{check.RemoveBeforeSync}},
		{"another name lost before the finding's call", []*check.Finding{finding(check.RemoveBeforeSync, 12, missing, 3, 8, 12)}, rejected(10, "/R/log~", model.Missing, "/R/log"), nil},
	}
	for _, tc := range tests {
		e := &explorer{opt: Options{Predict: tc.predict}}
		if got := e.predicted(tc.s); !slices.Equal(got, tc.want) {
			t.Errorf("%s: predicted by %v, want %v", tc.name, got, tc.want)
		}
	}
}
