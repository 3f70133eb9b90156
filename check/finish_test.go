package check

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestFinishSideBySide: models that finish at the same time (finishRuns)
// give the findings, in the order, of models that finish one after the
// other, kept in memory or spilled, over every fixture trace. Run it
// under -race too: the models' rules must not share what they change.
func TestFinishSideBySide(t *testing.T) {
	inTempDir(t)
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: the models finish one after the other anyway")
	}
	all := []model.Persistence{model.Posix, model.Ext4, model.Xfs, model.Btrfs}
	for _, trace := range fixtures.Traces(t, "../fixtures/traces") {
		for _, at := range []int{0, 1, 5} {
			run := func(parallel bool) []findingView {
				defer func(was bool) { finishParallel = was }(finishParallel)
				finishParallel = parallel
				s, err := parser.Open(trace, parser.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				res, err := Run(s, Options{Models: all, SpillAt: at})
				if err != nil {
					t.Fatalf("%s: %v", trace, err)
				}
				defer res.Close()
				return viewOf(t, res)
			}
			want := run(false)
			if diff := cmp.Diff(want, run(true)); diff != "" {
				t.Errorf("%s SpillAt %d: findings (-one after the other +side by side):\n%s", trace, at, diff)
			}
		}
	}
}
