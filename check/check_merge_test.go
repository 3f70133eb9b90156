package check

import (
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestMergeKeepsTraces: merge joins one finding seen under several models,
// but the same rule, path and line in two files of an -ff set are two
// findings (before, the second file's was dropped).
func TestMergeKeepsTraces(t *testing.T) {
	rule, _ := Lookup(DataNotSynced)
	mk := func(trace string, p model.Persistence) *Finding {
		return &Finding{Rule: rule, Path: "/d/f", Trace: trace, Line: 7, modelSet: 1 << p}
	}
	runs := []*run{
		{p: model.Posix, findings: []*Finding{mk("t.100", model.Posix), mk("t.200", model.Posix)}},
		{p: model.Ext4, findings: []*Finding{mk("t.100", model.Ext4), mk("t.200", model.Ext4)}},
	}
	got := merge(runs, []model.Persistence{model.Posix, model.Ext4})
	if len(got) != 2 || got[0].Trace != "t.100" || got[1].Trace != "t.200" {
		t.Fatalf("merged %d findings %v; want one per trace", len(got), got)
	}
	for _, f := range got {
		if len(f.Models) != 2 {
			t.Errorf("%s: models %v, want posix and ext4", f.Trace, f.Models)
		}
	}
}
