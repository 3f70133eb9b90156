package oracle

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// pointObs is what a source of observations saw at one crash point of the
// first run: the trace up to it (which the models replay for their
// prediction), the tree the program saw, and the crash states, each a
// tree of the work directory. A snapshot gives one state per point; a
// block replay every state its log allows, and states of a crash in the
// middle of the point's call.
type pointObs struct {
	target
	reached bool
	note    string
	trace   string
	live    Tree
	// stoppedAt is the crash point (under the first model) the run
	// stopped at, which a snapshot's rerun can miss.
	stoppedAt int
	device    *report.OracleDevice // block replay: what the device held
	states    []replayed
}

// replayed is one crash state: which points it can be a crash at (the
// point itself, or the point before and this one when it is a state of a
// power cut during this point's call), and the tree it mounted as (a key
// of the trees map; "" when it did not mount, err says why).
type replayed struct {
	desc   string
	during bool
	cands  []int
	tree   string
	err    string
	image  string // kept image, if any
}

// view is what a state is compared with when taken as a crash at one
// point: the model's prediction there and the history of contents.
type view struct {
	pred map[string][]model.Outcome
	h    history
	// blind are the paths whose file was changed out of the trace's
	// sight (see blind): any content fits, and precision leaves them out.
	blind map[string]bool
}

// want is the predicted set of q, and whether the model tracks q; paths
// it does not track must be as they were.
func (v *view) want(q string, initial Tree) ([]model.Outcome, bool) {
	if w, ok := v.pred[q]; ok {
		return w, true
	}
	if _, ok := initial[q]; ok {
		return []model.Outcome{model.Initial}, false
	}
	return []model.Outcome{model.Missing}, false
}

// outcomeSet is a set of outcomes, listed in preference order.
type outcomeSet map[model.Outcome]bool

func (s outcomeSet) list() []string {
	out := []string{}
	for _, o := range preference {
		if s[o] {
			out = append(out, string(o))
		}
	}
	return out
}

// pathTally is what the states of one point showed at one path: the
// outcome named for each state at the point and during its call, and the
// predicted outcomes some state produced (a state during a call produces
// for both its points).
type pathTally struct {
	at, during, produced outcomeSet
}

// pointPath names a path at a crash point.
type pointPath struct {
	point int
	path  string
}

// tallies holds the pathTally of every path at every point.
type tallies map[pointPath]*pathTally

func (t tallies) of(point int, path string) *pathTally {
	k := pointPath{point, path}
	tl := t[k]
	if tl == nil {
		tl = &pathTally{at: outcomeSet{}, during: outcomeSet{}, produced: outcomeSet{}}
		t[k] = tl
	}
	return tl
}

// compare classifies every state of every point, path by path, under p:
// a path fits when one of the outcomes its content matches is predicted
// at the state's point (or, for a state during a call, at either of its
// points).
func (r *runner) compare(p model.Persistence, source string, obs []*pointObs, trees map[string]Tree) (*report.OracleResult, error) {
	res := &report.OracleResult{FS: r.opt.FS, Model: p.String(), Command: r.opt.Cmd, Source: source, Points: []report.OraclePoint{}}
	views, err := r.views(p, obs)
	if err != nil {
		return nil, err
	}
	tally := tallies{}
	distinct := map[string]bool{}
	at := map[int]int{} // a point's place in res.Points
	for _, o := range obs {
		at[o.index] = len(res.Points)
		pt := report.OraclePoint{Index: o.index, Line: o.line, Syscall: o.syscall, Call: o.call, Reached: o.reached, Note: o.note,
			Device: o.device, Unmountable: []string{}, Paths: map[string]*report.OraclePath{}, Sound: true, Mismatches: []report.OracleMismatch{}}
		if o.reached {
			if note := views[o.index].note; note != "" && pt.Note == "" {
				pt.Note = note
			}
			r.classifyPoint(&pt, o, views, trees, tally)
			if views[o.index].joint != nil {
				res.Summary.Joint++
			}
			for _, st := range o.states {
				if st.tree != "" {
					distinct[st.tree] = true
				}
			}
		}
		res.Points = append(res.Points, pt)
	}
	// The paths, once every state has produced what it could.
	for k, tl := range tally {
		if len(tl.at) == 0 && len(tl.during) == 0 {
			continue // only produced for, by a state of the next point
		}
		w, tracked := views[k.point].want(k.path, r.initial)
		path := &report.OraclePath{Observed: tl.at.list(), During: tl.during.list(), Predicted: strs(w), Produced: []string{}, Untracked: !tracked}
		if len(path.During) == 0 {
			path.During = nil
		}
		for _, x := range w {
			if tl.produced[x] {
				path.Produced = append(path.Produced, string(x))
			}
		}
		if tracked && !views[k.point].blind[k.path] {
			res.Summary.Predicted += len(w)
			res.Summary.Produced += len(path.Produced)
		}
		// Untracked paths that stayed as they were say nothing.
		quiet := len(path.Observed) <= 1 && (len(path.Observed) == 0 || path.Observed[0] == path.Predicted[0]) &&
			(len(path.During) == 0 || len(path.During) == 1 && path.During[0] == path.Predicted[0])
		if tracked || !quiet {
			res.Points[at[k.point]].Paths[k.path] = path
		}
	}
	res.Summary.Sound = true
	for _, pt := range res.Points {
		res.Summary.States += pt.States
		res.Summary.Unmountable += len(pt.Unmountable)
		res.Summary.Mismatches += len(pt.Mismatches) + len(pt.Unmountable)
		res.Summary.Sound = res.Summary.Sound && pt.Sound
		if pt.Reached {
			res.Summary.Reached++
		}
	}
	res.Summary.Distinct = len(distinct)
	if res.Summary.Predicted > 0 {
		res.Summary.Precision = float64(res.Summary.Produced) / float64(res.Summary.Predicted)
	}
	return res, nil
}

// pointView is a view with what predicting it noted, and the model's
// joint states there (nil: judged path by path only).
type pointView struct {
	view
	note  string
	joint *jointView
}

// views predicts every reached point under p. Point 0 is before the
// program's first change: everything initial. Earlier contents are those
// seen live at earlier points and those a point's own run wrote, rebuilt
// from its trace.
func (r *runner) views(p model.Persistence, obs []*pointObs) (map[int]*pointView, error) {
	views := map[int]*pointView{0: {view: view{pred: map[string][]model.Outcome{}, h: history{initial: r.initial, latest: r.initial, earlier: map[string]bool{}}}}}
	earlier := map[string]bool{}
	for _, o := range obs {
		if !o.reached {
			continue
		}
		pv := &pointView{view: view{pred: map[string][]model.Outcome{}}}
		var last *model.Point
		var lastEv *parser.Event
		if err := r.replay(o.trace, p, func(ev *parser.Event, mp *model.Point) {
			if mp != nil {
				last, lastEv = mp, ev
			}
		}); err != nil {
			return nil, fmt.Errorf("point %d: %w", o.index, err)
		}
		switch {
		case last == nil:
			pv.note = "stopped before any crash point"
		case o.stoppedAt != o.index:
			pv.note = fmt.Sprintf("stopped at crash point %d (line %d: %s) instead", last.Index, lastEv.Pos.Line, r.shortCall(lastEv))
		}
		var linked map[string][]string
		if last != nil {
			for path, po := range last.All() {
				rel, ok := strings.CutPrefix(path, r.work+"/")
				if !ok || len(po.Outcomes) == 0 {
					continue
				}
				pv.pred[rel] = po.Outcomes
				if blind(last, po) {
					// Changed through a shared mapping (or io_uring):
					// the model claims nothing about what is on disk,
					// and check says so (blind-shared-mmap).
					pv.pred[rel] = blindOutcomes(po.Outcomes)
					if pv.blind == nil {
						pv.blind = map[string]bool{}
					}
					pv.blind[rel] = true
					continue
				}
				if _, before := r.initial[rel]; before {
					continue
				}
				for _, st := range po.States {
					if st.Outcome != model.Initial {
						continue
					}
					if q, ok := strings.CutPrefix(last.InitialPath(st.Inode), r.work+"/"); ok && q != rel {
						if linked == nil {
							linked = map[string][]string{}
						}
						linked[rel] = append(linked[rel], q)
					}
				}
			}
		}
		own, err := r.ownVersions(o.trace)
		if err != nil {
			return nil, fmt.Errorf("point %d: %w", o.index, err)
		}
		for k := range earlier {
			own[k] = true
		}
		pv.h = history{initial: r.initial, latest: o.live, earlier: own, linked: linked}
		pv.joint = r.jointOf(last, pv.pred, pv.blind)
		views[o.index] = pv
		for _, e := range o.live {
			if e.Kind != "dir" {
				earlier[key(e)] = true
			}
		}
	}
	return views, nil
}

// blind reports whether some file the model has at the path was changed
// in a way the trace cannot show.
func blind(pt *model.Point, po model.PathOutcomes) bool {
	for _, st := range po.States {
		if st.Outcome != model.Missing && pt.Unmodeled(st.Inode) {
			return true
		}
	}
	return false
}

// blindOutcomes is the prediction at a path whose file the model cannot
// follow: the outcomes it has, and any content.
func blindOutcomes(have []model.Outcome) []model.Outcome {
	out := slices.Clone(have)
	for _, o := range []model.Outcome{model.Initial, model.Latest, model.Earlier, model.Empty, model.Zeros, model.Torn} {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// classifyPoint classifies every path of every state of one reached
// point into tally and records in pt the states, their distinct trees,
// the unmountable ones and the mismatches.
func (r *runner) classifyPoint(pt *report.OraclePoint, o *pointObs, views map[int]*pointView, trees map[string]Tree, tally tallies) {
	pt.States = len(o.states)
	paths := map[string]bool{}
	add := func(t Tree) {
		for q := range t {
			paths[q] = true
		}
	}
	add(r.initial)
	add(o.live)
	for q := range views[o.index].pred {
		paths[q] = true
	}
	for _, st := range o.states {
		if st.tree != "" {
			add(trees[st.tree])
		}
	}
	sorted := make([]string, 0, len(paths))
	for q := range paths {
		sorted = append(sorted, q)
	}
	sort.Strings(sorted)
	at, during := map[string]bool{}, map[string]bool{}
	done := map[string]bool{}
	for _, st := range o.states {
		if st.tree == "" {
			pt.Unmountable = append(pt.Unmountable, st.desc+": "+st.err)
			pt.Sound = false
			continue
		}
		if st.during {
			during[st.tree] = true
		} else {
			at[st.tree] = true
		}
		// The same tree as a crash at the same points tells nothing new.
		dk := fmt.Sprint(st.tree, st.cands)
		if done[dk] {
			continue
		}
		done[dk] = true
		t := trees[st.tree]
		match := matchIn(t, views)
		fits := true
		for _, q := range sorted {
			if m, ok := r.classifyState(q, t, st, o.index, views, tally, match); !ok {
				m.State, m.Image = st.desc, st.image
				pt.Sound = false
				pt.Mismatches = append(pt.Mismatches, m)
				fits = false
			}
		}
		if !fits {
			continue
		}
		if ok, words := r.jointFits(st.cands, views, match); !ok {
			pt.Sound = false
			pt.Mismatches = append(pt.Mismatches, report.OracleMismatch{Joint: words, State: st.desc, Image: st.image, Size: -1})
		}
	}
	pt.Distinct, pt.DistinctAt, pt.DistinctDuring = len(at)+len(during)-overlap(at, during), len(at), len(during)
}

// classifyState names the outcome of path q in tree t, a state of point
// index that can be a crash at st.cands, records it in tally, and reports
// whether it fits; when it does not, the mismatch says what it was.
func (r *runner) classifyState(q string, t Tree, st replayed, index int, views map[int]*pointView, tally tallies, match func(c int, q string) []model.Outcome) (report.OracleMismatch, bool) {
	var got model.Outcome
	var matches, union []model.Outcome
	fits, tracked := false, false
	// The point itself first: it names the outcome.
	for ci := len(st.cands) - 1; ci >= 0; ci-- {
		c := st.cands[ci]
		v := views[c]
		if v == nil {
			continue
		}
		w, tr := v.want(q, r.initial)
		tracked = tracked || tr
		m := match(c, q)
		for _, x := range m {
			if has(w, x) {
				tally.of(c, q).produced[x] = true
			}
		}
		for _, x := range w {
			if !has(union, x) {
				union = append(union, x)
			}
		}
		g, ok := pick(m, w)
		if ci == len(st.cands)-1 || (ok && !fits) {
			got, matches = g, m
		}
		fits = fits || ok
	}
	if len(st.cands) > 1 {
		tally.of(index, q).during[got] = true
	} else {
		tally.of(index, q).at[got] = true
	}
	if fits {
		return report.OracleMismatch{}, true
	}
	size := int64(-1)
	if e, ok := t[q]; ok {
		size = e.Size
	}
	return report.OracleMismatch{Path: q, Observed: string(got), Matches: strs(matches), Predicted: strs(union), Untracked: !tracked, Size: size}, false
}

// matchIn returns what path q of tree t matches under candidate point
// c's history (classify), each answer kept: the path-by-path and the
// whole-state comparisons ask the same of every path.
func matchIn(t Tree, views map[int]*pointView) func(c int, q string) []model.Outcome {
	type key struct {
		c int
		q string
	}
	memo := map[key][]model.Outcome{}
	return func(c int, q string) []model.Outcome {
		k := key{c, q}
		m, ok := memo[k]
		if !ok {
			m = classify(q, t, views[c].h)
			memo[k] = m
		}
		return m
	}
}

func overlap(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// preference is the order in which an observed content that matches
// several outcomes is named: the most specific first.
var preference = []model.Outcome{model.Missing, model.Latest, model.Initial, model.Empty, model.Zeros, model.Earlier, model.Torn}

// pick chooses the outcome to report: the most specific match that was
// predicted, else the most specific match.
func pick(matches, want []model.Outcome) (model.Outcome, bool) {
	for _, o := range preference {
		if has(matches, o) && has(want, o) {
			return o, true
		}
	}
	for _, o := range preference {
		if has(matches, o) {
			return o, false
		}
	}
	return matches[0], false
}

func has(list []model.Outcome, o model.Outcome) bool {
	for _, x := range list {
		if x == o {
			return true
		}
	}
	return false
}

func strs(os []model.Outcome) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = string(o)
	}
	return out
}
