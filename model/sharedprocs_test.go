package model

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSharedProcsSameAsOwn: models that share one process model
// (Options.Shared: one fd table, one Handle for each open, offsets moved
// once an event) do what a model with its own does, event by event, on
// every fixture under every model, retiring files or not; and they do
// share it.
func TestSharedProcsSameAsOwn(t *testing.T) {
	compared := 0
	for _, in := range fixtureInputs(t) {
		for _, p := range testModels() {
			for _, retire := range []bool{false, true} {
				name := fmt.Sprintf("%s under %s, retire %v", in.name, p, retire)
				shared := new(Shared)
				var words [3][]string
				var handles [2][]*Handle // the Handles of the shared models' effects
				models := make([]*Model, 3)
				for k := range models {
					o := in.options(p)
					if k == 0 {
						o.Persistence = Posix // another model before it, as in check
					}
					o.Retire, o.RetireBatch = retire, 1
					o.Observe = func(_ *Model, e *Effect) {
						words[k] = append(words[k], effectWords(e))
						if k < 2 && e.Handle != nil {
							handles[k] = append(handles[k], e.Handle)
						}
					}
					if k < 2 {
						o.Shared = shared
					}
					models[k] = New(o)
				}
				if models[0].procs != models[1].procs || models[2].procs == models[1].procs {
					t.Fatalf("%s: the models with a Shared do not share their process model", name)
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
					words[1], words[2] = words[1][:0], words[2][:0]
					handles[0], handles[1] = handles[0][:0], handles[1][:0]
					for _, m := range models {
						m.Apply(ev)
					}
					if d := cmp.Diff(words[2], words[1]); d != "" {
						t.Fatalf("%s line %d: effects differ (-own +shared):\n%s", name, ev.Pos.Line, d)
					}
					for i := range min(len(handles[0]), len(handles[1])) {
						if handles[0][i] != handles[1][i] {
							t.Fatalf("%s line %d: the shared models' effects name two Handles", name, ev.Pos.Line)
						}
					}
					compared += len(words[2])
				}
				s.Close()
				if shared.Err() != nil {
					t.Fatal(shared.Err())
				}
				shared.Close()
			}
		}
	}
	if compared == 0 {
		t.Fatal("no event had an effect")
	}
}
