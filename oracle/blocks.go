package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/blocklog"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/tracer"
)

// BlockOptions configure RunBlocks.
type BlockOptions struct {
	Options
	// Exhaustive: a point with at most this many writes in flight replays
	// every subset of them (0: 6, so at most 64 subsets).
	Exhaustive int
	// Samples: random subsets replayed at a point with more in flight
	// (0: 24), besides its prefixes, one-dropped and torn states.
	Samples int
	Seed    uint64 // of the samples (0: 1)
}

// BlockResult is the comparison of every replayed state under one model.
type BlockResult struct {
	FS      string           `json:"fs"`
	Model   string           `json:"model"`
	Command []string         `json:"command"`
	Points  []BlockPoint     `json:"points"`
	Summary BlockSummary     `json:"summary"`
	Enum    BlockEnumeration `json:"enumeration"`
	Dir     string           `json:"dir,omitempty"`
}

// BlockEnumeration records the bounds a run used, so it can be repeated.
type BlockEnumeration struct {
	Exhaustive int    `json:"exhaustive"`
	Samples    int    `json:"samples"`
	Seed       uint64 `json:"seed"`
}

// BlockPoint is one crash point and every state replayed at it.
type BlockPoint struct {
	Index    int    `json:"index"`
	Line     int    `json:"line"`
	Syscall  string `json:"syscall"`
	Call     string `json:"call"`
	Reached  bool   `json:"reached"`
	Flushes  int    `json:"flushes"`  // flushes the device had been sent before the point
	InFlight int    `json:"inFlight"` // writes and discards since the last of them
	// Subsets is 2^InFlight (saturating): the states a device that
	// reorders can leave, without torn writes.
	Subsets  uint64 `json:"subsets"`
	States   int    `json:"states"`   // states replayed
	Windows  int    `json:"windows"`  // flushes during the call with writes in flight before them
	Distinct int    `json:"distinct"` // distinct trees of the work directory
	// DistinctAt counts the trees of the states at the point itself (the
	// single-snapshot oracle sees one of them), DistinctDuring those of a
	// crash in the middle of the call.
	DistinctAt     int                   `json:"distinctAt"`
	DistinctDuring int                   `json:"distinctDuring"`
	Unmountable    []string              `json:"unmountable"` // states the filesystem would not mount
	Paths          map[string]*BlockPath `json:"paths"`
	Sound          bool                  `json:"sound"`
	Mismatches     []BlockMismatch       `json:"mismatches"`
	Note           string                `json:"note,omitempty"`
}

// BlockPath is what one path showed over every state of a point.
type BlockPath struct {
	Observed []string `json:"observed"` // outcome of each distinct content at the point (and after the last), as the plain oracle names it
	// During are the outcomes of a crash in the middle of the call: each
	// fits this point's prediction or the point's before.
	During    []string `json:"during"`
	Predicted []string `json:"predicted"` // the model's set
	Produced  []string `json:"produced"`  // the predicted outcomes some state showed
	Untracked bool     `json:"untracked,omitempty"`
}

// BlockMismatch is an outcome outside the predicted set, with the state
// that showed it.
type BlockMismatch struct {
	Path      string   `json:"path"`
	Observed  string   `json:"observed"`
	Matches   []string `json:"matches"`
	Predicted []string `json:"predicted"`
	Untracked bool     `json:"untracked,omitempty"`
	Size      int64    `json:"size"`
	State     string   `json:"state"`           // which in-flight writes it kept
	Image     string   `json:"image,omitempty"` // the replayed image, when kept
}

// BlockSummary counts a result.
type BlockSummary struct {
	Points      int     `json:"points"`
	Reached     int     `json:"reached"`
	States      int     `json:"states"`   // replayed, over all points
	Mounted     int     `json:"mounted"`  // distinct images mounted
	Distinct    int     `json:"distinct"` // sum over points of distinct trees
	Unmountable int     `json:"unmountable"`
	Mismatches  int     `json:"mismatches"`
	Predicted   int     `json:"predicted"` // predicted outcomes, over points and paths
	Produced    int     `json:"produced"`  // of them, shown by some state
	Precision   float64 `json:"precision"` // produced / predicted
	Sound       bool    `json:"sound"`
	// ReplaySeconds is the time spent building, mounting and reading
	// states; StatesPerSecond is States over it.
	ReplaySeconds   float64 `json:"replaySeconds"`
	StatesPerSecond float64 `json:"statesPerSecond"`
}

// blockObs is what the logged run showed at one crash point, and the
// states listed under it.
type blockObs struct {
	target
	reached           bool
	trace             string // the run's trace up to the stop
	live              Tree
	flushes, inFlight int
	subsets           uint64
	states            []replayed
	windows           int // windows before the point's flushes (during its call)
	note              string
}

// replayed is one state: which points it can be a crash of (the point
// itself, or the point before and this one when it is a state of a power
// cut during this point's call), and the tree it mounted as ("" when it
// did not mount).
type replayed struct {
	desc   string
	during bool
	cands  []int
	tree   string
	err    string
	image  string // kept image, if any
}

// RunBlocks runs the program once on a filesystem whose device writes are
// logged (a loop device over an image served by blocklog), stopping it at
// every crash point to mark the log, and then replays at each point every
// state the log allows (see blocklog.Point.States), mounts each, and
// compares its work directory with the models. On every way out whatever
// it mounted, attached or served is undone.
func RunBlocks(ctx context.Context, opt BlockOptions) (res []*BlockResult, err error) {
	if err := blocklog.Preflight(); err != nil {
		return nil, &EnvError{err.Error()}
	}
	if opt.Exhaustive == 0 {
		opt.Exhaustive = 6
	}
	if opt.Samples == 0 {
		opt.Samples = 24
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Exhaustive > 16 {
		return nil, fmt.Errorf("oracle: --blocks-exhaustive %d: at most 16 (2^16 mounts per point)", opt.Exhaustive)
	}
	var srv *blocklog.Server
	res, err = runWith(ctx, opt.Options, func(r *runner) ([]*BlockResult, error) {
		targets, err := r.learn(ctx)
		if err != nil {
			return nil, err
		}
		obs, err := r.observeBlocks(ctx, targets, &srv)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		trees := map[string]Tree{}
		mounted, err := r.replayBlocks(ctx, opt, obs, trees)
		if err != nil {
			return nil, err
		}
		took := time.Since(start)
		var out []*BlockResult
		for _, p := range r.opt.Models {
			br, err := r.compareBlocks(p, obs, trees)
			if err != nil {
				return nil, err
			}
			br.Enum = BlockEnumeration{opt.Exhaustive, opt.Samples, opt.Seed}
			br.Summary.Points = len(targets)
			br.Summary.ReplaySeconds = took.Seconds()
			br.Summary.Mounted = mounted
			if took > 0 {
				br.Summary.StatesPerSecond = float64(br.Summary.States) / took.Seconds()
			}
			if r.opt.Keep {
				br.Dir = r.dir
			}
			out = append(out, br)
		}
		return out, nil
	}, func() error {
		// After the loop devices are gone, before the directory is.
		if srv == nil {
			return nil
		}
		return srv.Close()
	})
	return res, err
}

// runWith sets a runner up as Run does (preflight, temporary directory,
// initial image), calls f, and undoes everything: the system's mounts and
// loop devices first, then after (what was under them), then the
// directory.
func runWith[T any](ctx context.Context, opt Options, f func(*runner) (T, error), after func() error) (res T, err error) {
	var zero T
	r, err := newRunner(ctx, opt)
	if err != nil {
		return zero, err
	}
	opt = r.opt
	r.dir, err = os.MkdirTemp("", "crashsim-oracle-")
	if err != nil {
		return zero, err
	}
	// Stopped last, once everything is undone, as Run's.
	r.sys.guardBlocks(r.dir, opt.Keep)
	defer r.sys.unguard()
	if !opt.Keep {
		defer os.RemoveAll(r.dir)
	}
	defer func() {
		if cerr := r.sys.cleanup(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("cleanup: %w", cerr))
		}
		if aerr := after(); aerr != nil {
			err = errors.Join(err, fmt.Errorf("cleanup: %w", aerr))
		}
	}()
	r.live = filepath.Join(r.dir, "live")
	r.crashMP = filepath.Join(r.dir, "crash")
	r.work = filepath.Join(r.live, "work")
	r.initImg = filepath.Join(r.dir, "initial.img")
	r.runImg = filepath.Join(r.dir, "run.img")
	for _, d := range []string{r.live, r.crashMP, filepath.Join(r.dir, "traces"), filepath.Join(r.dir, "fuse"), filepath.Join(r.dir, "states")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return zero, err
		}
	}
	if err := r.prepare(ctx); err != nil {
		return zero, err
	}
	return f(r)
}

// observeBlocks runs the program once on the logged device, stopping it
// after every call of the crash points' syscalls; at each stop that is a
// new crash point it marks the log, records the live tree and keeps the
// trace so far.
func (r *runner) observeBlocks(ctx context.Context, targets []target, srvp **blocklog.Server) (map[int]*blockObs, error) {
	obs := map[int]*blockObs{}
	names := map[string]bool{}
	for _, t := range targets {
		obs[t.index] = &blockObs{target: t}
		names[t.syscall] = true
	}
	if _, err := r.sys.run(ctx, "cp", "--sparse=always", r.initImg, r.runImg); err != nil {
		return nil, err
	}
	srv, err := blocklog.Serve(filepath.Join(r.dir, "fuse"), r.runImg, filepath.Join(r.dir, "blocks.log"))
	if err != nil {
		return nil, &EnvError{err.Error()}
	}
	*srvp = srv
	r.sys.logf("serving %s through FUSE, logging to blocks.log", r.runImg)
	dev, err := r.sys.attach(ctx, srv.Image())
	if err != nil {
		return nil, err
	}
	if err := r.sys.mount(ctx, dev, r.live, r.spec.name, r.spec.liveOpts); err != nil {
		return nil, err
	}
	if err := srv.Mark(0); err != nil { // the mount's own writes are before every point
		return nil, err
	}
	out := filepath.Join(r.dir, "traces", "blocks.strace")
	var extra []string
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		extra = append(extra, "-e", "inject="+n+":signal=SIGSTOP:when=1+")
	}
	tr, err := r.startOutside(out, extra...)
	if err != nil {
		return nil, err
	}
	defer tr.kill()
	last, handled := 0, 0
	deadline := time.Now().Add(r.opt.Timeout)
	for {
		b, _ := os.ReadFile(out)
		if end, pid, ok := nthStop(b, handled); ok {
			handled++
			idx, err := r.pointIndex(b[:end])
			if err != nil {
				return nil, err
			}
			if o := obs[idx]; idx > last && o != nil {
				if err := srv.Mark(idx); err != nil {
					return nil, err
				}
				o.reached = true
				o.trace = filepath.Join(r.dir, "traces", fmt.Sprintf("point-%d.strace", idx))
				if err := os.WriteFile(o.trace, b[:end], 0o644); err != nil {
					return nil, err
				}
				if o.live, err = ReadTree(r.work); err != nil {
					return nil, err
				}
				// Only the stopped thread is frozen: if others made calls
				// meanwhile, the mark is late and so is the live tree.
				if b2, err := os.ReadFile(out); err == nil && len(b2) > end {
					if i := bytes.LastIndexByte(b2, '\n'); i >= end {
						if grew := others(b2[end : i+1]); grew != "" {
							o.note = "other threads ran while the log was marked, so the states of this point may be of a later one: " + grew
						}
					}
				}
				last = idx
			}
			// Stops are progress: the time limit is for a run without them.
			deadline = time.Now().Add(r.opt.Timeout)
			_ = syscall.Kill(pid, syscall.SIGCONT)
			continue
		}
		select {
		case err := <-tr.done:
			tr.once.Do(func() { tr.err = err })
			if err != nil {
				return nil, fmt.Errorf("the program failed in its logged run (%v); run it with -v to see its output", err)
			}
			if err := r.stopLive(dev); err != nil {
				return nil, err
			}
			w, by, fl := srv.Stats()
			r.sys.logf("logged %d writes (%d bytes) and %d flushes", w, by, fl)
			return obs, srv.Close()
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the program ran longer than %v without reaching a crash point", r.opt.Timeout)
		}
	}
}

// startOutside starts strace as start does, in the work directory, but
// without a chdir in the child. Go starts a child with vfork, and until
// the child execs the parent cannot stop the world for its garbage
// collector; a chdir into the logged filesystem needs a block read, which
// needs the FUSE server, which runs in this process: the child waits for
// the server, the server for the collector, the collector for the child.
// So this process moves into the work directory for the fork and the
// child inherits it. Nothing else in it may use relative paths meanwhile.
func (r *runner) startOutside(out string, extra ...string) (*traced, error) {
	chdirMu.Lock()
	defer chdirMu.Unlock()
	old, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(r.work); err != nil {
		return nil, err
	}
	work := r.work
	r.work = "" // start's c.Dir: no chdir in the child
	tr, err := r.start(out, extra...)
	r.work = work
	if cerr := os.Chdir(old); cerr != nil && err == nil {
		tr.kill()
		return nil, cerr
	}
	return tr, err
}

// chdirMu serializes startOutside's moves of the process's directory.
var chdirMu sync.Mutex

// replayBlocks builds, mounts and reads every state of every window of
// the log. A window at a mark belongs to that crash point. A window before
// a flush (the writes in flight while it was sent) is a crash in the
// middle of whatever sent them: it belongs to the next crash point and
// can show that point's outcomes or the one's before; after the last
// point, it belongs to the last (the program's exit, the unmount's
// writeback).
func (r *runner) replayBlocks(ctx context.Context, opt BlockOptions, obs map[int]*blockObs, trees map[string]Tree) (mounted int, err error) {
	enum := blocklog.Enumeration{Exhaustive: opt.Exhaustive, Samples: opt.Samples, Seed: opt.Seed}
	idx := make([]int, 0, len(obs))
	for i := range obs {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	next := func(m int) int {
		for _, i := range idx {
			if i > m && obs[i].reached {
				return i
			}
		}
		return -1
	}
	byImage := map[string]replayed{}
	n := 0
	err = blocklog.Walk(ctx, filepath.Join(r.dir, "blocks.log"), r.initImg, r.dir, func(p *blocklog.Point) error {
		if p.ID < 0 {
			return nil // the mount's own writes, before the program
		}
		var o *blockObs
		var cands []int
		label := ""
		switch {
		case p.AtMark && p.ID == 0:
			return nil // the program has not started: the initial image
		case p.AtMark:
			o, cands = obs[p.ID], []int{p.ID}
		default:
			if k := next(p.ID); k > 0 {
				o, cands = obs[k], []int{p.ID, k}
				label = fmt.Sprintf("during the call (a flush after %d in flight): ", len(p.InFlight))
			} else if o = obs[p.ID]; o != nil {
				cands = []int{p.ID}
				label = fmt.Sprintf("after the last point (a flush after %d in flight): ", len(p.InFlight))
			}
		}
		if o == nil {
			return nil
		}
		states, total := p.States(enum)
		if p.AtMark {
			o.flushes, o.inFlight, o.subsets = p.Flushes, len(p.InFlight), total
		} else {
			o.windows++
		}
		r.sys.logf("point %d: %s%d in flight after %d flushes, %d states", o.index, label, len(p.InFlight), p.Flushes, len(states))
		for _, st := range states {
			n++
			img := filepath.Join(r.dir, "states", fmt.Sprintf("state-%d.img", n))
			k, err := p.Build(ctx, st, img)
			if err != nil {
				return err
			}
			rp, ok := byImage[k]
			if ok {
				os.Remove(img)
			} else {
				if rp, err = r.mountState(ctx, img, trees); err != nil {
					return err
				}
				if r.opt.Keep {
					rp.image = img
				} else {
					os.Remove(img)
				}
				byImage[k] = rp
			}
			rp.desc, rp.during, rp.cands = label+st.Desc, !p.AtMark, cands
			o.states = append(o.states, rp)
		}
		return nil
	})
	return len(byImage), err
}

// mountState mounts one replayed image read-write (a journal may need
// replay), reads its work directory and undoes the mount.
func (r *runner) mountState(ctx context.Context, img string, trees map[string]Tree) (replayed, error) {
	if err := ctx.Err(); err != nil {
		return replayed{}, err
	}
	dev, err := r.sys.attach(ctx, img)
	if err != nil {
		return replayed{}, err
	}
	var rp replayed
	if merr := r.sys.mount(ctx, dev, r.crashMP, r.spec.name, r.spec.crashOpts); merr != nil {
		rp.err = merr.Error()
	} else {
		t, terr := ReadTree(filepath.Join(r.crashMP, "work"))
		if terr != nil {
			rp.err = "read the work directory: " + terr.Error()
		} else {
			k := treeKey(t)
			trees[k] = t
			rp.tree = k
		}
		if err := r.sys.unmount(r.crashMP); err != nil {
			return replayed{}, err
		}
	}
	if err := r.sys.detach(dev); err != nil {
		return replayed{}, err
	}
	waitDetached(dev)
	return rp, nil
}

// waitDetached waits (up to 2 s) until dev has no backing file. A device
// something else still has open (udev probing a new device) is only
// marked to clear when that closes it, and losetup -d reports success at
// once; thousands of states attached in a row should not pile up behind
// it.
func waitDetached(dev string) {
	f := "/sys/block/" + filepath.Base(dev) + "/loop/backing_file"
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(f); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// predictAt replays a point's trace under p and returns its last crash
// point's outcomes by path relative to the work directory.
func (r *runner) predictAt(trace string, p model.Persistence) (map[string][]model.Outcome, error) {
	var last *model.Point
	if err := r.replay(trace, p, func(_ *parser.Event, mp *model.Point) {
		if mp != nil {
			last = mp
		}
	}); err != nil {
		return nil, err
	}
	pred := map[string][]model.Outcome{}
	if last == nil {
		return pred, nil
	}
	for path, po := range last.All() {
		if rel, ok := strings.CutPrefix(path, r.work+"/"); ok && len(po.Outcomes) > 0 {
			pred[rel] = po.Outcomes
		}
	}
	return pred, nil
}

// view is what a state is compared with when taken as a crash at one
// point: the model's prediction there and the history of contents.
type view struct {
	pred map[string][]model.Outcome
	h    history
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

// compareBlocks classifies the tree of every replayed state, path by
// path, as the plain oracle classifies its one copy, under p. A state
// that can be a crash at two points (during a call) fits when each path
// fits one of them.
func (r *runner) compareBlocks(p model.Persistence, obs map[int]*blockObs, trees map[string]Tree) (*BlockResult, error) {
	res := &BlockResult{FS: r.opt.FS, Model: p.String(), Command: r.opt.Cmd, Points: []BlockPoint{}}
	idx := make([]int, 0, len(obs))
	for i := range obs {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	// Point 0 is before the program's first change: everything initial.
	views := map[int]*view{0: {pred: map[string][]model.Outcome{}, h: history{initial: r.initial, latest: r.initial, earlier: map[string]bool{}}}}
	earlier := map[string]bool{}
	for _, i := range idx {
		o := obs[i]
		if !o.reached {
			continue
		}
		pred, err := r.predictAt(o.trace, p)
		if err != nil {
			return nil, fmt.Errorf("point %d: %w", o.index, err)
		}
		own, err := r.ownVersions(o.trace)
		if err != nil {
			return nil, fmt.Errorf("point %d: %w", o.index, err)
		}
		for k := range earlier {
			own[k] = true
		}
		views[i] = &view{pred: pred, h: history{initial: r.initial, latest: o.live, earlier: own}}
		for _, e := range o.live {
			if e.Kind != "dir" {
				earlier[key(e)] = true
			}
		}
	}
	produced := map[int]map[string]map[model.Outcome]bool{}
	produce := func(c int, q string, o model.Outcome) {
		if produced[c] == nil {
			produced[c] = map[string]map[model.Outcome]bool{}
		}
		if produced[c][q] == nil {
			produced[c][q] = map[model.Outcome]bool{}
		}
		produced[c][q][o] = true
	}
	res.Summary.Sound = true
	var points []*BlockPoint
	observed := map[int]map[string]map[model.Outcome]bool{}
	duringObs := map[int]map[string]map[model.Outcome]bool{}
	for _, i := range idx {
		o := obs[i]
		bp := &BlockPoint{Index: o.index, Line: o.line, Syscall: o.syscall, Call: o.call, Reached: o.reached,
			Flushes: o.flushes, InFlight: o.inFlight, Subsets: o.subsets, States: len(o.states), Windows: o.windows,
			Unmountable: []string{}, Paths: map[string]*BlockPath{}, Sound: true, Mismatches: []BlockMismatch{}}
		points = append(points, bp)
		bp.Note = o.note
		if !o.reached {
			bp.Note = "not reached in the logged run: when the program stopped after this call, the trace already held a later point (another thread ran on)"
			continue
		}
		res.Summary.Reached++
		observed[i], duringObs[i] = map[string]map[model.Outcome]bool{}, map[string]map[model.Outcome]bool{}
		paths := map[string]bool{}
		add := func(t Tree) {
			for q := range t {
				paths[q] = true
			}
		}
		add(r.initial)
		add(o.live)
		for q := range views[i].pred {
			paths[q] = true
		}
		images, at, during := map[string]bool{}, map[string]bool{}, map[string]bool{}
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
		done := map[string]bool{}
		for _, st := range o.states {
			if st.tree == "" {
				bp.Unmountable = append(bp.Unmountable, st.desc+": "+st.err)
				continue
			}
			if st.during {
				during[st.tree] = true
			} else {
				at[st.tree] = true
			}
			images[st.tree] = true
			dk := fmt.Sprint(st.tree, st.cands)
			if done[dk] {
				continue
			}
			done[dk] = true
			t := trees[st.tree]
			for _, q := range sorted {
				var got model.Outcome
				var matches []model.Outcome
				var union []model.Outcome
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
					m := classify(q, t, v.h)
					for _, x := range m {
						if has(w, x) {
							produce(c, q, x)
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
				obsd := observed[i]
				if len(st.cands) > 1 {
					obsd = duringObs[i]
				}
				if obsd[q] == nil {
					obsd[q] = map[model.Outcome]bool{}
				}
				obsd[q][got] = true
				if fits {
					continue
				}
				size := int64(-1)
				if e, ok := t[q]; ok {
					size = e.Size
				}
				bp.Sound = false
				bp.Mismatches = append(bp.Mismatches, BlockMismatch{Path: q, Observed: string(got), Matches: strs(matches), Predicted: strs(union),
					Untracked: !tracked, Size: size, State: st.desc, Image: st.image})
			}
		}
		bp.Distinct, bp.DistinctAt, bp.DistinctDuring = len(images), len(at), len(during)
		if len(bp.Unmountable) > 0 {
			bp.Sound = false
		}
	}
	for _, bp := range points {
		if bp.Reached {
			v := views[bp.Index]
			qs := map[string]bool{}
			for q := range observed[bp.Index] {
				qs[q] = true
			}
			for q := range duringObs[bp.Index] {
				qs[q] = true
			}
			for q := range qs {
				w, tracked := v.want(q, r.initial)
				path := &BlockPath{Predicted: strs(w), Observed: []string{}, During: []string{}, Produced: []string{}, Untracked: !tracked}
				for _, o := range preference {
					if observed[bp.Index][q][o] {
						path.Observed = append(path.Observed, string(o))
					}
					if duringObs[bp.Index][q][o] {
						path.During = append(path.During, string(o))
					}
				}
				for _, x := range w {
					if produced[bp.Index][q][x] {
						path.Produced = append(path.Produced, string(x))
					}
				}
				if tracked {
					res.Summary.Predicted += len(w)
					res.Summary.Produced += len(path.Produced)
				}
				// Untracked paths that stayed as they were say nothing.
				quiet := len(path.Observed) == 1 && path.Observed[0] == path.Predicted[0] && (len(path.During) == 0 || len(path.During) == 1 && path.During[0] == path.Predicted[0])
				if tracked || !quiet {
					bp.Paths[q] = path
				}
			}
		}
		res.Summary.States += bp.States
		res.Summary.Distinct += bp.Distinct
		res.Summary.Unmountable += len(bp.Unmountable)
		res.Summary.Mismatches += len(bp.Mismatches) + len(bp.Unmountable)
		if !bp.Sound {
			res.Summary.Sound = false
		}
		res.Points = append(res.Points, *bp)
	}
	if res.Summary.Predicted > 0 {
		res.Summary.Precision = float64(res.Summary.Produced) / float64(res.Summary.Predicted)
	}
	return res, nil
}

func has(list []model.Outcome, o model.Outcome) bool {
	for _, x := range list {
		if x == o {
			return true
		}
	}
	return false
}

func values(m map[string]Tree) []Tree {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Tree, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// findStrace finds strace and its version, as Run does.
func findStrace(ctx context.Context) (string, tracer.Version, error) {
	path, err := exec.LookPath("strace")
	if err != nil {
		return "", tracer.Version{}, &EnvError{"strace not found (apt-get install strace)"}
	}
	v, err := tracer.DetectVersion(ctx, path)
	if err != nil {
		return "", tracer.Version{}, &EnvError{fmt.Sprintf("strace: %v", err)}
	}
	return path, v, nil
}
