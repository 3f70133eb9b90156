package report

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/google/go-cmp/cmp"
)

// explore's JSON report carries its account in the summary, as the schema
// says, and a reader gets it back whole.
func TestExploreJSON(t *testing.T) {
	x := &wire.Explore{Points: 4, Exhaustive: 3, Sampled: 1, Admitted: 1 << 20, AdmittedExact: true, Built: 300, Distinct: 8,
		Checked: 8, Rejected: 4, Families: wire.ExploreFamilies{Predicted: 2, Prefix: 5, Drop: 4, Torn: 1, Random: 16}, MaxJoint: 256, Samples: 16, Seed: 1 << 63}
	for i, adm := range []int64{1, 4, 1<<20 - 6, 1} {
		p := wire.ExplorePoint{Line: 10 * i, Admitted: adm, Exact: true, Exhaustive: adm < 256, Families: []string{}, Built: int(min(adm, 28)), New: 2, Checked: 2}
		if !p.Exhaustive {
			p.Families = []string{"predicted", "prefix", "drop", "torn", "random"}
		}
		x.CrashPoints = append(x.CrashPoints, p)
	}
	rule, _ := check.Lookup(check.CheckerFailed)
	res := resultOf(&check.Finding{Rule: rule, Path: "/d/config.json", Trace: "t.strace", Line: 12, StateIndex: 2, Message: "state 2 rejected", Models: []string{"posix"}})
	var b bytes.Buffer
	if err := JSON(&b, res, Options{Models: []string{"posix"}, Explore: x}); err != nil {
		t.Fatal(err)
	}
	validate(t, reportSchema(t), b.Bytes())
	r := wire.NewReader(&b)
	for {
		if _, err := r.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(x, r.Document().Report.Summary.Explore); diff != "" {
		t.Errorf("explore account read back (-written +read):\n%s", diff)
	}
}
