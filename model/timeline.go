package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/parser"
)

// Point is a crash point: the moment after an event (or before the first
// one), with what a crash then can leave at the paths the event changed.
// The outcome sets of every path in scope are the Timeline's, read
// through All while the point is the latest: a point costs what its event
// changed, not the number of paths.
type Point struct {
	Index int
	Event *Ref          // nil before the first event
	Call  *parser.Event // the event, for display
	// Changed lists the paths this event affected, sorted, and Outcomes
	// their outcome sets, in the same order; Moved lists those whose
	// outcome set changed.
	Changed  []string
	Outcomes []PathOutcomes
	Moved    []string
	// Paths is how many paths in scope the trace has touched so far: the
	// changed ones and the others, whose outcomes are as at the point
	// before.
	Paths int
	// States is how many joint crash states of the paths exist at this
	// point (saturating at 2^62; see jointCount); Explored how many of
	// them the outcome sets come from; Exact says States is exact, else it
	// is a lower bound.
	States   int64
	Explored int64
	Exact    bool

	tl *Timeline // whose latest point this was, for All
}

// All returns the outcome sets of every path in scope at this point. The
// map is the timeline's own: read it, never change it, and only while
// the point is the timeline's latest (before the next Step that returns
// a point); asking a stale point is a programming error and panics. A
// lean timeline (Lean) works the map out when asked, once per point.
func (pt Point) All() map[string]PathOutcomes {
	if pt.tl == nil {
		return map[string]PathOutcomes{} // before the first event
	}
	pt.latest("All")
	return pt.tl.all(pt)
}

// InitialPath returns the first name of inode id, when the inode existed
// before the trace ("" otherwise): the name whose content before the run
// an Initial outcome stands for at a path the trace linked to it later
// (dpkg's link of status to status-old).
func (pt Point) InitialPath(id int) string {
	if pt.tl == nil {
		return ""
	}
	if ino := pt.tl.m.Inode(id); ino != nil && ino.Initial {
		if ps := ino.Paths(); len(ps) > 0 {
			return ps[0]
		}
	}
	return ""
}

// Unmodeled reports whether inode id was changed in a way the trace
// cannot show (a shared writable mapping, io_uring, a reflink): what a
// crash leaves of it is beyond the model.
func (pt Point) Unmodeled(id int) bool {
	if pt.tl == nil {
		return false
	}
	ino := pt.tl.m.Inode(id)
	return ino != nil && ino.Unmodeled() != nil
}

func (pt Point) latest(what string) {
	if pt.tl.index != pt.Index {
		panic(fmt.Sprintf("model: Point.%s of crash point %d, but the timeline is at %d", what, pt.Index, pt.tl.index))
	}
}

// Outcome returns the outcome set of path p at the point: one of the
// changed paths', else the timeline's (see All).
func (pt Point) Outcome(p string) (PathOutcomes, bool) {
	if i, ok := slices.BinarySearch(pt.Changed, p); ok {
		return pt.Outcomes[i], true
	}
	if t := pt.tl; t != nil && t.lean && t.again == nil {
		// One path of a lean timeline: worked out alone.
		pt.latest("Outcome")
		if t.joint.recs[p] == nil {
			return PathOutcomes{}, false
		}
		return t.m.Crash(p, t.max), true
	}
	po, ok := pt.All()[p]
	return po, ok
}

// Timeline walks a trace crash point by crash point.
type Timeline struct {
	m     *Model
	scope func(string) bool
	max   int
	// current is every path's outcome set, as its last change left it;
	// nil when lean: then the joint count's records keep what a step
	// reads of them, and again is All's map of the latest point, worked
	// out when asked.
	current map[string]PathOutcomes
	lean    bool
	// summary: the changed paths' answers are crashSummary's (Summarize),
	// without words when noWords (Counts).
	summary, noWords bool
	// pointsOnly: Step finds the points and nothing of them (PointsOnly).
	pointsOnly bool
	again      map[string]PathOutcomes
	touched    map[string]bool
	index      int
	syncAll    bool // the last event touched everything (sync)
	joint      *jointInc
	// checkJoint makes every step also count from scratch and panic on a
	// difference: for tests.
	checkJoint bool
}

// NewTimeline replays events through a model of persistence p, keeping the
// crash outcomes of paths for which scope returns true.
func NewTimeline(opt Options, scope func(string) bool, maxStates int) *Timeline {
	t := &Timeline{scope: scope, max: maxStates, current: map[string]PathOutcomes{}}
	opt.Retire = false // every path is asked about at every point
	obs := opt.Observe
	opt.Observe = func(m *Model, e *Effect) {
		t.affect(e)
		if obs != nil {
			obs(m, e)
		}
	}
	t.m = New(opt)
	t.joint = newJointInc(t.m)
	return t
}

// Lean makes the timeline keep, of each path, only what a step reads of
// its outcome set (which outcomes it holds, how many of its states each
// inode holds), not the set: the states of the paths a long trace touches
// are most of what a timeline holds, and every path's are kept although
// most readers look at a point's changed paths only. The points are the
// same. All, Joint and Outcome of a path the point did not change work
// the sets out again from the model (Crash): the sets a timeline keeps,
// as long as each step lists among the changed every path whose outcome
// set its event changed (TestLeanTimelineEqualsFull holds it to that).
// Call it before the first Step.
func (t *Timeline) Lean() {
	t.lean, t.current = true, nil
}

// Summarize makes the timeline lean (Lean) and answers each step's
// changed paths as Model.crashSummary does: their outcome sets and every
// count are the same, but the States of a changed path's answer (in
// Point.Outcomes, and from Point.Outcome) list only some of its states,
// not each subset of a file's pending writes posix enumerates. For a
// reader of outcome sets and counts (states' text timeline): All still
// works every path out in full, for the one point shown state by state
// (--at). Call it before the first Step.
func (t *Timeline) Summarize() {
	t.Lean()
	t.summary = true
}

// Counts is Summarize for a reader of outcome sets and counts alone (the
// text timeline): the states a changed path's answer lists do not say in
// words which pending ops persisted (their Persisted, Applied, Torn and
// SizeOnly are empty; Kind, J and Mask say it). Building those words was
// a third of the work at each crash point of a database's trace, which
// has a point at every page it writes. Call it before the first Step.
func (t *Timeline) Counts() {
	t.Summarize()
	t.noWords = true
}

// all is All of pt, the latest point.
func (t *Timeline) all(pt Point) map[string]PathOutcomes {
	if !t.lean {
		return t.current
	}
	if t.again == nil {
		t.again = make(map[string]PathOutcomes, len(t.joint.recs))
		for p := range t.joint.recs {
			if i, ok := slices.BinarySearch(pt.Changed, p); ok && !t.summary {
				t.again[p] = pt.Outcomes[i]
			} else {
				t.again[p] = t.m.Crash(p, t.max)
			}
		}
	}
	return t.again
}

// PointsOnly makes the timeline find its crash points and work out
// nothing of them: each Step that makes a point returns it with its
// Index, Event, Call and Changed, the same as a full timeline's, but no
// outcome sets and no count (States 0, Exact false); its All, Joint and
// Outcome must not be called. For a caller that asks only which point an
// event is (the oracle, placing a stopped program), at the cost of the
// model alone. Call it before the first Step.
func (t *Timeline) PointsOnly() {
	t.pointsOnly, t.lean, t.current = true, true, nil
}

// Model returns the model the timeline drives.
func (t *Timeline) Model() *Model { return t.m }

// Start is the crash point before the first event: nothing has changed,
// every file is as it was.
func (t *Timeline) Start() Point {
	return Point{Index: 0, States: 1, Explored: 1, Exact: true}
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
		for _, p := range ino.Paths() {
			add(p)
		}
	}
	if e.Settled {
		// A file taken as there before the trace from now on has no
		// crash state without it.
		addInode(e.Inode)
	}
	switch e.Kind {
	case EffWrite, EffTruncate, EffFileSync, EffSyncFailed, EffUnmodeled:
		addInode(e.Inode)
	case EffEntry:
		t.joint.entry(e.Entry)
		for _, c := range e.Entry.Changes {
			add(c.Path)
			addInode(c.Old)
			addInode(c.New)
		}
		if len(e.Carried) > 0 {
			// The ops made in a renamed directory now change the names
			// at its new path too.
			to := e.Entry.Changes[1].Path + "/"
			for _, op := range e.Carried {
				var paths []string
				for _, c := range op.Changes {
					if strings.HasPrefix(c.Path, to) {
						add(c.Path)
						addInode(c.New)
						paths = append(paths, c.Path)
					}
				}
				t.joint.carried(op, paths)
			}
		}
	case EffSyncAll:
		t.syncAll = true
	case EffDirSync:
		// A rename between directories whose new directory was synced
		// and its old one not: its new name is durable, the op is not
		// (persistPart).
		for _, op := range e.Covered {
			if op.Durable {
				continue
			}
			for _, c := range op.Changes {
				if c.New != nil && !opOn(t.m.names[c.Path], op) {
					add(c.Path)
					addInode(c.New)
					t.joint.persistedPart(op, c.Path)
				}
			}
		}
	}
	for _, op := range e.Persisted {
		t.joint.persisted(op)
		for _, c := range op.Changes {
			add(c.Path)
			addInode(c.New)
		}
	}
}

// Step applies an event and returns the crash point after it, or false
// when the event changed nothing in scope.
func (t *Timeline) Step(ev *parser.Event) (Point, bool) {
	// Most steps touch a path or two: the map is cleared and kept rather
	// than made anew (a map a step was 8% of the timeline's goroutine),
	// unless a step touched many (a sync): see reuseMap.
	t.touched = reuseMap(t.touched)
	t.syncAll = false
	t.m.Apply(ev)
	if t.syncAll {
		for p := range t.joint.recs {
			t.touched[p] = true
		}
	}
	// A directory's change can change every name below it, however deep
	// (a directory made durable: the names below can no longer go with
	// it): below lists a directory's children on the way to the recorded
	// paths, and the walk goes down through them.
	isDirName := func(p string) bool {
		n := t.m.names[p]
		return n != nil && (n.Cache != nil && n.Cache.Dir || n.Durable != nil && n.Durable.Dir)
	}
	var dirs []string
	for p := range t.touched {
		if isDirName(p) {
			dirs = append(dirs, p)
		}
	}
	for len(dirs) > 0 {
		d := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		for _, p := range t.joint.below[d] {
			if !t.touched[p] {
				t.touched[p] = true
				dirs = append(dirs, p)
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
	t.again = nil
	r := refOf(ev)
	if t.pointsOnly {
		// What the next steps read of this one: which paths are
		// recorded, and the directories on the way to them.
		for _, p := range changed {
			t.joint.enlist(p)
		}
		t.joint.newOps = t.joint.newOps[:0]
		t.joint.carriedOps = t.joint.carriedOps[:0]
		return Point{Index: t.index, Event: &r, Call: ev, Changed: changed, tl: t}, true
	}
	pt := Point{Index: t.index, Event: &r, Call: ev, Changed: changed, Outcomes: make([]PathOutcomes, len(changed)), tl: t}
	for i, p := range changed {
		var po PathOutcomes
		if t.summary {
			po = t.m.crashSummary(p, t.max, !t.noWords)
		} else {
			po = t.m.Crash(p, t.max)
		}
		// The joint count's record of p says what p's outcomes were.
		if r := t.joint.recs[p]; r == nil || r.outcomes != setOf(po.Outcomes) {
			pt.Moved = append(pt.Moved, p)
		}
		if !t.lean {
			t.current[p] = po
		}
		pt.Outcomes[i] = po
	}
	t.joint.update(changed, pt.Outcomes)
	pt.Paths = len(t.joint.recs)
	pt.States, pt.Explored, pt.Exact = t.joint.count()
	if t.checkJoint {
		if s, e, x := t.m.jointCount(pt.All()); s != pt.States || e != pt.Explored || x != pt.Exact {
			panic(fmt.Sprintf("model: joint count after line %d: incremental %d of %d (exact %v), from scratch %d of %d (exact %v)",
				ev.Pos.Line, pt.Explored, pt.States, pt.Exact, e, s, x))
		}
	}
	// A saturated count is a bound, however the states were counted.
	if pt.States >= 1<<62 {
		pt.Exact = false
	}
	return pt, true
}

func satMul(a, b int64) int64 {
	if a != 0 && b > (1<<62)/a {
		return 1 << 62
	}
	return a * b
}

// outcomeSet is a set of outcomes: a bit per place in outcomesInOrder.
// An outcome set's Outcomes list them in that order, each once, so that
// two lists are the same when their sets are.
type outcomeSet uint8

func setOf(os []Outcome) outcomeSet {
	var s outcomeSet
	for _, o := range os {
		s |= 1 << o.rank()
	}
	return s
}
