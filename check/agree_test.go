package check

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// notLoss are the rules about speed or about what a trace cannot show: no
// crash state has to demonstrate them.
var notLoss = map[string]bool{UnalignedWrite: true, UnmodeledWrite: true, CrossDirRename: true}

// TestFindingsAndStatesAgree runs, over every fixture, the cross-check that
// findings and crash states tell one story: every finding about lost data
// points at a crash state that loses it, and every path a crash at the end
// can leave different from what the program saw has a finding.
func TestFindingsAndStatesAgree(t *testing.T) {
	wants := fixtureWants(t)
	for _, w := range wants {
		dir := filepath.Dir(w)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			trace := filepath.Join(dir, "f-ttt-y-xx.strace")
			root := "/tmp/crashsim-fixtures/" + name
			listing := readListing(t, filepath.Join(dir, "initial.list"))

			s, err := parser.Open(trace, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Roots: []string{root}, Existed: listing.Existed}
			res, err := Run(s, opt)
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			named := map[string]bool{}
			for _, f := range res.findings {
				named[f.Path] = true
				if notLoss[f.Rule.ID] {
					continue
				}
				if f.State == nil {
					t.Errorf("%s on %s (line %d): no crash state demonstrates it", f.Rule.ID, f.Path, f.Line)
					continue
				}
				if f.State.Outcome == string(model.Latest) {
					t.Errorf("%s on %s: its state is %q, which loses nothing", f.Rule.ID, f.Path, f.State.Outcome)
				}
			}

			// The other way: a losing state at the end that no rule explains.
			s, err = parser.Open(trace, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tl := model.NewTimeline(model.Options{Persistence: model.Posix, Existed: listing.Existed}, opt.InScope, 1<<16)
			for {
				ev, err := s.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				tl.Step(ev)
			}
			m := tl.Model()
			for p, n := range m.Names() {
				if !opt.InScope(p) || !strings.HasPrefix(p, root+"/") {
					continue
				}
				view := model.Latest
				if n.Cache == nil {
					view = model.Missing
					if n.Durable == nil {
						// A temp name the program removed and that was
						// never durable: a crash can leave it behind, but
						// that is litter, not lost data (check's doc.go, Scope).
						continue
					}
				}
				po := m.Crash(p, 1<<16)
				for _, o := range po.Outcomes {
					if o != view && !named[p] {
						t.Errorf("a crash at the end can leave %s %s (the program saw %s), and no finding names it", p, o, view)
						break
					}
				}
			}
		})
	}
}

func readListing(t *testing.T, name string) *model.Listing {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := model.ReadInitial(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
