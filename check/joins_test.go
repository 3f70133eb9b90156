package check

import (
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// TestJoinsSameFindings: over every fixture trace, under every set of
// models, in memory and spilled, the findings of a check whose rules skip
// what merge drops (run.joins) are those of one that builds every
// finding in full: text, related events, state and models.
func TestJoinsSameFindings(t *testing.T) {
	inTempDir(t)
	traces := fixtures.Traces(t, "../fixtures/traces")
	modelSets := [][]model.Persistence{nil, {model.Ext4}, {model.Posix, model.Ext4, model.Xfs, model.Btrfs}}
	joined := 0
	for _, trace := range traces {
		for _, models := range modelSets {
			for _, at := range []int{0, 1} {
				run := func(early bool) []findingView {
					defer func(was bool) { joinEarly = was }(joinEarly)
					joinEarly = early
					s, err := parser.Open(trace, parser.Options{})
					if err != nil {
						t.Fatal(err)
					}
					defer s.Close()
					res, err := Run(s, Options{Models: models, SpillAt: at})
					if err != nil {
						t.Fatalf("%s: %v", trace, err)
					}
					defer res.Close()
					return viewOf(t, res)
				}
				want, got := run(false), run(true)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s %v SpillAt %d: findings (-in full +joined early):\n%s", trace, models, at, diff)
				}
				for _, f := range got {
					if len(f.Models) > 1 {
						joined++
					}
				}
			}
		}
	}
	if joined == 0 {
		t.Error("no finding was found under two models: the test shows nothing")
	}
}

// TestSeenBefore: a run may leave a finding to merge only when an
// earlier run, or itself earlier, emitted one with the same key; merge
// keeps the one of the lowest run, so a later run's does not count.
func TestSeenBefore(t *testing.T) {
	rule, _ := Lookup(DataNotSynced)
	other, _ := Lookup(NameNotSynced)
	c := &collector{}
	c.note(1, &Finding{Rule: rule, Path: "/d/f", Trace: "t", Line: 7})
	tests := []struct {
		run         int
		id, p, tr   string
		line        int
		want        bool
		explanation string
	}{
		{0, DataNotSynced, "/d/f", "t", 7, false, "only run 1 emitted it: run 0's is the one merge keeps"},
		{1, DataNotSynced, "/d/f", "t", 7, true, "run 1 emitted it before"},
		{2, DataNotSynced, "/d/f", "t", 7, true, "run 1 comes before run 2"},
		{2, DataNotSynced, "/d/f", "t", 8, false, "another line"},
		{2, DataNotSynced, "/d/g", "t", 7, false, "another path"},
		{2, DataNotSynced, "/d/f", "u", 7, false, "another trace"},
		{2, other.ID, "/d/f", "t", 7, false, "another rule"},
	}
	for _, tc := range tests {
		if got := c.seenBefore(tc.run, tc.id, tc.p, tc.tr, tc.line); got != tc.want {
			t.Errorf("run %d, %s %s %s:%d: seen before %v, want %v (%s)", tc.run, tc.id, tc.p, tc.tr, tc.line, got, tc.want, tc.explanation)
		}
	}
	c.note(0, &Finding{Rule: rule, Path: "/d/f", Trace: "t", Line: 7})
	if !c.seenBefore(0, DataNotSynced, "/d/f", "t", 7) {
		t.Error("run 0 emitted it too, after run 1: run 0 may join it now")
	}
}
