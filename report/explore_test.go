package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/google/go-cmp/cmp"
)

// exploreStats is an exploration's account as crashsim explore gives it:
// states checked at crash points 1 and 3 (rejected at 3, the state
// indexes exploreRun's findings carry).
func exploreStats(checked map[int]int, rejected int) *ExploreJSON {
	x := &ExploreJSON{Points: 4, Exhaustive: 3, Sampled: 1, Admitted: 1 << 20, AdmittedExact: true, Built: 300, Distinct: 8,
		Rejected: rejected, Families: ExploreFamilies{Predicted: 2, Prefix: 5, Drop: 4, Torn: 1, Random: 16}, MaxJoint: 256, Samples: 16, Seed: 1}
	for i, adm := range []int64{1, 4, 1<<20 - 6, 1} {
		p := ExplorePointJSON{Line: 10 * i, Admitted: adm, Exact: true, Exhaustive: adm < 256, Families: []string{}, Built: int(min(adm, 28)), New: 2, Checked: checked[i]}
		if !p.Exhaustive {
			p.Families = []string{"predicted", "prefix", "drop", "torn", "random"}
		}
		x.Checked += checked[i]
		x.CrashPoints = append(x.CrashPoints, p)
	}
	return x
}

// explore's JSON report carries its account in the summary, as the schema
// says, and the merge of its shards' reports adds up their checker runs.
func TestExploreJSON(t *testing.T) {
	var whole bytes.Buffer
	if err := JSON(&whole, exploreRun(), Options{Models: []string{"posix"}, Explore: exploreStats(map[int]int{1: 3, 3: 5}, 4)}); err != nil {
		t.Fatal(err)
	}
	validate(t, reportSchema(t), whole.Bytes())
	if !bytes.Contains(whole.Bytes(), []byte(`"crashPoints": [`)) || !bytes.Contains(whole.Bytes(), []byte(`"sampled": 1`)) {
		t.Errorf("no explore account in the summary:\n%s", whole.Bytes())
	}
	// Two shards: states 1, 3, 5, 7 and 2, 4, 6, 8.
	parts := []struct {
		checked  map[int]int
		rejected int
	}{{map[int]int{1: 2, 3: 2}, 2}, {map[int]int{1: 1, 3: 3}, 2}}
	shards := shardsOf(t, exploreRun(), 2, func(b *bytes.Buffer, r *check.Result, o Options) error {
		var i int
		fmt.Sscanf(o.Shard, "%d/", &i)
		o.Explore = exploreStats(parts[i-1].checked, parts[i-1].rejected)
		return JSON(b, r, o)
	})
	var got bytes.Buffer
	if _, err := Merge(&got, shards); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole.String(), got.String()); diff != "" {
		t.Errorf("merge differs from the whole report (-want +got):\n%s", diff)
	}
}
