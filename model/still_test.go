package model

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// TestStillSameAsModel: at the end of every fixture trace and of
// reviveTrace, under every persistence model, with files retired as soon
// as they can be, the Still view asked about every path the trace named,
// from four goroutines at once, changes nothing in the model, and each
// answer it gives (crash states, the first state of a kind, a state in
// words) is the model's own; it declines only for a retired path. Some
// answers are given and some declined, or the test shows nothing.
func TestStillSameAsModel(t *testing.T) {
	inputs := append(fixtureInputs(t), traceInput{name: "revive", open: func() (parser.Stream, error) {
		return parser.NewReader(strings.NewReader(reviveTrace), "revive", parser.Options{}), nil
	}})
	missing := func(s PathState) bool { return s.Outcome == Missing }
	type answer struct {
		po      PathOutcomes
		first   PathState
		found   bool
		words   []string
		crash   bool // given, not declined
		wordsOK bool
	}
	given, declined := 0, 0
	for _, in := range inputs {
		for _, p := range testModels() {
			name := fmt.Sprintf("%s under %s", in.name, p)
			s, err := in.open()
			if err != nil {
				t.Fatal(err)
			}
			pr := newPair(t, name, in.options(p))
			for {
				ev, err := s.Next()
				if err != nil {
					break
				}
				pr.ret.Apply(ev)
				pr.keep.Apply(ev)
			}
			s.Close()
			m := pr.ret
			m.retirePass()
			paths := make([]string, 0, len(pr.keep.names))
			for q := range pr.keep.names {
				paths = append(paths, q)
			}
			sort.Strings(paths)
			retired, live := m.Retired(), len(m.Names())
			st := m.Still()
			answers := make([]answer, len(paths))
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					for i := w; i < len(paths); i += 4 {
						a := &answers[i]
						a.po, a.crash = st.CrashReuse(paths[i], 256, nil)
						var ok bool
						a.first, a.found, ok = st.CrashFirst(paths[i], 256, missing)
						if ok != a.crash {
							t.Errorf("%s, %s: CrashReuse says %v, CrashFirst %v", name, paths[i], a.crash, ok)
						}
						a.wordsOK = true
						for _, s := range a.po.States {
							w, ok := st.StateWords(paths[i], s)
							a.wordsOK = a.wordsOK && ok
							a.words = append(a.words, w)
						}
					}
				})
			}
			wg.Wait()
			if m.Retired() != retired || len(m.Names()) != live {
				t.Errorf("%s: asking the Still view changed the model: %d retired and %d names, then %d and %d", name, retired, live, m.Retired(), len(m.Names()))
			}
			for i, q := range paths {
				a := answers[i]
				if !a.crash {
					declined++
					if _, isRetired := m.restGet(q); !isRetired {
						t.Errorf("%s, %s: declined, and the path is not retired", name, q)
					}
					continue
				}
				given++
				if d := cmp.Diff(m.Crash(q, 256), a.po, cmp.AllowUnexported(PathOutcomes{}, cutState{})); d != "" {
					t.Errorf("%s, %s: crash states (-model +Still):\n%s", name, q, d)
				}
				first, found := m.CrashFirst(q, 256, missing)
				if found != a.found || !cmp.Equal(first, a.first) {
					t.Errorf("%s, %s: CrashFirst gives %v %+v, Still's %v %+v", name, q, found, first, a.found, a.first)
				}
				if a.wordsOK {
					for k, s := range a.po.States {
						if w := m.StateWords(q, s); w != a.words[k] {
							t.Errorf("%s, %s: state %d in words %q, Still's %q", name, q, k, w, a.words[k])
						}
					}
				}
			}
		}
	}
	if given == 0 || declined == 0 {
		t.Errorf("Still answered %d paths and declined %d: the test needs both", given, declined)
	}
}

// TestLossWordsFor: the table LossWordsFor makes says what LossWords
// says, for every set of outcomes (with one no crash gives among them
// too), in two orders.
func TestLossWordsFor(t *testing.T) {
	orders := [][]Outcome{{Empty, Missing, Initial, Zeros, Torn, Earlier}, {Torn, Latest, Missing}}
	for _, order := range orders {
		words := LossWordsFor(order)
		for set := range 1 << len(outcomesInOrder) {
			var os []Outcome
			for i, o := range outcomesInOrder {
				if set&(1<<i) != 0 {
					os = append(os, o)
				}
			}
			for _, po := range []PathOutcomes{{Outcomes: os}, {Outcomes: append(os, "sideways")}} {
				if got, want := words(po), LossWords(po, order); got != want {
					t.Errorf("order %v, outcomes %v: %q, LossWords says %q", order, po.Outcomes, got, want)
				}
			}
		}
	}
}
