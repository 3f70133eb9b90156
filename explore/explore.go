package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/reap"
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
	// InitialSize tells the model the size of a regular file before the
	// trace when there is no snapshot (a listing's "size" lines); with
	// one, the snapshot's sizes are used.
	InitialSize func(path string) (size int64, known bool)
	// Cwd and FDs are where the traced program started and the files it
	// started with open (model.Options), when a listing or the caller
	// knows them: a trace recorded without -y needs Cwd to resolve its
	// relative paths.
	Cwd string
	FDs []model.InitialFD
	// NameFiles: the trace is an strace -ff set (model.Options.NameFiles).
	NameFiles bool
	Checker   string        // shell command, run with sh -c in each state
	Jobs      int           // checkers run at once; 0 is runtime.NumCPU()
	Timeout   time.Duration // per checker run; 0 is 10s
	// MaxStates bounds the checker runs; 0 is no bound. Past it, the
	// distinct trees checked are spread evenly over the order in which
	// they were first built, the first and the last among them (plan);
	// with EveryLine, the first MaxStates checks are made (visitEvery).
	MaxStates int
	// MaxJoint bounds the joint states built at one crash point: a point
	// with at most MaxJoint of them (counted exactly) is explored
	// exhaustively; past it, at most MaxJoint are built from the families
	// (see doc.go). 0 is DefaultMaxJoint.
	MaxJoint int
	// Samples is how many random states a sampled crash point gets after
	// the systematic families, drawn with Seed; 0 is DefaultSamples, < 0
	// none.
	Samples int
	Seed    uint64
	// EveryLine checks a distinct tree at every crash point where it can
	// occur, not only at the last.
	EveryLine bool
	// PathStates bounds the states of one path at one crash point (see
	// model.Crash); 0 is 256.
	PathStates int
	Keep       bool // leave the state directories for inspection
	// Shard and Shards split a run across machines: with Shards > 1, the
	// checker runs only on states Shard, Shard+Shards, ... (from 1) of
	// those the run checks (every distinct state, or those MaxStates
	// keeps), in the order they are first built, which is the same in
	// every shard. Each shard still builds and hashes every state, to know
	// which are distinct. 0 is one shard.
	Shard, Shards int
	// CopyStates gives every state a private copy of every file of the
	// snapshot, instead of hard links to one read-only copy (see base).
	CopyStates bool
	WorkDir    string // where the work directory goes; "" is /dev/shm or os.TempDir()
	// Predict holds crashsim check's findings on the same trace: the
	// states they demonstrate are built first, and they name the rule
	// that predicts a failing state.
	Predict []*check.Finding
	// Reopen opens the trace again, for the second replay (see doc.go);
	// nil opens Trace with parser.Open.
	Reopen func() (parser.Stream, error)
	// Progress, when set, is called as the exploration goes (from one
	// goroutine at a time).
	Progress func(Progress)
}

// Defaults of Options.MaxJoint and Options.Samples.
const (
	DefaultMaxJoint = 256
	DefaultSamples  = 16
)

// Progress is how far an exploration has got: while the trace is
// replayed to find the distinct states (Phase "replay"), how many crash
// points and states so far; while checkers run (Phase "check"), how many
// of the Total states are Done.
type Progress struct {
	Phase                        string
	Points, Candidates, Distinct int
	Done, Total, Failed          int
	Elapsed                      time.Duration
}

// Result is what an exploration found.
type Result struct {
	Findings []*check.Finding
	Events   int // events read
	Points   int // crash points, counting the one before the first event
	// Admitted is how many joint crash states the model admits at all the
	// crash points together (saturating at 2^62); AdmittedExact says the
	// count is exact, else it is a lower bound.
	Admitted      int64
	AdmittedExact bool
	// Exhaustive and Sampled count the crash points whose every state was
	// built, and those past MaxJoint where families were built instead.
	Exhaustive, Sampled int
	// Families counts the states built at sampled points, by family.
	Families FamilyCounts
	Seed     uint64
	// PointStats says what was done at each crash point, in order.
	PointStats []PointStats
	// Candidates is how many crash states were made; Distinct how many
	// different trees they make; Checked how many checker runs completed;
	// Failed how many of them rejected the state.
	Candidates, Distinct, Checked, Failed int
	// Skipped counts the distinct trees MaxStates left unchecked (with
	// EveryLine, the checks past the first MaxStates), in every shard.
	Skipped     int
	Interrupted bool
	// Built counts the states built on disk (the first replay only
	// hashes them: vhash.go); Reused how many of them in a directory
	// reused from an earlier one (reuse.go) instead of one filled from the
	// base.
	Built, Reused int
	// Files is how many file paths the states varied.
	Files int
	// WorkDir holds the state directories when Options.Keep is set.
	WorkDir string
	// RootChanged lists the entries below Root that appeared, went or
	// changed while unjailed checkers ran (see Jailed): a checker wrote
	// the real files, though it runs in a state directory elsewhere.
	RootChanged []string
	// Unconfined says why checkers, jailed, ran as the host's root and
	// not as an unprivileged user of their own (see Jailed): they could
	// signal root's processes and open root's files and sockets.
	Unconfined string
	// Where the time went: building and hashing states (one goroutine),
	// checker runs (summed over workers), and the whole run.
	Materialize, Check, Wall time.Duration
}

// PointStats is what an exploration did at one crash point.
type PointStats struct {
	Line int // the event's line; 0 before the first event
	// Admitted is how many joint states the model admits here (Exact: the
	// count is exact, else a lower bound).
	Admitted int64
	Exact    bool
	// Exhaustive: every admitted state was built. Else Families says which
	// families the states built came from.
	Exhaustive bool
	Families   Family
	Built      int // states built here
	New        int // distinct trees first built here
	Checked    int // checker runs on states checked at this point
}

// Family is a set of the families of states a sampled point is built
// from, in the order they are built.
type Family uint8

const (
	FamilyPredicted Family = 1 << iota // the states check's findings demonstrate
	FamilyPrefix                       // a prefix of the pending operations persisted
	FamilyDrop                         // one pending operation dropped, the rest persisted
	FamilyTorn                         // one pending write torn
	FamilySize                         // one pending write's size on disk without its data
	FamilyRandom                       // drawn at random (Options.Seed)
)

var familyNames = []string{"predicted", "prefix", "drop", "torn", "size", "random"}

// Names lists the families in the set, in order.
func (f Family) Names() []string {
	var out []string
	for i, n := range familyNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// FamilyCounts counts states by family.
type FamilyCounts struct {
	Predicted, Prefix, Drop, Torn, Size, Random int
}

func (c *FamilyCounts) add(f Family) {
	switch f {
	case FamilyPredicted:
		c.Predicted++
	case FamilyPrefix:
		c.Prefix++
	case FamilyDrop:
		c.Drop++
	case FamilyTorn:
		c.Torn++
	case FamilySize:
		c.Size++
	case FamilyRandom:
		c.Random++
	}
}

// DefaultTimeout is a checker's time limit when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// outputLimit is how much checker output is kept per state.
const outputLimit = 64 << 10

// tree is a distinct tree the states make: where it was first built and
// where last. What is kept per tree is small; the tree is built again
// when its checker runs.
type tree struct {
	index      int // from 1, in the order trees are first built
	sum        [32]byte
	firstPoint int
	first      model.Ref // the first crash point's event (Line 0: before the first)
	lastPoint  int
	ord        int // the candidate's place among its last point's states
	points     int // how many crash points leave it
}

// state is one crash state a checker runs on.
type state struct {
	index int // the tree's (or, with EveryLine, the pair's) place
	dir   string
	point int
	line  int // the crash line: where the last event before the next point after its last point completes (Ref.Completed)
	first int // the crash line of the first crash point that leaves the same tree
	event *model.Ref
	tree  *tree
	// What the state holds that the program did not see at the point.
	diffs   []diff
	primary int // the diff a finding is about
	// seen are the paths the state holds as the program saw them, where
	// the program saw an empty file (seenEmpty): what a rejected state
	// is blamed on when check foresaw it (blameSeen).
	seen     []diff
	lost     []model.LostOp
	failed   bool
	why      string // "exit status 1", "timed out after 2s"
	output   []byte
	ran      bool
	seal     *seal // how to tell whether the checker changed the directory
	verified bool  // base.verify found the linked files unchanged after the run
}

// diff is a path that holds in a state something else than what the
// program saw.
type diff struct {
	path  string
	ps    model.PathState
	words string
	file  bool
	paths []string // every name its file had
	seen  bool     // what the program saw (seenEmpty), not a difference
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
	if opt.MaxJoint <= 0 {
		opt.MaxJoint = DefaultMaxJoint
	}
	if opt.Samples == 0 {
		opt.Samples = DefaultSamples
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
	if opt.Reopen == nil {
		trace := opt.Trace
		opt.Reopen = func() (parser.Stream, error) { return parser.Open(trace, parser.Options{}) }
	}
	work, err := os.MkdirTemp(workBase(opt.WorkDir), DirPrefix)
	if err != nil {
		return nil, fmt.Errorf("explore: work directory: %w", err)
	}
	// A run killed with its watchdog leaves the directory to the next
	// run's Sweep, which must know whose it is.
	if err := reap.OwnDir(work, opt.Keep); err != nil {
		os.Remove(work)
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
	e := &explorer{opt: opt, work: work, base: b, data: newDataCache(opt.Root, opt.Initial), trees: map[[32]byte]*tree{},
		files: map[string]bool{}, start: start, predict: map[int][]*check.Finding{}, lossy: map[string]check.Severity{}}
	e.res.Seed = opt.Seed
	for _, f := range opt.Predict {
		if f.Rule.ID == check.CheckerFailed {
			continue
		}
		e.lossy[f.Path] = max(e.lossy[f.Path], f.Rule.Severity)
		if f.State != nil {
			e.predict[f.State.Line] = append(e.predict[f.State.Line], f)
		}
	}
	defer e.data.close()
	if err := os.Mkdir(filepath.Join(work, "states"), 0o755); err != nil {
		os.RemoveAll(work)
		return nil, err
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
		os.RemoveAll(e.durableDir())
		// The user's now: no leftover for a later run to sweep.
		reap.Disown(work)
	} else {
		os.RemoveAll(work)
	}
	if res != nil {
		res.Wall = time.Since(start)
	}
	return res, err
}

// DirPrefix begins the name of every explore run's work directory, and
// of the directory its snapshot is copied into (explore -- PROGRAM).
const DirPrefix = "crashsim-explore-"

// NewRunDir makes a directory in $TMPDIR for files of one explore run
// other than its states (the snapshot explore -- PROGRAM takes), marked
// as this process's (reap.OwnDir): if the run is killed with its
// watchdog, a later run's Sweep removes it. A run that keeps it calls
// reap.Disown.
func NewRunDir() (string, error) {
	dir, err := os.MkdirTemp("", DirPrefix+"run-")
	if err != nil {
		return "", err
	}
	if err := reap.OwnDir(dir, false); err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// workBase is the directory work directories are made in: workDir when
// given, else /dev/shm, else $TMPDIR.
func workBase(workDir string) string {
	if workDir != "" {
		return workDir
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

// Sweep removes what earlier explore runs left when they were killed
// with their watchdog (kill -9 of every crashsim process): their work
// directories below workDir (or /dev/shm) and $TMPDIR, and their
// cgroups. Only what such a run provably made goes: a directory of this
// user, not a link, holding the record reap.OwnDir wrote when it was
// made, whose maker is gone (its pid free or reused: the record holds its
// start time), and a cgroup whose name says the same. A run still going
// and whatever crashsim did not make are left alone. Each removal is said
// through say, in words.
func Sweep(workDir string, say func(string)) {
	for _, dir := range sweptDirs(workDir) {
		reap.SweepDirs(dir, DirPrefix, say)
	}
	reap.SweepGroups(say)
}

// LeftoverDirs lists the directories Sweep(workDir) would remove, and
// changes nothing (crashsim doctor).
func LeftoverDirs(workDir string) []reap.Leftover {
	var out []reap.Leftover
	for _, dir := range sweptDirs(workDir) {
		out = append(out, reap.FindDirs(dir, DirPrefix)...)
	}
	return out
}

// sweptDirs are the directories where explore makes its own: the work
// directories' and $TMPDIR.
func sweptDirs(workDir string) []string {
	base := workBase(workDir)
	if tmp := os.TempDir(); tmp != base {
		return []string{base, tmp}
	}
	return []string{base}
}

type explorer struct {
	opt     Options
	work    string
	base    *base
	spare   string      // a state directory that holds the base, ready for the next candidate
	pool    chan string // state directories the checker is done with, made the base's again
	touched []string    // the paths the candidate being built placed
	made    int         // state directories made
	data    *dataCache
	predict map[int][]*check.Finding // by the line of the state they demonstrate
	// lossy are the paths check's findings name (Options.Predict), with
	// the worst severity of a finding on each: a state's finding is about
	// one of them when it changes one, the worst first.
	lossy map[string]check.Severity

	// One replay's: the timeline, and explore's copies of the durable
	// content of files (each replay starts them again).
	replays int
	tl      *model.Timeline
	durable map[int]*durableCopy
	links   map[int]string // symlink inode → target
	durErr  error
	// contents are the file contents hashed at the current crash point.
	contents map[contentKey]content

	trees   map[[32]byte]*tree
	pairs   int // with EveryLine: distinct (tree, crash point) pairs
	points  []PointStats
	files   map[string]bool
	mu      sync.Mutex // guards what the workers change: res, states, points' Checked
	states  []*state   // the states launched
	res     Result
	start   time.Time
	cancel  context.CancelFunc
	shared  error // a checker changed a shared file
	jobs    chan *state
	waiting []*state    // built, launched when their crash point's span ends
	ends    []model.Ref // the last event of each crash point's span, from the first replay
	ctx     context.Context
	// wanted, in the second replay, says whether a crash point has a tree
	// to check.
	wanted func(point int) bool
}

func (e *explorer) doneCh() <-chan struct{} { return e.ctx.Done() }

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

// SizeIn answers model.Options.InitialSize from a snapshot of root: the
// size of the regular file the snapshot holds at a path below root (not
// through a symlink at its name). Of a path the snapshot lacks, or holds
// as anything but a regular file, and of paths outside root, it says
// nothing. Without it the model takes a file from before the trace to be
// of unknown size until a stat shows it: a write past its end then passes
// for a rewrite in place, so a state that keeps the new size without the
// data is never built, and under the ordered models the size change is
// not held to the journal's order (a state keeps an append made after a
// create that did not persist).
func SizeIn(root, snapshot string) func(string) (int64, bool) {
	root = filepath.Clean(root)
	return func(p string) (int64, bool) {
		rel, ok := relPath(root, p)
		if !ok {
			return 0, false
		}
		fi, err := os.Lstat(filepath.Join(snapshot, rel))
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		return fi.Size(), true
	}
}

// initialSize is the models' InitialSize: the snapshot's sizes, else
// Options.InitialSize.
func initialSize(opt Options) func(string) (int64, bool) {
	if opt.Initial == "" {
		return opt.InitialSize
	}
	return SizeIn(opt.Root, opt.Initial)
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

func (e *explorer) progress(p Progress) {
	if e.opt.Progress != nil {
		p.Elapsed = time.Since(e.start)
		e.opt.Progress(p)
	}
}

// run explores: by default in two replays of the trace, the first
// building and hashing every state to learn where each distinct tree
// can occur, the second building each distinct tree again at the last
// crash point that leaves it and running its checker there; with
// EveryLine in one, checking each tree at each crash point as it goes.
func (e *explorer) run(ctx context.Context, stream parser.Stream) (*Result, error) {
	e.pool = make(chan string, e.opt.Jobs+1)
	// A checker that changed a shared file stops the run (base.verify).
	ctx, e.cancel = context.WithCancel(ctx)
	defer e.cancel()
	e.ctx = ctx
	e.jobs = make(chan *state)
	var wg sync.WaitGroup
	for range e.opt.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.work1(ctx)
		}()
	}
	err := e.passes(ctx, stream)
	close(e.jobs)
	wg.Wait()
	close(e.pool)
	for d := range e.pool {
		e.removeDir(d)
	}
	if e.spare != "" {
		e.removeDir(e.spare) // not a state: the base's files, unchanged
		e.spare = ""
	}
	for _, s := range e.waiting {
		e.removeDir(s.dir) // never launched: interrupted
	}
	if e.shared != nil {
		return &e.res, e.shared
	}
	if ctx.Err() != nil {
		e.res.Interrupted = true
	}
	if err != nil {
		return &e.res, err
	}
	e.res.Files = len(e.files)
	e.res.PointStats = e.points
	e.findings()
	return &e.res, nil
}

// work1 is one worker: it runs the checker on the states it is handed.
func (e *explorer) work1(ctx context.Context) {
	w := &worker{}
	defer w.close()
	for s := range e.jobs {
		if ctx.Err() == nil {
			t := time.Now()
			err := e.check(ctx, s, w)
			d := time.Since(t)
			var verr error
			if err == nil && !e.opt.CopyStates {
				verr = e.base.verify()
				s.verified = verr == nil
			}
			e.mu.Lock()
			if verr != nil && e.shared == nil {
				e.shared = fmt.Errorf("explore: state %d (crash after line %d): %w", s.index, s.line, verr)
				e.cancel()
			}
			e.res.Check += d
			if err == nil && s.ran {
				e.res.Checked++
				e.points[s.point].Checked++
				if s.failed {
					e.res.Failed++
				}
			}
			if err == nil {
				e.progress(Progress{Phase: "check", Done: e.res.Checked, Total: e.toCheck(), Failed: e.res.Failed})
			}
			e.mu.Unlock()
		}
		if !e.opt.Keep {
			e.recycle(s)
		}
	}
}

// toCheck is how many checker runs the exploration makes, as far as it
// knows.
func (e *explorer) toCheck() int {
	if e.opt.EveryLine {
		return len(e.states)
	}
	n := e.res.Distinct - e.res.Skipped
	if e.opt.Shards > 1 {
		n = (n - e.opt.Shard + e.opt.Shards) / e.opt.Shards
	}
	return n
}

// passes runs the replays.
func (e *explorer) passes(ctx context.Context, stream parser.Stream) error {
	if e.opt.EveryLine {
		return e.walk(ctx, stream, e.visitEvery, e.launchWaiting)
	}
	ends := func(i int, last model.Ref) error {
		e.ends = append(e.ends, last)
		return nil
	}
	if err := e.walk(ctx, stream, e.visitFirst, ends); err != nil || ctx.Err() != nil {
		return err
	}
	if e.spare != "" {
		e.removeDir(e.spare)
		e.spare = ""
	}
	plan := e.plan()
	if len(plan) == 0 {
		return nil
	}
	second, err := e.opt.Reopen()
	if err != nil {
		return fmt.Errorf("explore: reading the trace again: %w", err)
	}
	defer second.Close()
	next := 0
	visit := func(c *cand) error {
		for next < len(plan) && (plan[next].lastPoint < c.point || plan[next].lastPoint == c.point && plan[next].ord < c.ord) {
			next++ // never met again: cannot be (the replay is the same)
		}
		if next == len(plan) || plan[next].lastPoint != c.point || plan[next].ord != c.ord {
			return nil
		}
		t := plan[next]
		next++
		return e.keep(c, t, t.index)
	}
	wanted := func(point int) bool {
		for next < len(plan) && plan[next].lastPoint < point {
			next++
		}
		return next < len(plan) && plan[next].lastPoint == point
	}
	e.wanted = wanted
	defer func() { e.wanted = nil }()
	return e.walk(ctx, second, visit, func(int, model.Ref) error { return nil })
}

// plan lists the trees the second replay checks, in the order it meets
// their last crash points; the others are skipped (MaxStates) or another
// shard's. Past MaxStates, the trees kept are spread evenly over the
// order in which they were first built (spread, as a sampled point's
// families are: exactly MaxStates of them, their gaps differing by one at
// most), the last among them (the end of the run, after the program's
// commit) and, for a bound above 1, the first (the files before the run),
// not the first MaxStates, which left the end unchecked. They depend only
// on how many trees there are, the same in every shard; each shard takes
// every Shards-th of them, by its place among those kept.
func (e *explorer) plan() []*tree {
	all := make([]*tree, 0, len(e.trees))
	for _, t := range e.trees {
		all = append(all, t)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].index < all[j].index })
	kept := all
	if n := e.opt.MaxStates; n > 0 && len(all) > n {
		kept = make([]*tree, 0, n)
		for _, i := range spread(len(all), n) {
			kept = append(kept, all[i])
		}
		e.res.Skipped += len(all) - len(kept)
	}
	var plan []*tree
	for i, t := range kept {
		if e.opt.Shards > 1 && i%e.opt.Shards != e.opt.Shard-1 {
			continue
		}
		plan = append(plan, t)
	}
	sort.Slice(plan, func(i, j int) bool {
		a, b := plan[i], plan[j]
		if a.lastPoint != b.lastPoint {
			return a.lastPoint < b.lastPoint
		}
		return a.ord < b.ord
	})
	return plan
}

// visitFirst is the first replay's: it hashes a candidate, noting the
// tree it makes and where.
func (e *explorer) visitFirst(c *cand) error {
	sum, err := e.hashCand(c)
	if err != nil {
		return err
	}
	e.note(c, sum)
	return nil
}

// hashCand hashes a candidate of the first replay, without building it
// (vhash.go).
func (e *explorer) hashCand(c *cand) ([32]byte, error) {
	t := time.Now()
	defer func() { e.res.Materialize += time.Since(t) }()
	e.res.Candidates++
	return e.vhash(c)
}

// note records that candidate c makes the tree sum.
func (e *explorer) note(c *cand, sum [32]byte) *tree {
	t := e.trees[sum]
	if t == nil {
		e.res.Distinct++
		t = &tree{index: e.res.Distinct, sum: sum, firstPoint: c.point, first: c.ref, lastPoint: c.point, ord: c.ord, points: 1}
		e.trees[sum] = t
		e.points[c.point].New++
		return t
	}
	if t.lastPoint != c.point {
		t.lastPoint, t.ord = c.point, c.ord
		t.points++
	}
	return t
}

// visitEvery is EveryLine's: a tree met for the first time at this crash
// point is checked here. The one replay checks as it goes, before it
// knows how many checks there are, so MaxStates keeps the first ones, not
// a spread as plan does.
func (e *explorer) visitEvery(c *cand) error {
	sum, err := e.hashCand(c)
	if err != nil {
		return err
	}
	seen := e.trees[sum]
	again := seen != nil && seen.lastPoint == c.point
	t := e.note(c, sum)
	if again {
		return nil
	}
	e.pairs++
	if e.opt.MaxStates > 0 && e.pairs > e.opt.MaxStates {
		e.res.Skipped++
		return nil
	}
	if e.opt.Shards > 1 && (e.pairs-1)%e.opt.Shards != e.opt.Shard-1 {
		return nil
	}
	return e.keep(c, t, e.pairs)
}

// keep builds candidate c again (the second replay) for tree t, and holds
// it to be checked.
func (e *explorer) keep(c *cand, t *tree, index int) error {
	sum, err := e.consider(c)
	if err != nil {
		return err
	}
	if sum != t.sum {
		// The replays are the same: a difference is a bug, and checking
		// another tree than the one counted would be a lie.
		e.revertSpare()
		return fmt.Errorf("explore: internal error: the state after line %d built again differs from the first time", c.ref.Line)
	}
	return e.hold(c, t, index)
}

// hold keeps the state just built for its checker, which starts when the
// crash point's span ends.
func (e *explorer) hold(c *cand, t *tree, index int) error {
	s := &state{index: index, dir: e.spare, point: c.point, first: t.first.Completed(), tree: t}
	e.describe(s, c)
	e.spare = "" // the checker's now
	if !e.opt.CopyStates && !e.opt.Keep {
		s.seal, _ = e.base.seal(s.dir, e.touched)
	} else {
		// Never reused: its watches would only use up the user's.
		e.base.forget(s.dir)
	}
	if c.point < len(e.ends) {
		// The second replay: the first said where the point's span ends.
		e.waiting = append(e.waiting, s)
		return e.launchWaiting(c.point, e.ends[c.point])
	}
	e.waiting = append(e.waiting, s)
	return nil
}

// launchWaiting hands the states held at crash point i to the workers,
// now that the last event before the next point (last) is known: the
// latest moment a crash leaves them.
func (e *explorer) launchWaiting(i int, last model.Ref) error {
	for k, s := range e.waiting {
		r := last
		s.line, s.event = last.Completed(), &r
		e.mu.Lock()
		e.states = append(e.states, s)
		e.mu.Unlock()
		select {
		case e.jobs <- s:
		case <-e.doneCh():
			for _, rest := range e.waiting[k:] {
				e.removeDir(rest.dir)
			}
			e.waiting = e.waiting[:0]
			return nil
		}
	}
	e.waiting = e.waiting[:0]
	return nil
}

// consider builds candidate c in the spare directory and hashes it.
func (e *explorer) consider(c *cand) ([32]byte, error) {
	t := time.Now()
	defer func() { e.res.Materialize += time.Since(t) }()
	e.res.Built++
	// A directory left by a checked state is the base's again (reuse.go);
	// else a new one is filled from the base.
	if e.spare == "" && !e.opt.CopyStates {
		select {
		case e.spare = <-e.pool:
			e.res.Reused++
		default:
		}
	} else if e.spare != "" {
		e.res.Reused++
	}
	if e.spare == "" {
		e.made++
		e.spare = filepath.Join(e.work, "states", fmt.Sprintf("%06d", e.made))
		if err := os.Mkdir(e.spare, 0o755); err != nil {
			return [32]byte{}, err
		}
		if err := e.populate(e.spare); err != nil {
			return [32]byte{}, err
		}
	}
	e.touched = e.touched[:0]
	if err := e.build(e.spare, c, c.ref.Line); err != nil {
		e.removeDir(e.spare)
		e.spare = ""
		return [32]byte{}, err
	}
	if e.opt.CopyStates {
		return hashTree(e.spare, nil)
	}
	return e.base.hashState(e.spare, e.touched)
}

// revertSpare makes the spare directory the base's again, after a
// candidate no checker runs on.
func (e *explorer) revertSpare() error {
	if e.spare == "" {
		return nil
	}
	if e.opt.CopyStates {
		err := os.RemoveAll(e.spare)
		e.spare = ""
		return err
	}
	if err := e.base.revert(e.spare, e.touched); err != nil {
		e.removeDir(e.spare)
		e.spare = ""
		return err
	}
	return nil
}
