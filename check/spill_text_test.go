package check

import (
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/model"
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
		res := runTrace(t, trace, models, at)
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
			res := runTrace(t, trace, []model.Persistence{model.Posix, model.Ext4}, at)
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

// TestSpillMessages: a message goes into the codec's table with its
// file's base name taken out, and reads back as it was: the name twice,
// not at all, inside another word, a message or a name with a 0 byte,
// and once the table is full.
func TestSpillMessages(t *testing.T) {
	defer func(was int) { maxTexts = was }(maxTexts)
	rule, _ := Lookup(DataNotSynced)
	tests := []struct{ path, msg string }{
		{"/d/a.txt", "a.txt can be empty: a.txt was written"},
		{"/d/a.txt", "nothing about the file"},
		{"/d/a", "a can be lost in a crash and a, and aa"},
		{"/d/a.txt", "a.txt\x00 holds a 0 byte"},
		{"/d/a\x00b", "a\x00b can be empty"},
		{"/d/a.txt", ""},
		{"", "no path"},
		{"/", "/ is the root"},
		{"/d/.", ". can be ."},
		{"/d/b.txt", "\x00"},
	}
	for _, texts := range []int{0, 1, 4, 1 << 12} {
		maxTexts = texts
		c := newCodec()
		var recs [][]byte
		// Each message as a string, then as bytes (run.message).
		for _, tc := range tests {
			f := &Finding{Rule: rule, Path: tc.path, Trace: "t", Line: 1, Message: tc.msg}
			recs = append(recs, c.appendItem(nil, item{f: f}))
		}
		for _, tc := range tests {
			f := &Finding{Rule: rule, Path: tc.path, Trace: "t", Line: 1, text: []byte(tc.msg)}
			recs = append(recs, c.appendItem(nil, item{f: f}))
		}
		d := &decoder{c: c}
		for i, tc := range append(tests, tests...) {
			f, err := d.decode(recs[i])
			if err != nil {
				t.Fatalf("%d texts, %q: %v", texts, tc.msg, err)
			}
			if f.Message != tc.msg || f.Path != tc.path {
				t.Errorf("%d texts: %q on %q read back as %q on %q", texts, tc.msg, tc.path, f.Message, f.Path)
			}
		}
		if texts == 1<<12 {
			n := len(c.strs)
			for _, p := range []string{"/d/x.txt", "/e/y.txt"} {
				c.appendItem(nil, item{f: &Finding{Rule: rule, Path: p, Trace: "t", Message: base(p) + " can be empty; sync " + base(p)}})
			}
			if len(c.strs) != n+1 {
				t.Errorf("two messages alike but for their file's name took %d texts in the table, want 1", len(c.strs)-n)
			}
		}
	}
}

// TestAtReuse: AtReuse gives each finding, in memory and spilled, as At
// does, read into one Finding and State reused from one to the next.
func TestAtReuse(t *testing.T) {
	inTempDir(t)
	traces := fixtures.Traces(t, "../fixtures/traces")
	spilled := 0
	for _, trace := range traces {
		for _, at := range []int{0, 1} {
			res := runTrace(t, trace, []model.Persistence{model.Posix, model.Ext4}, at)
			var reuse Finding
			var st State
			// Backwards too, so that a finding with fewer related
			// events or no state follows one with more.
			for _, order := range []func(int) int{func(i int) int { return i }, func(i int) int { return res.Len() - 1 - i }} {
				for j := range res.Len() {
					i := order(j)
					want, err := res.At(i)
					if err != nil {
						t.Fatal(err)
					}
					got, err := res.AtReuse(i, &reuse, &st)
					if err != nil {
						t.Fatalf("%s SpillAt %d: AtReuse(%d): %v", trace, at, i, err)
					}
					if got == &reuse {
						spilled++
					}
					if diff := cmp.Diff(want, got, cmp.AllowUnexported(Finding{}), cmp.Comparer(func(a, b *Rule) bool { return a == b })); diff != "" {
						t.Errorf("%s SpillAt %d: AtReuse(%d) (-At +AtReuse):\n%s", trace, at, i, diff)
					}
				}
			}
			res.Close()
		}
	}
	if spilled == 0 {
		t.Error("no finding was read from a temp file")
	}
}
