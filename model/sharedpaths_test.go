package model

import (
	"slices"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestSharedPathsSameAsOwn: a model that takes an event's resolved paths
// from the model before it (Shared) sees the very paths a model alone
// resolves, event by event, on every fixture under every model.
func TestSharedPathsSameAsOwn(t *testing.T) {
	compared := 0
	for _, in := range fixtureInputs(t) {
		for _, p := range testModels() {
			shared := new(Shared)
			var seen [3][][]string
			models := make([]*Model, 3)
			for k := range models {
				o := in.options(p)
				if k == 1 {
					o.Persistence = Ext4 // another model than the first, as in check
				}
				o.Retire, o.RetireBatch = true, 1
				o.Resolved = func(_ *parser.Event, paths []string) {
					seen[k] = append(seen[k], slices.Clone(paths))
				}
				if k < 2 {
					o.Shared = shared
				}
				models[k] = New(o)
			}
			s, err := in.open()
			if err != nil {
				t.Fatal(err)
			}
			for {
				ev, err := s.Next()
				if err != nil {
					break
				}
				for _, m := range models {
					m.Apply(ev)
				}
			}
			s.Close()
			for i := range seen[2] {
				if !slices.Equal(seen[1][i], seen[2][i]) || !slices.Equal(seen[0][i], seen[2][i]) {
					t.Fatalf("%s under %s, event %d: shared models resolved %q and %q, a model alone %q", in.name, p, i, seen[0][i], seen[1][i], seen[2][i])
				}
				if len(seen[2][i]) > 0 {
					compared++
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("no event had a path")
	}
}
