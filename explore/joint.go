package explore

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// cand is a candidate state: one joint crash state at a crash point,
// before it is built.
type cand struct {
	point int       // the crash point's place, 0 before the first event
	ord   int       // the candidate's place among the point's
	ref   model.Ref // the crash point's event (Line 0 before the first)
	sp    *model.JointSpace
	js    *model.JointState
	fam   Family // 0 at a point explored exhaustively
	hint  string // the path of the finding that predicts it
}

// walk replays the trace through a new timeline and hands visit the
// candidate states of each crash point, in a fixed order (the same in
// every replay), and end each crash point's place with the last event
// before the next one: a crash after any event from the point's own to
// that one leaves the same states. With e.wanted set, a point it does not
// want is stepped over without making its candidates.
func (e *explorer) walk(ctx context.Context, stream parser.Stream, visit func(*cand) error, end func(int, model.Ref) error) error {
	e.replays++
	first := e.replays == 1
	if err := os.RemoveAll(e.durableDir()); err != nil {
		return err
	}
	if err := os.Mkdir(e.durableDir(), 0o755); err != nil {
		return err
	}
	e.durable, e.links, e.durErr, e.contents = map[int]*durableCopy{}, map[int]string{}, nil, map[contentKey]content{}
	mopt := model.Options{Persistence: e.opt.Persistence, Existed: e.opt.Existed, InitialSize: initialSize(e.opt), Cwd: e.opt.Cwd, FDs: e.opt.FDs, NameFiles: e.opt.NameFiles,
		Durable: e.onDurable,
		Observe: func(m *model.Model, ef *model.Effect) {
			if ef.Kind == model.EffEntry && ef.Entry.Kind == model.EntrySymlink {
				if ino := ef.Entry.Node(); ino != nil && ef.Event.Arg(0).HasStr {
					e.links[ino.ID] = ef.Event.Arg(0).Str
				}
			}
		}}
	if mopt.Existed == nil && e.opt.Initial != "" {
		mopt.Existed = ExistedIn(e.opt.Root, e.opt.Initial)
	}
	e.tl = model.NewTimeline(mopt, e.inScope, e.opt.PathStates)

	point := 0
	var g *pointGen
	emit := func(cs []*cand) error {
		for _, c := range cs {
			if ctx.Err() != nil {
				return nil
			}
			if err := visit(c); err != nil {
				return err
			}
		}
		return nil
	}
	start := func(pt model.Point, ref model.Ref) error {
		if first {
			e.res.Points++
			e.mu.Lock() // the workers count checks into earlier points (EveryLine)
			e.points = append(e.points, PointStats{Line: ref.Line, Admitted: pt.States, Exact: pt.Exact})
			e.mu.Unlock()
			if e.res.Points == 1 {
				e.res.Admitted, e.res.AdmittedExact = pt.States, pt.Exact
			} else {
				e.res.Admitted = satAdd(e.res.Admitted, pt.States)
				e.res.AdmittedExact = e.res.AdmittedExact && pt.Exact
			}
			for i, p := range pt.Changed {
				for _, ps := range pt.Outcomes[i].States {
					if ino := e.tl.Model().Inode(ps.Inode); ino != nil && !ino.Dir {
						e.files[p] = true
					}
				}
			}
		}
		g = nil
		clear(e.contents)
		if e.wanted != nil && !e.wanted(point) {
			return nil
		}
		g = e.newGen(point, pt, ref, first)
		return emit(g.initial())
	}
	if err := start(e.tl.Start(), model.Ref{}); err != nil {
		return err
	}
	var last model.Ref
	for ctx.Err() == nil {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if first {
			e.res.Events++
		}
		pt, ok := e.tl.Step(ev)
		if e.durErr != nil {
			return e.durErr
		}
		if ok {
			if first {
				e.boundPoint(point)
			}
			if err := end(point, last); err != nil {
				return err
			}
			point++
			if err := start(pt, *pt.Event); err != nil {
				return err
			}
			if first && point%64 == 0 {
				p := Progress{Phase: "replay", Points: e.res.Points, Candidates: e.res.Candidates, Distinct: e.res.Distinct}
				e.mu.Lock()
				e.progress(p)
				e.mu.Unlock()
			}
		} else if fs := e.predict[ev.Pos.Line]; len(fs) > 0 && g != nil && point > 0 {
			// A finding shown after an event that changed nothing in
			// scope: its state is one of the current point's.
			if err := emit(g.predicted(fs)); err != nil {
				return err
			}
		}
		last = model.Ref{Seq: ev.Seq, File: ev.Pos.File, Line: ev.Pos.Line, EndLine: ev.EndLine, PID: ev.PID, Syscall: ev.Name}
		if ev.Kind != parser.KindSyscall {
			last.Syscall = ev.Kind.String() // +++ exited with 0 +++
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if first {
		e.boundPoint(point)
	}
	return end(point, last)
}

// boundPoint raises the count of states the model admits at crash point
// i, when that count is only a lower bound, to the states built there:
// each is a distinct state the model admits at the point. The model's
// bound can fall short of them: "at least 2 states, 32 built" read as if
// explore had built states the model does not admit.
func (e *explorer) boundPoint(i int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := &e.points[i]
	if p.Exact || int64(p.Built) <= p.Admitted {
		return
	}
	e.res.Admitted = satAdd(e.res.Admitted, int64(p.Built)-p.Admitted)
	p.Admitted = int64(p.Built)
}

func (e *explorer) durableDir() string { return filepath.Join(e.work, "durable") }

// pointGen makes the candidates of one crash point.
type pointGen struct {
	e     *explorer
	point int
	pt    model.Point
	ref   model.Ref
	sp    *model.JointSpace
	seen  map[[32]byte]bool // the trees (model TreeKey) of the candidates made
	ord   int
	stat  *PointStats // nil in a later replay
}

func (e *explorer) newGen(point int, pt model.Point, ref model.Ref, first bool) *pointGen {
	g := &pointGen{e: e, point: point, pt: pt, ref: ref, sp: pt.Joint(), seen: map[[32]byte]bool{}}
	if first {
		g.stat = &e.points[point]
	}
	return g
}

// add makes a candidate of js, unless the point has one of the same tree.
func (g *pointGen) add(out []*cand, js *model.JointState, fam Family, hint string) []*cand {
	k := js.TreeKey()
	if g.seen[k] {
		return out
	}
	g.seen[k] = true
	c := &cand{point: g.point, ord: g.ord, ref: g.ref, sp: g.sp, js: js, fam: fam, hint: hint}
	g.ord++
	if g.stat != nil {
		g.stat.Built++
		if fam != 0 {
			g.stat.Families |= fam
			g.e.res.Families.add(fam)
		}
	}
	return append(out, c)
}

// initial makes the point's candidates: every joint state when the model
// admits at most MaxJoint of them (those findings predict first), else
// the families.
func (g *pointGen) initial() []*cand {
	e := g.e
	max := e.opt.MaxJoint
	var fs []*check.Finding
	if g.point > 0 {
		fs = e.predict[g.ref.Line]
	}
	if g.pt.Exact && g.pt.States <= int64(max) {
		if g.stat != nil {
			g.stat.Exhaustive = true
			e.res.Exhaustive++
		}
		// The predicted states are among them: first, in the findings'
		// order.
		first := map[[32]byte]int{}
		for _, c := range g.predictedStates(fs) {
			if _, ok := first[c.tk]; !ok {
				first[c.tk] = len(first)
			}
		}
		lead := make([]*model.JointState, len(first))
		var rest []*model.JointState
		for js := range g.sp.All {
			if i, ok := first[js.TreeKey()]; ok {
				lead[i] = js
			} else {
				rest = append(rest, js)
			}
		}
		var out []*cand
		for _, js := range append(lead, rest...) {
			if js != nil {
				out = g.add(out, js, 0, "")
			}
		}
		return out
	}
	if g.stat != nil {
		e.res.Sampled++
	}
	out := g.predicted(fs)
	pending := g.sp.Pending()
	n := len(pending)
	share := max / 4
	if share < 1 {
		share = 1
	}
	room := func() bool { return len(out) < max }
	for _, k := range spread(n+1, share) {
		if !room() {
			break
		}
		out = g.add(out, g.sp.Prefix(k), FamilyPrefix, "")
	}
	for _, k := range spread(n, share) {
		if !room() {
			break
		}
		out = g.add(out, g.sp.Drop(k), FamilyDrop, "")
	}
	// One state per pending op that can take the form, spread over them:
	// each write torn, and each write's size without its data (zeros
	// where its bytes should be: an append whose length reached the disk
	// first), where the model allows it.
	each := func(can func(int) bool, build func(int) (*model.JointState, bool), fam Family) {
		var ks []int
		for k := range n {
			if can(k) {
				ks = append(ks, k)
			}
		}
		for _, i := range spread(len(ks), share) {
			if !room() {
				break
			}
			if js, ok := build(ks[i]); ok {
				out = g.add(out, js, fam, "")
			}
		}
	}
	each(g.sp.Tearable, g.sp.Torn, FamilyTorn)
	each(g.sp.Sizable, g.sp.SizeOnly, FamilySize)
	if e.opt.Samples > 0 {
		r := rand.New(rand.NewPCG(e.opt.Seed, uint64(g.point)))
		for drawn, tries := 0, 0; drawn < e.opt.Samples && tries < 4*e.opt.Samples && room(); tries++ {
			before := len(out)
			out = g.add(out, g.sp.Sample(r), FamilyRandom, "")
			if len(out) > before {
				drawn++
			}
		}
	}
	return out
}

// spread picks up to k of the indices 0..n-1, evenly, the first and the
// last among them.
func spread(n, k int) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if k == 1 {
		return []int{n - 1}
	}
	out := make([]int, 0, k)
	for i := range k {
		j := i * (n - 1) / (k - 1)
		if len(out) == 0 || out[len(out)-1] != j {
			out = append(out, j)
		}
	}
	return out
}

type predictedState struct {
	js   *model.JointState
	tk   [32]byte
	hint string
}

// predictedStates are the states findings demonstrate at this point: the
// finding's path in the state the finding names, the other operations
// all persisted where the model allows (what a cross-file mistake needs:
// a rename on disk while the file it publishes is not), then none of
// them.
func (g *pointGen) predictedStates(fs []*check.Finding) []predictedState {
	var out []predictedState
	for _, f := range fs {
		st := f.State
		po, ok := g.pt.Outcome(st.Path)
		if !ok {
			continue
		}
		target, ok := matchState(po.States, st)
		if !ok {
			continue
		}
		for _, most := range []bool{true, false} {
			if js, ok := g.sp.With(st.Path, target, most); ok {
				out = append(out, predictedState{js, js.TreeKey(), st.Path})
			}
		}
	}
	return out
}

// predicted makes candidates of the states findings demonstrate.
func (g *pointGen) predicted(fs []*check.Finding) []*cand {
	var out []*cand
	for _, p := range g.predictedStates(fs) {
		out = g.add(out, p.js, FamilyPredicted, p.hint)
	}
	return out
}

// matchState finds the path's crash state a finding names: the same
// outcome and the same operations persisted (else the first with the same
// outcome).
func matchState(states []model.PathState, st *check.State) (model.PathState, bool) {
	for _, s := range states {
		if string(s.Outcome) == st.Outcome && s.Persisted == st.Persisted {
			return s, true
		}
	}
	for _, s := range states {
		if string(s.Outcome) == st.Outcome {
			return s, true
		}
	}
	return model.PathState{}, false
}

// describe notes what state s holds that the program did not see, while
// the model is at its crash point.
func (e *explorer) describe(s *state, c *cand) {
	if c.sp == nil {
		return
	}
	m := e.tl.Model()
	gone := map[string]bool{}
	for _, p := range c.sp.Paths() {
		if c.js.AsSeen(p) {
			if d, ok := seenEmpty(m, c.js, p); ok {
				s.seen = append(s.seen, d)
			}
			continue
		}
		ps := c.js.Path(p)
		if ps.Gone != "" && gone[ps.Gone] {
			continue // said with its directory
		}
		if ps.Outcome == model.Missing {
			gone[p] = true
		}
		d := diff{path: p, ps: ps, words: m.StateWords(p, ps), file: true}
		ino := m.Inode(ps.Inode)
		if n := m.Names()[p]; ino == nil && n != nil {
			ino = n.Cache
		}
		if ino != nil {
			d.file, d.paths = !ino.Dir, ino.Paths()
		}
		s.diffs = append(s.diffs, d)
	}
	s.lost = c.js.Lost()
	s.primary = -1
	for i, d := range s.diffs {
		if d.path == c.hint {
			s.primary = i
			break
		}
	}
	// Else the first file at a path check reports a loss at, the worst
	// finding's first (an error's before a warning's: files saved in turn
	// and renamed before one directory fsync each have a warning, the one
	// never synced an error), then the first whose file check reports a
	// loss of by another name, else the first file: a temp file left
	// empty beside a file that lost its data is not what the checker
	// rejects, and the finding goes by its primary's path into a problem.
	worst := check.Severity(0)
	for _, d := range s.diffs {
		if d.file {
			worst = max(worst, e.lossy[d.path])
		}
	}
	for _, pick := range []func(diff) bool{
		func(d diff) bool { return d.file && worst > 0 && e.lossy[d.path] == worst },
		func(d diff) bool { return d.file && e.lossy[d.path] > 0 },
		func(d diff) bool {
			return d.file && slices.ContainsFunc(d.paths, func(p string) bool { return e.lossy[p] > 0 })
		},
		func(d diff) bool { return d.file },
	} {
		for i, d := range s.diffs {
			if s.primary < 0 && pick(d) {
				s.primary = i
			}
		}
	}
	if s.primary < 0 && len(s.diffs) > 0 {
		s.primary = 0
	}
}

// seenEmpty is path p as state js holds it, where that is what the
// program saw at the crash point and the program saw an empty file there
// (right after it truncated the file to rewrite it): a candidate for what
// the checker rejects, though no different from the program's view
// (findings, blameSeen).
func seenEmpty(m *model.Model, js *model.JointState, p string) (diff, bool) {
	n := m.Names()[p]
	if n == nil || n.Cache == nil || n.Cache.Dir || n.Cache.Size != 0 {
		return diff{}, false
	}
	ps := js.Path(p)
	ps.Outcome = model.Empty
	return diff{path: p, ps: ps, words: "empty as the program saw it", file: true, paths: n.Cache.Paths(), seen: true}, true
}

func satAdd(a, b int64) int64 {
	if a > 1<<62-b {
		return 1 << 62
	}
	return a + b
}
