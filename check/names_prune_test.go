package check

import (
	"math"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestNameHistoryPruneKeepsLitter: pruning the history of names at every
// op answers litter as the history kept whole, for a path whose covered
// making gave it a file from before the trace, then removed, made again
// and removed without a sync (litter, unless the path is taken to have
// existed), and for a path made, synced, removed and made again.
func TestNameHistoryPruneKeepsLitter(t *testing.T) {
	defer func(n int) { namePrune = n }(namePrune)
	old := &model.Inode{ID: 1, Initial: true}
	p, q, r := "/d/p", "/d/q", "/d/r"
	entry := func(seq int, path string, from, to *model.Inode) *model.Effect {
		return &model.Effect{Kind: model.EffEntry, Ref: model.Ref{Seq: seq},
			Entry: &model.EntryOp{Changes: []model.NameChange{{Path: path, Old: from, New: to}}}}
	}
	dirSync := &model.Effect{Kind: model.EffDirSync, Ref: model.Ref{Seq: 2}, Inode: &model.Inode{ID: 2, Dir: true, Path: "/d"}}
	fileP, fileR, fileR2 := &model.Inode{ID: 3}, &model.Inode{ID: 4}, &model.Inode{ID: 5}
	effects := []*model.Effect{
		entry(1, p, nil, old), // a file from before the trace renamed to p
		entry(1, r, nil, fileR),
		dirSync,
		entry(3, q, nil, &model.Inode{ID: 6}), // any op: a prune
		entry(4, p, old, nil),
		entry(4, r, fileR, nil),
		entry(5, p, nil, fileP),
		entry(5, r, nil, fileR2),
		entry(6, p, fileP, nil),
		entry(6, r, fileR2, nil),
	}
	litter := func(prune int) map[string]bool {
		namePrune = prune
		h := newNameHistory()
		for _, e := range effects {
			h.observe(e)
		}
		out := map[string]bool{}
		for _, path := range []string{p, q, r} {
			out[path] = h.litter(path, &model.Name{Path: path})
		}
		return out
	}
	want, got := litter(math.MaxInt), litter(0)
	for path, w := range want {
		if got[path] != w {
			t.Errorf("litter(%s) = %v pruned at every op, %v kept whole", path, got[path], w)
		}
	}
	if !want[p] || !want[r] {
		t.Errorf("kept whole, litter = %v: want p and r litter, or the test asks nothing", want)
	}
}
