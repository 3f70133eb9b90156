package check

import (
	"fmt"
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/model"
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
					res := runTrace(t, trace, models, at)
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

// TestSeenBefore: a later run may leave a finding to merge only when the
// first run emitted one with the same rule, path, trace and line (merge
// keeps the first run's); it looks for it a little ahead of the last it
// found.
func TestSeenBefore(t *testing.T) {
	rule, _ := Lookup(DataNotSynced)
	c := &collector{runs: make([]*run, 3)}
	for i := range 40 {
		c.note(0, 100+i, &Finding{Rule: rule, Path: fmt.Sprintf("/d/f%d", i), Trace: "t", Line: 10 + i})
	}
	c.note(1, 0, &Finding{Rule: rule, Path: "/d/g", Trace: "t", Line: 7})
	tests := []struct {
		run         int
		id, p, tr   string
		line        int
		want        bool
		explanation string
	}{
		{0, DataNotSynced, "/d/f0", "t", 10, false, "the first run's own findings are built in full"},
		{1, DataNotSynced, "/d/g", "t", 7, false, "only run 1 emitted it, not the first run"},
		{1, DataNotSynced, "/d/f0", "t", 11, false, "another line"},
		{1, DataNotSynced, "/d/f0", "u", 10, false, "another trace"},
		{1, NameNotSynced, "/d/f0", "t", 10, false, "another rule"},
		{1, DataNotSynced, "/d/f0", "t", 10, true, "the first run emitted it"},
		{1, DataNotSynced, "/d/f2", "t", 12, true, "a little ahead of the last found"},
		{1, DataNotSynced, "/d/f1", "t", 11, false, "behind the last found: built in full, which is no error"},
		{1, DataNotSynced, "/d/f39", "t", 49, false, "too far ahead: built in full"},
		{2, DataNotSynced, "/d/f1", "t", 11, true, "run 2 looks from where it found its last"},
		{1, DataNotSynced, "/d/f3", "t", 13, true, "run 1 goes on from its own"},
	}
	for _, tc := range tests {
		seq, got := c.seenBefore(tc.run, tc.id, tc.p, tc.tr, tc.line)
		if got != tc.want {
			t.Errorf("run %d, %s %s %s:%d: seen before %v, want %v (%s)", tc.run, tc.id, tc.p, tc.tr, tc.line, got, tc.want, tc.explanation)
		}
		if i, _ := fmt.Sscanf(tc.p, "/d/f%d", new(int)); got && (i != 1 || seq != 100+tc.line-10) {
			t.Errorf("run %d, %s: the first run's finding %d, want %d", tc.run, tc.p, seq, 100+tc.line-10)
		}
	}
}
