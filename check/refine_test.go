package check

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// posix is the weakest promise: every other model refines it. Whatever a
// filesystem model lets a crash leave, posix lets it leave too, and every
// finding a filesystem model makes, posix makes as well. These tests check
// that as a property, over every fixture trace and over random traces made
// of the model's own operations.

// refinementErrors replays events through a Timeline of posix and of every
// other model side by side and returns where a model's crash state at a
// point is not a posix one, and where a model's finding is not a posix
// finding (at most a few of each).
func refinementErrors(events []*parser.Event, opt Options) []string {
	var errs []string
	report := func(format string, args ...any) {
		if len(errs) < 8 {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	tls := make([]*model.Timeline, len(model.Persistences))
	for i, p := range model.Persistences {
		tls[i] = model.NewTimeline(model.Options{Persistence: p, Existed: opt.Existed, Cwd: opt.Cwd, FDs: opt.FDs}, opt.InScope, 1<<16)
	}
	// A step that changes nothing in scope under one model (a directory
	// fsync posix does not let cover the directory's own name) leaves that
	// model's last point as it was.
	pts := make([]model.Point, len(tls))
	for _, ev := range events {
		for i, tl := range tls {
			if pt, ok := tl.Step(ev); ok {
				pts[i] = pt
			}
		}
		weak := pts[0]
		for i := 1; i < len(pts); i++ {
			for p, po := range pts[i].All() {
				wpo, ok := weak.All()[p]
				if !ok {
					// A path posix does not track is as it was: missing,
					// for one the trace made.
					for _, s := range po.States {
						if s.Outcome != model.Missing {
							report("line %d: %s can leave %s %s, posix does not track it", ev.Pos.Line, model.Persistences[i], p, s.Outcome)
						}
					}
					continue
				}
				if !wpo.Exact || !po.Exact {
					continue // sampled: the sets need not line up
				}
				have := map[string]bool{}
				for _, s := range wpo.States {
					have[stateKey(s)] = true
				}
				for _, s := range po.States {
					if !have[stateKey(s)] {
						report("line %d: %s can leave %s %s (%s), posix cannot", ev.Pos.Line, model.Persistences[i], p, s.Outcome, s.Persisted)
					}
				}
			}
		}
	}
	res, err := Run(&sliceStream{evs: events}, Options{Roots: opt.Roots, Ignore: opt.Ignore, Existed: opt.Existed, Cwd: opt.Cwd, FDs: opt.FDs, Models: model.Persistences})
	if err != nil {
		return append(errs, err.Error())
	}
	posix := map[string]bool{}
	for _, f := range res.findings {
		if f.modelSet.has(model.Posix) {
			posix[f.Rule.ID+" "+f.Path] = true
		}
	}
	for _, f := range res.findings {
		if !posix[f.Rule.ID+" "+f.Path] {
			report("line %d: %s on %s only under %s: %s", f.Line, f.Rule.ID, f.Path, strings.Join(f.Models, ","), f.Message)
		}
	}
	return errs
}

// stateKey identifies a crash state of a path across models: the inode it
// names and the data ops that persisted, not PathState.Gone. A missing
// path is one state whatever made it missing: Gone explains it by a
// directory above it only when the path's own name cannot be missing, so
// a model that made the name durable (btrfs's log) explains it by its
// directory where posix, whose name is not durable, does not; the disk
// is the same.
func stateKey(s model.PathState) string {
	return fmt.Sprintf("%s %d %s", s.Outcome, s.Inode, s.Persisted)
}

func TestFixturesRefinePosix(t *testing.T) {
	wants := fixtureWants(t)
	for _, w := range wants {
		dir := filepath.Dir(w)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name == "postgres-commit" {
				t.Skip("-short: postgres-commit is the longest fixture to refine")
			}
			listing := readListing(t, filepath.Join(dir, "initial.list"))
			evs := readAll(t, filepath.Join(dir, "f-ttt-y-xx.strace"))
			opt := Options{Roots: []string{"/tmp/crashsim-fixtures/" + name}, Existed: listing.Existed}
			for _, e := range refinementErrors(evs, opt) {
				t.Error(e)
			}
			// Without the listing, what the trace cannot tell is unknown:
			// the models must still refine posix.
			for _, e := range refinementErrors(evs, Options{Roots: opt.Roots}) {
				t.Error("no listing: " + e)
			}
		})
	}
}

func readAll(t testing.TB, name string) []*parser.Event {
	s, err := parser.Open(name, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := eventsOf(s)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// eventsOf reads every event of s, up to its end or its first error.
func eventsOf(s interface{ Next() (*parser.Event, error) }) ([]*parser.Event, error) {
	var evs []*parser.Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// sliceStream replays events already read.
type sliceStream struct {
	evs []*parser.Event
	i   int
}

func (s *sliceStream) Next() (*parser.Event, error) {
	if s.i == len(s.evs) {
		return nil, io.EOF
	}
	s.i++
	return s.evs[s.i-1], nil
}

func (s *sliceStream) Close() error { return nil }
