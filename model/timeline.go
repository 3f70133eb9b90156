package model

import (
	"sort"
	"strings"

	"github.com/crashsim/crashsim/parser"
)

// Point is a crash point: the moment after an event (or before the first
// one), with what a crash then can leave at every path in scope.
type Point struct {
	Index int
	Event *Ref          // nil before the first event
	Call  *parser.Event // the event, for display
	// Paths holds every path in scope the trace has touched so far.
	Paths map[string]PathOutcomes
	// Changed lists the paths this event affected, sorted; Moved those
	// whose outcome set changed.
	Changed []string
	Moved   []string
	// States is how many joint crash states of the paths exist at this
	// point (saturating at 2^62; see jointCount); Explored how many of
	// them the outcome sets come from; Exact says States is exact, else it
	// is a lower bound.
	States   int64
	Explored int64
	Exact    bool
}

// Timeline walks a trace crash point by crash point.
type Timeline struct {
	m       *Model
	scope   func(string) bool
	max     int
	current map[string]PathOutcomes
	touched map[string]bool
	index   int
	all     bool // the last event touched everything (sync)
}

// NewTimeline replays events through a model of persistence p, keeping the
// crash outcomes of paths for which scope returns true.
func NewTimeline(opt Options, scope func(string) bool, maxStates int) *Timeline {
	t := &Timeline{scope: scope, max: maxStates, current: map[string]PathOutcomes{}}
	obs := opt.Observe
	opt.Observe = func(m *Model, e *Effect) {
		t.affect(e)
		if obs != nil {
			obs(m, e)
		}
	}
	t.m = New(opt)
	return t
}

// Model returns the model the timeline drives.
func (t *Timeline) Model() *Model { return t.m }

// Start is the crash point before the first event: nothing has changed,
// every file is as it was.
func (t *Timeline) Start() Point {
	return Point{Index: 0, Paths: map[string]PathOutcomes{}, States: 1, Explored: 1, Exact: true}
}

func (t *Timeline) affect(e *Effect) {
	add := func(p string) {
		if p != "" {
			t.touched[p] = true
		}
	}
	addInode := func(ino *Inode) {
		if ino == nil {
			return
		}
		for _, p := range ino.Paths {
			add(p)
		}
	}
	switch e.Kind {
	case EffWrite, EffTruncate, EffFileSync, EffSyncFailed, EffUnmodeled:
		addInode(e.Inode)
	case EffEntry:
		for _, c := range e.Entry.Changes {
			add(c.Path)
			addInode(c.Old)
			addInode(c.New)
		}
	case EffSyncAll:
		t.all = true
	}
	for _, op := range e.Persisted {
		for _, c := range op.Changes {
			add(c.Path)
			addInode(c.New)
		}
	}
}

// Step applies an event and returns the crash point after it, or false
// when the event changed nothing in scope.
func (t *Timeline) Step(ev *parser.Event) (Point, bool) {
	t.touched = map[string]bool{}
	t.all = false
	t.m.Apply(ev)
	if t.all {
		for p := range t.current {
			t.touched[p] = true
		}
	}
	// A directory's change can change every name below it.
	var dirs []string
	for p := range t.touched {
		if n := t.m.names[p]; n != nil && (n.Cache != nil && n.Cache.Dir || n.Durable != nil && n.Durable.Dir) {
			dirs = append(dirs, p+"/")
		}
	}
	if len(dirs) > 0 {
		for p := range t.current {
			for _, d := range dirs {
				if strings.HasPrefix(p, d) {
					t.touched[p] = true
					break
				}
			}
		}
	}
	var changed []string
	for p := range t.touched {
		if t.scope(p) {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return Point{}, false
	}
	sort.Strings(changed)
	t.index++
	r := refOf(ev)
	pt := Point{Index: t.index, Event: &r, Call: ev, Changed: changed, Paths: map[string]PathOutcomes{}}
	for _, p := range changed {
		po := t.m.Crash(p, t.max)
		if old, ok := t.current[p]; !ok || !sameOutcomes(old.Outcomes, po.Outcomes) {
			pt.Moved = append(pt.Moved, p)
		}
		t.current[p] = po
	}
	for p, po := range t.current {
		pt.Paths[p] = po
	}
	pt.States, pt.Explored, pt.Exact = t.m.jointCount(pt.Paths)
	return pt, true
}

func satMul(a, b int64) int64 {
	if a != 0 && b > (1<<62)/a {
		return 1 << 62
	}
	return a * b
}

func sameOutcomes(a, b []Outcome) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
