package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// Options configure an exploration.
type Options struct {
	Trace       string // the trace's name, for findings
	Root        string // absolute: the directory the program saved into
	Initial     string // snapshot of Root before the run; "" is an empty one
	Persistence model.Persistence
	// Scope narrows the paths below Root (check's --ignore); nil keeps all.
	Scope func(path string) bool
	// Existed tells the model what existed before the trace; nil asks the
	// snapshot (when there is one).
	Existed func(path string) (existed, known bool)
	Checker string        // shell command, run with sh -c in each state
	Jobs    int           // checkers run at once; 0 is runtime.NumCPU()
	Timeout time.Duration // per checker run; 0 is 10s
	// MaxStates bounds the checker runs; 0 is no bound.
	MaxStates int
	// PathStates bounds the states of one path at one crash point (see
	// model.Crash); 0 is 256.
	PathStates int
	Keep       bool // leave the state directories for inspection
	// Shard and Shards split a run across machines: with Shards > 1, the
	// checker runs only on distinct states Shard, Shard+Shards, ... (from
	// 1) of the order in which they are built, which is the same in every
	// shard. Each shard still builds and hashes every state, to know which
	// are distinct. 0 is one shard.
	Shard, Shards int
	// CopyStates gives every state a private copy of every file of the
	// snapshot, instead of hard links to one read-only copy (see base).
	CopyStates bool
	WorkDir    string // where the work directory goes; "" is /dev/shm or os.TempDir()
	// Predict holds crashsim check's findings on the same trace, to name
	// the rule that predicts a failing state.
	Predict []*check.Finding
	// Progress, when set, is called after each checker run (from one
	// goroutine at a time).
	Progress func(Progress)
}

// Progress is how far an exploration has got.
type Progress struct {
	Done, Total, Failed int
	Elapsed             time.Duration
}

// Result is what an exploration found.
type Result struct {
	Findings []*check.Finding
	Events   int // events read
	Points   int // crash points, counting the one before the first event
	// Candidates is how many crash states were considered; Distinct how
	// many different trees they made (each checked once); Checked how many
	// checker runs completed; Failed how many of them rejected the state.
	Candidates, Distinct, Checked, Failed int
	// Skipped counts the candidate states not built because MaxStates
	// checker runs were reached.
	Skipped     int
	Interrupted bool
	// Reused counts the candidate states built in a directory reused from
	// an earlier one (reuse.go) instead of one filled from the base.
	Reused int
	// Files is how many file paths the states varied.
	Files int
	// WorkDir holds the state directories when Options.Keep is set.
	WorkDir string
	// RootChanged lists the entries below Root that appeared, went or
	// changed while unjailed checkers ran (see Jailed): a checker wrote
	// the real files, though it runs in a state directory elsewhere.
	RootChanged []string
	// Where the time went: building and hashing states (one goroutine),
	// checker runs (summed over workers), and the whole run.
	Materialize, Check, Wall time.Duration
}

// DefaultTimeout is a checker's time limit when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// outputLimit is how much checker output is kept per state.
const outputLimit = 64 << 10

// state is one crash state: where and what it varies, and its checker run.
type state struct {
	index    int
	dir      string
	line     int // the crash point's line; 0 before the first event
	event    *model.Ref
	path     string // the varied path; "" for the state before the first event
	ps       model.PathState
	words    string      // ps in words, as at the crash point (model.StateWords)
	lost     []model.Ref // pending ops of the varied path that did not persist whole
	torn     *model.Ref
	also     []model.Ref // later crash points that leave the same files
	failed   bool
	why      string // "exit status 1", "timed out after 2s"
	output   []byte
	ran      bool
	seal     *seal // how to tell whether the checker changed the directory
	verified bool  // base.verify found the linked files unchanged after the run
}

// Run replays a trace, builds its crash states and runs the checker on
// each distinct one. Cancelling ctx stops launching checkers, kills the
// running ones and returns what was explored (Result.Interrupted).
func Run(ctx context.Context, stream parser.Stream, opt Options) (*Result, error) {
	start := time.Now()
	if opt.Jobs <= 0 {
		opt.Jobs = runtime.NumCPU()
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.PathStates <= 0 {
		opt.PathStates = 256
	}
	if opt.Shards > 1 && (opt.Shard < 1 || opt.Shard > opt.Shards) {
		return nil, fmt.Errorf("explore: shard %d of %d: a shard is 1 to %d", opt.Shard, opt.Shards, opt.Shards)
	}
	if opt.Root == "" || !filepath.IsAbs(opt.Root) {
		return nil, fmt.Errorf("explore: the root must be an absolute directory, not %q", opt.Root)
	}
	opt.Root = filepath.Clean(opt.Root)
	if opt.Initial != "" {
		// The snapshot is only read; a symlink naming it is followed once
		// here, and nothing inside it ever is.
		real, err := filepath.EvalSymlinks(opt.Initial)
		if err != nil {
			return nil, fmt.Errorf("explore: initial snapshot: %w", err)
		}
		opt.Initial = real
	}
	base := opt.WorkDir
	if base == "" {
		base = os.TempDir()
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			base = "/dev/shm"
		}
	}
	work, err := os.MkdirTemp(base, "crashsim-explore-")
	if err != nil {
		return nil, fmt.Errorf("explore: work directory: %w", err)
	}
	private, err := tracePaths(opt)
	if err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	b, err := newBase(opt.Initial, filepath.Join(work, "base"), private)
	if err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	defer b.close()
	e := &explorer{opt: opt, work: work, base: b, data: newDataCache(), durable: map[int]*durableCopy{},
		links: map[int]string{}, seen: map[[32]byte]*state{}, files: map[string]bool{}, start: start}
	defer e.data.close()
	for _, d := range []string{"durable", "states"} {
		if err := os.Mkdir(filepath.Join(work, d), 0o755); err != nil {
			os.RemoveAll(work)
			return nil, err
		}
	}
	var before rootStamps
	if !Jailed() {
		before, _ = stampsOf(opt.Root)
	}
	res, err := e.run(ctx, stream)
	if before != nil && res != nil {
		res.RootChanged = changedSince(opt.Root, before)
	}
	if opt.Keep && res != nil {
		res.WorkDir = work
		os.RemoveAll(filepath.Join(work, "durable"))
	} else {
		os.RemoveAll(work)
	}
	if res != nil {
		res.Wall = time.Since(start)
	}
	return res, err
}

type explorer struct {
	opt     Options
	work    string
	base    *base
	spare   string      // a state directory that holds the base, ready for the next candidate
	pool    chan string // state directories the checker is done with, made the base's again
	touched []string    // the paths the candidate being built placed
	data    *dataCache
	tl      *model.Timeline
	durable map[int]*durableCopy
	links   map[int]string // symlink inode → target
	seen    map[[32]byte]*state
	files   map[string]bool
	durErr  error
	states  []*state
	res     Result
	start   time.Time
}

// durableCopy is explore's copy of an inode's durable content.
type durableCopy struct {
	path string // "" until made
	err  error  // why it cannot be made (an initial file outside the snapshot)
}

func (e *explorer) inScope(p string) bool {
	if _, ok := relPath(e.opt.Root, p); !ok {
		return false
	}
	return e.opt.Scope == nil || e.opt.Scope(p)
}

// ExistedIn answers model.Options.Existed from a snapshot of root: a path
// below root existed when the snapshot holds it; of other paths it says
// nothing.
func ExistedIn(root, snapshot string) func(string) (bool, bool) {
	root = filepath.Clean(root)
	return func(p string) (bool, bool) {
		rel, ok := relPath(root, p)
		if !ok {
			return false, false
		}
		_, err := os.Lstat(filepath.Join(snapshot, rel))
		return err == nil, true
	}
}

// recycle makes a checked state's directory the base's again for a later
// candidate, undoing the placed paths and what the checker changed
// (base.changes); when that cannot be done, it removes the directory.
func (e *explorer) recycle(s *state) {
	if s.seal != nil && s.verified {
		if extra, ok := e.base.changes(s.dir, s.seal); ok && e.base.revert(s.dir, append(s.seal.touched, extra...)) == nil {
			select {
			case e.pool <- s.dir:
				return
			default:
			}
		}
	}
	e.removeDir(s.dir)
}

// removeDir removes a state directory.
func (e *explorer) removeDir(dir string) {
	e.base.forget(dir)
	os.RemoveAll(dir)
}

func (e *explorer) run(ctx context.Context, stream parser.Stream) (*Result, error) {
	e.pool = make(chan string, e.opt.Jobs+1)
	// A checker that changed a shared file stops the run (base.verify).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var shared error
	mopt := model.Options{Persistence: e.opt.Persistence, Existed: e.opt.Existed,
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

	jobs := make(chan *state)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range e.opt.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{}
			defer w.close()
			for s := range jobs {
				if ctx.Err() == nil {
					t := time.Now()
					err := e.check(ctx, s, w)
					d := time.Since(t)
					var verr error
					if err == nil && !e.opt.CopyStates {
						verr = e.base.verify()
						s.verified = verr == nil
					}
					mu.Lock()
					if verr != nil && shared == nil {
						shared = fmt.Errorf("explore: state %d (crash after line %d): %w", s.index, s.line, verr)
						cancel()
					}
					e.res.Check += d
					if err == nil && s.ran {
						e.res.Checked++
						if s.failed {
							e.res.Failed++
						}
						done++
					}
					if err == nil && e.opt.Progress != nil {
						e.opt.Progress(Progress{Done: done, Total: len(e.states), Failed: e.res.Failed, Elapsed: time.Since(e.start)})
					}
					mu.Unlock()
				}
				if !e.opt.Keep {
					e.recycle(s)
				}
			}
		}()
	}
	launch := func(s *state) {
		mu.Lock()
		e.states = append(e.states, s)
		mu.Unlock()
		select {
		case jobs <- s:
		case <-ctx.Done():
			if !e.opt.Keep {
				e.removeDir(s.dir)
			}
		}
	}
	err := e.replay(ctx, stream, launch)
	close(jobs)
	wg.Wait()
	close(e.pool)
	for d := range e.pool {
		e.removeDir(d)
	}
	if e.spare != "" {
		e.removeDir(e.spare) // not a state: the base's files, unchanged
	}
	if shared != nil {
		return &e.res, shared
	}
	if ctx.Err() != nil {
		e.res.Interrupted = true
	}
	if err != nil {
		return &e.res, err
	}
	e.res.Files = len(e.files)
	e.findings()
	return &e.res, nil
}

// replay walks the trace and hands each new distinct state to launch.
func (e *explorer) replay(ctx context.Context, stream parser.Stream, launch func(*state)) error {
	consider := func(s *state, build func(dir string) error) error {
		e.res.Candidates++
		if e.opt.MaxStates > 0 && e.res.Distinct >= e.opt.MaxStates {
			e.res.Skipped++
			return nil
		}
		t := time.Now()
		built := false
		defer func() {
			if !built {
				e.res.Materialize += time.Since(t)
			}
		}()
		// A directory left by a duplicate candidate is the base's again
		// (reuse.go); else a new one is filled from the base.
		if e.spare == "" && !e.opt.CopyStates {
			select {
			case e.spare = <-e.pool:
			default:
			}
		}
		if e.spare != "" && !e.opt.CopyStates {
			e.res.Reused++
		} else {
			e.spare = filepath.Join(e.work, "states", fmt.Sprintf("%06d", e.res.Candidates))
			if err := os.Mkdir(e.spare, 0o755); err != nil {
				return err
			}
			if err := e.populate(e.spare); err != nil {
				return err
			}
		}
		s.dir = e.spare
		e.touched = e.touched[:0]
		if err := build(s.dir); err != nil {
			e.removeDir(s.dir)
			e.spare = ""
			return err
		}
		var sum [32]byte
		var err error
		if e.opt.CopyStates {
			sum, err = hashTree(s.dir, nil)
		} else {
			sum, err = e.base.hashState(s.dir, e.touched)
		}
		if err != nil {
			return err
		}
		// done with a state no checker runs on: make its directory the
		// base's again for the next candidate.
		done := func() error {
			if e.opt.CopyStates {
				e.spare = ""
				return os.RemoveAll(s.dir)
			}
			if err := e.base.revert(s.dir, e.touched); err != nil {
				e.spare = ""
				e.removeDir(s.dir)
				return err
			}
			return nil
		}
		if first := e.seen[sum]; first != nil {
			if s.event != nil && (len(first.also) == 0 || first.also[len(first.also)-1].Line != s.line) && first.line != s.line {
				first.also = append(first.also, *s.event)
			}
			return done()
		}
		e.seen[sum] = s
		e.res.Distinct++
		s.index = e.res.Distinct
		if e.opt.Shards > 1 && (s.index-1)%e.opt.Shards != e.opt.Shard-1 {
			// Another shard's state: it counts and collects later crash
			// points that leave the same files, but is not checked here.
			e.res.Materialize += time.Since(t)
			built = true
			return done()
		}
		e.spare = "" // the checker's now
		if !e.opt.CopyStates && !e.opt.Keep {
			s.seal, _ = e.base.seal(s.dir, e.touched)
		} else {
			// Never reused: its watches would only use up the user's.
			e.base.forget(s.dir)
		}
		// Waiting for a free worker is not building.
		built = true
		e.res.Materialize += time.Since(t)
		launch(s)
		return nil
	}
	e.res.Points = 1
	if err := consider(&state{}, func(string) error { return nil }); err != nil {
		return err
	}
	for ctx.Err() == nil {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		e.res.Events++
		pt, ok := e.tl.Step(ev)
		if e.durErr != nil {
			return e.durErr
		}
		if !ok {
			continue
		}
		e.res.Points++
		for i, p := range pt.Changed {
			for _, ps := range pt.Outcomes[i].States {
				if ctx.Err() != nil {
					return nil
				}
				s := &state{line: pt.Event.Line, event: pt.Event, path: p, ps: ps, words: e.tl.Model().StateWords(ps)}
				if ino := e.tl.Model().Inode(ps.Inode); ino != nil && !ino.Dir {
					e.files[p] = true
				}
				err := consider(s, func(dir string) error { return e.build(dir, pt, s) })
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// populate fills a new state directory with the snapshot: links to the
// base, or (CopyStates) a copy of its own.
func (e *explorer) populate(dir string) error {
	if e.opt.CopyStates {
		return CopyTree(e.base.dir, dir)
	}
	return e.base.populate(dir)
}

// onDurable applies data ops that became durable to the inode's durable
// copy, before the model forgets them.
func (e *explorer) onDurable(ino *model.Inode, ops []model.DataOp) {
	if e.durErr != nil || ino.Dir {
		return
	}
	dc := e.durableOf(ino)
	if dc.err != nil {
		return // never needed, unless a state names it: said then
	}
	f, err := os.OpenFile(dc.path, os.O_RDWR, 0)
	if err != nil {
		e.durErr = err
		return
	}
	defer f.Close()
	for _, op := range ops {
		if err := applyOp(f, e.data, op, wholeBytes(op), false); err != nil {
			// Keep replaying: the error matters only for a state that
			// needs this file, and the copy is now wrong for all of them.
			dc.err = err
			return
		}
	}
}

// durableOf returns the inode's durable copy, making it on first use: the
// snapshot's file at the inode's first name for a file from before the
// trace, else an empty file.
func (e *explorer) durableOf(ino *model.Inode) *durableCopy {
	if dc, ok := e.durable[ino.ID]; ok {
		return dc
	}
	dc := &durableCopy{path: filepath.Join(e.work, "durable", fmt.Sprint(ino.ID))}
	e.durable[ino.ID] = dc
	if !ino.Initial || ino.Unsure && !e.inSnapshot(ino) {
		// Made in the trace, or opened with O_CREAT where the trace
		// cannot tell whether it existed and the snapshot does not hold
		// it: it starts empty, as a file the program created.
		f, err := createNew(dc.path)
		if err != nil {
			e.durErr = err
			dc.err = err
			return dc
		}
		f.Close()
		return dc
	}
	first := ""
	if len(ino.Paths) > 0 {
		first = ino.Paths[0]
	}
	rel, ok := relPath(e.opt.Root, first)
	src := filepath.Join(e.opt.Initial, rel)
	fi, err := os.Lstat(src)
	if !ok || e.opt.Initial == "" || err != nil || !fi.Mode().IsRegular() {
		dc.err = fmt.Errorf("%s existed before the trace, but the initial snapshot does not hold it as a file: pass --initial DIR with the files as they were before the run", first)
		return dc
	}
	if err := copyFile(src, dc.path); err != nil {
		e.durErr = err
		dc.err = err
	}
	return dc
}

// firstName is the inode's first name relative to the root, "" when it
// has none or lies outside.
func (e *explorer) firstName(ino *model.Inode) string {
	if len(ino.Paths) == 0 {
		return ""
	}
	rel, ok := relPath(e.opt.Root, ino.Paths[0])
	if !ok {
		return ""
	}
	return rel
}

// inSnapshot reports whether the initial snapshot holds ino's first name
// as a file.
func (e *explorer) inSnapshot(ino *model.Inode) bool {
	if e.opt.Initial == "" || len(ino.Paths) == 0 {
		return false
	}
	rel, ok := relPath(e.opt.Root, ino.Paths[0])
	if !ok {
		return false
	}
	fi, err := os.Lstat(filepath.Join(e.opt.Initial, rel))
	return err == nil && fi.Mode().IsRegular()
}

// build applies a crash point to a state directory that holds the
// snapshot: every tracked path as the program sees it, except s.path,
// which takes s.ps.
func (e *explorer) build(dir string, pt model.Point, s *state) error {
	all := pt.All()
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	m := e.tl.Model()
	gone := map[string]bool{} // names missing in this state
	for _, p := range paths {
		rel, ok := relPath(e.opt.Root, p)
		if !ok || rel == "." {
			continue // the root itself is the state directory
		}
		var ino *model.Inode
		var ps *model.PathState
		if p == s.path {
			ino, ps = m.Inode(s.ps.Inode), &s.ps
		} else if n := m.Names()[p]; n != nil {
			ino = n.Cache
		}
		if ino == nil {
			gone[rel] = true
		}
		if underGone(rel, gone) {
			// A directory missing in this state takes its entries with
			// it: a name whose parent never reached the disk is not there.
			continue
		}
		e.touched = append(e.touched, rel)
		if err := e.place(dir, rel, ino, ps, s, pt.Event.Line); err != nil {
			return err
		}
	}
	return nil
}

// underGone reports whether an ancestor of rel is missing.
func underGone(rel string, gone map[string]bool) bool {
	for d := filepath.Dir(rel); d != "." && d != "/"; d = filepath.Dir(d) {
		if gone[d] {
			return true
		}
	}
	return false
}

// place makes dir/rel hold ino (nil: missing), with its pending data ops
// applied as ps says (nil: all of them).
func (e *explorer) place(dir, rel string, ino *model.Inode, ps *model.PathState, s *state, line int) error {
	ok, err := parentOK(dir, rel)
	if err != nil {
		return fmt.Errorf("line %d: refusing to write %s: %w", line, rel, err)
	}
	if !ok {
		return nil // a parent is a file in this state: the name cannot exist
	}
	if ino != nil && !ino.Dir && ino.Initial && ino.Versions() == 0 && e.base.kind[rel] == 'd' && e.firstName(ino) == rel {
		// A directory from before the trace that the program opened
		// without O_DIRECTORY and never wrote (PostgreSQL fsyncs
		// pg_commit_ts so): the model cannot tell it from a file, the
		// snapshot can. The state holds it as the snapshot does.
		return nil
	}
	target := filepath.Join(dir, rel)
	fi, err := os.Lstat(target)
	exists := err == nil
	if ino != nil && ino.Dir {
		if exists && fi.IsDir() {
			return nil
		}
		if exists {
			if err := os.RemoveAll(target); err != nil {
				return err
			}
		}
		return os.Mkdir(target, 0o755)
	}
	if exists {
		if err := os.RemoveAll(target); err != nil {
			return err
		}
	}
	if ino == nil {
		return nil
	}
	if t, ok := e.links[ino.ID]; ok {
		return os.Symlink(t, target)
	}
	dc := e.durableOf(ino)
	if dc.err != nil {
		return fmt.Errorf("line %d: %w", line, dc.err)
	}
	fd, err := copyOpen(dc.path, target)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), target)
	defer f.Close()
	for i, op := range ino.MaybeOps() {
		bytes, sizeOnly := wholeBytes(op), false
		if ps != nil {
			bytes, sizeOnly = ps.Persists(i, op)
			if bytes < wholeBytes(op) {
				if bytes > 0 {
					r := op.Event
					s.torn = &r
				} else {
					s.lost = append(s.lost, op.Event)
				}
			}
		}
		if err := applyOp(f, e.data, op, bytes, sizeOnly); err != nil {
			return err
		}
	}
	return f.Close()
}
