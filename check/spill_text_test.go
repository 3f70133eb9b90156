package check

import (
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// TestSpillTexts: the texts a record numbers into the codec's table
// (related events' descriptions, states' words) and those written out
// once the table is full, and a state's path written or taken from the
// finding, read back as they were, on every fixture trace.
func TestSpillTexts(t *testing.T) {
	inTempDir(t)
	defer func(was int) { maxTexts = was }(maxTexts)
	traces := fixtures.Traces(t, "../fixtures/traces")
	models := []model.Persistence{model.Posix, model.Ext4}
	run := func(trace string, at int) []findingView {
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
	otherPath := 0
	for _, trace := range traces {
		want := run(trace, 0)
		for _, f := range want {
			if f.State != nil && f.State.Path != f.Path {
				otherPath++
			}
		}
		for _, texts := range []int{0, 2, 1 << 12} {
			maxTexts = texts
			if diff := cmp.Diff(want, run(trace, 1)); diff != "" {
				t.Errorf("%s, %d texts in the table: findings (-memory +spilled):\n%s", trace, texts, diff)
			}
		}
	}
	if otherPath == 0 {
		t.Error("no finding's state is of another path: the test shows nothing of them")
	}
}

// TestBrief: Brief gives each finding, in memory and spilled, as At does
// but for its message, state, source and related events' descriptions,
// into one Finding reused from one to the next.
func TestBrief(t *testing.T) {
	inTempDir(t)
	traces := fixtures.Traces(t, "../fixtures/traces")
	seen := 0
	for _, trace := range traces {
		for _, at := range []int{0, 1} {
			s, err := parser.Open(trace, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(s, Options{Models: []model.Persistence{model.Posix, model.Ext4}, SpillAt: at})
			s.Close()
			if err != nil {
				t.Fatalf("%s: %v", trace, err)
			}
			var got Finding
			for i := range res.Len() {
				f, err := res.At(i)
				if err != nil {
					t.Fatal(err)
				}
				want := *f
				want.Message, want.State, want.Source = "", nil, nil
				want.Related = nil
				for _, r := range f.Related {
					r.What = ""
					want.Related = append(want.Related, r)
				}
				if err := res.Brief(i, &got); err != nil {
					t.Fatalf("%s SpillAt %d: Brief(%d): %v", trace, at, i, err)
				}
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(Finding{}), cmp.Comparer(func(a, b *Rule) bool { return a == b })); diff != "" {
					t.Errorf("%s SpillAt %d: Brief(%d) (-want +got):\n%s", trace, at, i, diff)
				}
				seen += len(f.Related)
			}
			res.Close()
		}
	}
	if seen == 0 {
		t.Error("no finding had related events")
	}
}
