package check

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/crashsim/crashsim/internal/phases"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/source"
)

// Related is an event that explains a finding: the write, the fsync, the
// rename.
type Related struct {
	Trace   string
	Line    int
	PID     int
	Syscall string
	What    string
}

// Finding is one way a crash can lose or corrupt data, located at a trace
// line like a compiler diagnostic.
type Finding struct {
	Rule    *Rule
	Path    string   // the file's name at the end of the trace (or its last name)
	Trace   string   // the trace file
	Line    int      // the line to look at
	PID     int      //
	Seq     int      // the event's index: the crash point that shows the loss
	Message string   // what a crash can leave and what to change
	Models  []string // the persistence models under which it happens
	Related []Related
	// State is a crash state that shows the loss: what a crash at a given
	// point leaves at a path. Nil for findings about speed or about what
	// the trace cannot show.
	State *State
	// StateIndex is, for explore's checker-failed findings, the state's
	// place (1, 2, ...) in explore's order of distinct states: what
	// orders the findings of shards merged into one report. 0 otherwise.
	StateIndex int
	// Source is the call site in the program's own code, when the trace
	// had stacks to name it. A check leaves it nil; it is set afterwards,
	// on findings in memory (see Result.Load).
	Source   *source.Location
	modelSet modelSet
	// text is the message, as bytes in room a run reuses, of a finding
	// that run.message made for the codec; nil otherwise.
	text []byte
}

// modelSet is a set of persistence models, bit p for model p: one word
// per finding where a map cost a hundred bytes.
type modelSet uint8

func (s modelSet) has(p model.Persistence) bool { return s&(1<<p) != 0 }

// modelNames are the names of each set's models, in the order of
// model.Persistences, shared by every finding with that set: the slices
// are full to capacity, so an append to one copies it.
var modelNames [1 << 8][]string

func init() {
	for s := range modelNames {
		for _, p := range model.Persistences {
			if modelSet(s).has(p) {
				modelNames[s] = append(modelNames[s], p.String())
			}
		}
		modelNames[s] = modelNames[s][:len(modelNames[s]):len(modelNames[s])]
	}
}

// State is a crash state demonstrating a finding.
type State struct {
	Trace     string
	Line      int // the crash comes right after this line
	Path      string
	Outcome   string
	Persisted string
	// Words describe the state (model.StateWords), what follows "a crash
	// can leave PATH".
	Words string
	// Outcomes are, when the finding's message names several (data
	// not synced: "empty, as it was before the run, full of zeros or
	// torn"), every outcome it says a crash can leave at Path, Outcome
	// among them; nil when the finding is about Outcome alone. explore
	// credits the finding with a rejected state that holds one of them
	// there.
	Outcomes []model.Outcome
}

// Describe is the state in words: Words, or the outcome's and what
// persisted when the state was made without a model at hand.
func (s *State) Describe() string {
	if s.Words != "" {
		return s.Words
	}
	return model.OutcomeWords(model.Outcome(s.Outcome)) + " (" + model.PersistedWords(s.Persisted) + " persisted)"
}

// Sentence is the state as the reports say it: "a crash right after
// line N can leave PATH WORDS", each of path and words passed through esc
// (the text report escapes them, SARIF need not). from is the trace of
// the finding the state belongs to: a state in another file of a -ff set
// names its file ("right after strace.out.28390:595").
func (s *State) Sentence(from string, esc func(string) string) string {
	at := "line " + strconv.Itoa(s.Line)
	if s.Trace != "" && s.Trace != from {
		at = esc(s.Trace) + ":" + strconv.Itoa(s.Line)
	}
	return "a crash right after " + at + " can leave " + esc(s.Path) + " " + esc(s.Describe())
}

// stateOf is the State of a crash state of path p at at.
func stateOf(m *model.Model, at model.Ref, p string, s model.PathState) *State {
	return stateWith(at, p, s, m.StateWords(p, s))
}

// stateWith is stateOf with the state's words given.
func stateWith(at model.Ref, p string, s model.PathState, words string) *State {
	return &State{Trace: at.File, Line: at.Completed(), Path: p, Outcome: string(s.Outcome), Persisted: s.Persisted, Words: words}
}

// lossOrder is the order in which losing outcomes are preferred as the
// demonstration: the plainest loss first.
var lossOrder = []model.Outcome{model.Empty, model.Missing, model.Initial, model.Zeros, model.Torn, model.Earlier}

// lossWords is model.LossWords in lossOrder.
var lossWords = model.LossWordsFor(lossOrder)

// demonstrate finds a crash state at the current crash point of m that
// loses something at path p, or nil.
func demonstrate(m *model.Model, at model.Ref, p string) *State {
	if _, still := stillModels.Load(m); still {
		return demonstrateFrom(m, at, p, crashOf(m, p), lossOrder)
	}
	// In the middle of the trace, one pass over the states in Crash's
	// order keeps what pickState would take from the whole list (the
	// first state of the outcome earliest in lossOrder), and a state of
	// lossOrder's first outcome ends it, as none can be picked over it.
	// A name saved over thousands of times without a sync has a
	// candidate for each save, which a whole list at every rename
	// walked: quadratic in the saves.
	var best model.PathState
	bestRank := len(lossOrder)
	m.CrashFirst(p, 256, func(s model.PathState) bool {
		if r := slices.Index(lossOrder, s.Outcome); r >= 0 && r < bestRank {
			best, bestRank = s, r
		}
		return bestRank == 0
	})
	if bestRank == len(lossOrder) {
		return nil
	}
	return stateOf(m, at, p, best)
}

// crashMemo is the last path's crash states of a model that stands still:
// once the trace is read, a rule's Finish asks leaves and demonstrate
// about the same path one after the other (data-not-synced, then
// fsync-before-write with the same words), and each asked m.Crash again:
// a fifth of check's time on a trace of many files.
type crashMemo struct {
	p  string
	po model.PathOutcomes
	ok bool
}

// stillModels holds a crashMemo for each model between the end of its
// trace and the end of its rules' Finish, when nothing changes it. A
// model is used by one goroutine; the map is shared by concurrent checks.
var stillModels sync.Map // *model.Model -> *crashMemo

// crashOf is m.Crash(p, 256), remembered while m stands still.
func crashOf(m *model.Model, p string) model.PathOutcomes {
	v, still := stillModels.Load(m)
	if !still {
		return m.Crash(p, 256)
	}
	memo := v.(*crashMemo)
	if !memo.ok || memo.p != p {
		// The last path's answer is let go: its States' memory is reused.
		memo.p, memo.po, memo.ok = p, m.CrashReuse(p, 256, memo.po.States), true
	}
	return memo.po
}

// demonstrateFrom picks, from the crash states of p, the first whose
// outcome comes first in order.
func demonstrateFrom(m *model.Model, at model.Ref, p string, po model.PathOutcomes, order []model.Outcome) *State {
	if s, ok := pickState(po, order); ok {
		return stateOf(m, at, p, s)
	}
	return nil
}

// pickState is the first of po's states whose outcome comes first in
// order, and false when none has an outcome there.
func pickState(po model.PathOutcomes, order []model.Outcome) (model.PathState, bool) {
	for _, want := range order {
		for _, s := range po.States {
			if s.Outcome == want {
				return s, true
			}
		}
	}
	return model.PathState{}, false
}

// leaves says in words what a crash now can leave at path p that loses
// something, the same states demonstrate picks from: "empty or missing".
func leaves(m *model.Model, p string) string {
	return leavesIn(crashOf(m, p))
}

// leavesIn is leaves, of the crash states po.
func leavesIn(po model.PathOutcomes) string {
	w := lossWords(po)
	if w == "" {
		return "different from what the program wrote"
	}
	return w
}

// Summary counts what a check looked at and found.
type Summary struct {
	Events int
	Files  int
	Errors int
	// Warnings counts findings of severity warning; the blind spots are
	// Result.Warnings.
	Warnings int
	Infos    int
}

// Count counts one finding of severity sev.
func (s *Summary) Count(sev Severity) {
	switch sev {
	case Error:
		s.Errors++
	case Warning:
		s.Warnings++
	case Info:
		s.Infos++
	}
}

// Add adds the counts of o, the summary of other traces.
func (s *Summary) Add(o Summary) {
	s.Events += o.Events
	s.Files += o.Files
	s.Errors += o.Errors
	s.Warnings += o.Warnings
	s.Infos += o.Infos
}

// AtLeast reports whether a finding counted is at least as severe as t.
func (s Summary) AtLeast(t Severity) bool {
	return s.Errors > 0 && Error >= t || s.Warnings > 0 && Warning >= t || s.Infos > 0 && Info >= t
}

// Result is the outcome of checking one or more traces. Its findings are
// read through Findings: a check past Options.SpillAt keeps some on disk.
type Result struct {
	// Summary counts the findings by severity as they are (see Filter).
	Summary Summary
	// Warnings are the trace's blind spots: what it could not show.
	Warnings []BlindWarning
	// Notes say what was left out of scope on purpose.
	Notes []Note
	// Recording says what the trace showed of the recording (Watcher.Describe).
	Recording string
	// Models are the persistence models the findings were computed under.
	Models []model.Persistence
	// Unsynced are the trace files of the programs that never asked for
	// durability (Watcher.Synced) in a trace without blind spots: their
	// unsynced files make one program-level problem (see Group).
	Unsynced []string

	// findings are the findings in memory; parts those after them, when
	// the check spilled them.
	findings []*Finding
	parts    []part
	// dirs are the directories in scope the model knows, when the
	// program-level problem (Unsynced) must tell them from files.
	dirs dirSets
}

// Options scope a check.
type Options struct {
	// Roots limit the files in scope to those below these directories
	// (absolute, or relative to the trace's cwd). Empty: every file but
	// pseudo files.
	Roots []string
	// Ignore removes paths matching these globs (see MatchGlob).
	Ignore []string
	// Models to report; empty means posix. Findings are computed under
	// every model and name the ones where they happen.
	Models []model.Persistence
	// Existed tells the model which paths existed before the trace.
	Existed func(path string) (existed, known bool)
	// InitialSize tells the model the size of a regular file before the
	// trace (see model.Options.InitialSize).
	InitialSize func(path string) (size int64, known bool)
	// Cwd is where the traced command started (see model.Options.Cwd).
	Cwd string
	// FDs are the files it was started with open (see model.Options.FDs).
	FDs []model.InitialFD
	// NameFiles says the trace is an strace -ff set: states name a line
	// with its file (see model.Options.NameFiles).
	NameFiles bool
	// SetPrefix and SetOthers say that the trace is one file of an strace
	// -ff set, the set's PREFIX and its other files: the watcher says
	// that what they hold is not seen (blind-partial-set).
	SetPrefix string
	SetOthers []string
	// Mounts are the filesystems of the machine the trace was recorded
	// on, when known (crashsim trace reads them): paths on tmpfs or ramfs
	// are out of scope, with a note.
	Mounts []Mount
	// LikelyVolatile are directories taken as tmpfs when Mounts is not
	// known (see the package variable LikelyVolatile): out of scope with
	// a note, unless a root lies at or below one.
	LikelyVolatile []string
	// NeedData says the caller builds crash states and needs the bytes of
	// every write in scope: a trace without them has blind spot
	// blind-no-data.
	NeedData bool
	// SpillAt, when above 0, is how many findings a check keeps in
	// memory: past it they go to a temp file, and the Result must be
	// closed (see Result.Close). 0 keeps them all in memory.
	SpillAt int
}

// InScope reports whether a path is one the user asked about.
func (o *Options) InScope(p string) bool { return o.inScope(p) }

func (o *Options) inScope(p string) bool {
	if p == "" || model.PseudoFile(p) || o.ignored(p) {
		return false
	}
	if _, _, v := o.volatileAt(p); v {
		return false
	}
	return o.underRoots(p)
}

// ignored reports whether an ignore glob leaves p out (see MatchGlob):
// the glob is matched against p, against p relative to the first root
// that holds it (else to Cwd), and, without a '/', against its base name.
func (o *Options) ignored(p string) bool {
	if len(o.Ignore) == 0 {
		return false
	}
	rel := o.relPath(p)
	for _, g := range o.Ignore {
		if MatchGlob(g, p, rel) {
			return true
		}
	}
	return false
}

// Ignored reports whether an Ignore glob leaves p out of scope.
func (o *Options) Ignored(p string) bool { return o.ignored(p) }

// relPath is p relative to the first root that holds it, else to Cwd;
// p itself when neither does.
func (o *Options) relPath(p string) string {
	for _, dir := range append(o.Roots[:len(o.Roots):len(o.Roots)], o.Cwd) {
		if dir == "" || !filepath.IsAbs(dir) || !filepath.IsAbs(p) {
			continue
		}
		if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return rel
		}
	}
	return p
}

// MatchGlob reports whether a glob names a traced path: its absolute path
// abs, the path rel relative to its root, or, for a glob with no '/', its
// base name. "**" crosses directories ("/tmp/**" is /tmp and everything
// below it); the rest is path.Match's syntax.
func MatchGlob(glob, abs, rel string) bool {
	if ok, _ := doublestar.Match(glob, abs); ok {
		return true
	}
	if ok, _ := doublestar.Match(glob, rel); ok {
		return true
	}
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, path.Base(abs))
		return ok
	}
	return false
}

// ValidGlob reports whether MatchGlob can read a glob (a '[' with no ']'
// cannot be).
func ValidGlob(glob string) bool { return doublestar.ValidatePattern(glob) }

// underRoots reports whether p lies below a root (every path does when no
// root is given).
func (o *Options) underRoots(p string) bool {
	if len(o.Roots) == 0 {
		return true
	}
	for _, r := range o.Roots {
		r = filepath.Clean(r)
		switch {
		case r == "/" && strings.HasPrefix(p, "/"),
			p == r || strings.HasPrefix(p, r+"/"),
			r == "." && !strings.HasPrefix(p, "/"):
			return true
		}
	}
	return false
}

// run is one model's pass: the rules observing it and what they found.
type run struct {
	p        model.Persistence
	m        *model.Model
	opt      *Options
	rules    []observer
	byKind   [32][]observer // rules by the effect kinds they read (byKind)
	findings []*Finding
	deferred []func()
	// index is the run's place among the models of the check, emitted
	// how many findings it spilled, col where it puts them.
	index   int
	emitted int
	col     *collector
	// names is what the program did to names, alike under every model:
	// one for all the runs of a check, kept by the first (nameNotSynced).
	names *nameHistory
	// watch is the check's blind-spot watcher, which also knows which
	// runtime each process ran (runtime.go).
	watch *Watcher
	// scratch is the finding run.newFinding reuses, text the room of
	// its message (run.message).
	scratch Finding
	text    []byte
}

// later runs f once the whole trace is read, so that a finding made at an
// event names files as they are called at the end (the name a user knows,
// not a temp name).
func (r *run) later(f func()) { r.deferred = append(r.deferred, f) }

// observer is a rule's view of a model: Observe sees every effect of the
// kinds its detector reads (detector.kinds), Finish the final state. An
// observer that keeps a *model.Inode past the event (in a map, a closure
// for run.later) pins it first (r.m.Pin): Run's models keep a retired
// inode the very same object only when pinned or open
// (model.Options.PinsOnly).
type observer interface {
	Observe(r *run, e *model.Effect)
	Finish(r *run)
}

// emit adds a finding to the run's. A finding is final once emitted: it
// may be written to a temp file at once.
func (r *run) emit(f *Finding) {
	if !r.opt.inScope(f.Path) {
		return
	}
	f.modelSet = 1 << r.p
	// Its place among the run's findings, as the spill numbers them.
	r.col.note(r.index, r.emitted+len(r.findings), f)
	r.col.emit(r, f)
}

// joinEarly lets rules skip what merge throws away (run.joins); a
// variable for the tests that hold it to the findings built in full.
var joinEarly = true

// joins reports whether a finding of rule id on path p at event at needs
// no more than its key: it is out of scope, or an earlier finding with
// the same key (rule, path, trace and line) was emitted by this run or
// an earlier one, and merge keeps that one's text, related events and
// state, adding only this run's model to it. Then it emits the finding
// as just that key, and the rule need not work out the rest (under a
// second model, a trace of many unsynced files asked the model again
// for every file's crash states, to build findings merge threw away).
func (r *run) joins(id, p string, at model.Ref) bool {
	if !joinEarly {
		return false
	}
	if !r.opt.inScope(p) {
		return true
	}
	seq, ok := r.col.seenBefore(r.index, id, p, at.File, at.Line)
	if !ok {
		return false
	}
	if r.col.sort != nil {
		// The first run's finding is spilled, or will be: merge adds
		// this run's model to it, and no record is written for this
		// run's.
		r.col.joinModel(seq, r.p)
		return true
	}
	r.emit(r.newFinding(id, p, at, ""))
	return true
}

// message sets f's message, fmt.Sprintf(format, args...). For the
// finding run.newFinding reuses once the check spills, the text is made
// in room the run reuses too, and kept as bytes for the codec (the
// finding's Message stays empty): a trace of many unsynced files made a
// string of each message only to copy it into a record.
func (r *run) message(f *Finding, format string, args ...any) {
	if f != &r.scratch {
		f.Message = fmt.Sprintf(format, args...)
		return
	}
	r.text = fmt.Appendf(r.text[:0], format, args...)
	f.text = r.text
}

// newFinding is newFinding, for a finding emitted as soon as it is
// made: once the check spills, emit writes a finding out at once and
// keeps nothing of it, and one Finding of the run (its Related too) is
// reused for the next.
func (r *run) newFinding(id, p string, at model.Ref, msg string) *Finding {
	if r.col.sort == nil {
		return newFinding(id, p, at, msg)
	}
	related := r.scratch.Related[:0]
	r.scratch = newFindingValue(id, p, at, msg)
	r.scratch.Related = related
	return &r.scratch
}

// abandon lets go of what r's rules hold open (a rule reading written
// bytes back from the trace keeps its files) when the trace turns out
// unreadable and Finish will not run.
func (r *run) abandon() {
	for _, rule := range r.rules {
		if c, ok := rule.(io.Closer); ok {
			c.Close()
		}
	}
}

// Evaluated lists the models Run computes findings under for the models
// asked for: posix and ext4 always (a finding names the models it happens
// under), and xfs or btrfs when asked.
func Evaluated(asked []model.Persistence) []model.Persistence {
	out := []model.Persistence{model.Posix, model.Ext4}
	for _, p := range model.Persistences[2:] {
		for _, a := range asked {
			if a == p {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// endGCPercent is the collector's percentage (GOGC) while a check works
// out its findings at the end of the trace.
const endGCPercent = 50

// endGC counts the checks in their end (lowerGC), so that the first one
// in keeps the percentage the process had and the last one out puts it
// back, however their ends overlap.
var endGC struct {
	sync.Mutex
	n       int
	old     int
	lowered bool
}

// lowerGC sets the collector's percentage to endGCPercent, unless it is
// lower already or off (GOGC=off, or a caller's own setting), and returns
// the function that puts it back. At the end of a trace a check holds
// every pending file's state (all of it live) and makes its findings,
// which are garbage as soon as they are written out: with the default
// percentage the heap grew to twice what was live there, the peak of a
// check of many unsynced files (200,000: some 390 MiB, where 50 keeps it
// near 315, for about a tenth more CPU time and a twentieth more wall
// time: the collector's work runs mostly beside the one goroutine left).
func lowerGC() (restore func()) {
	endGC.Lock()
	defer endGC.Unlock()
	if endGC.n == 0 {
		endGC.old = debug.SetGCPercent(endGCPercent)
		endGC.lowered = endGC.old > endGCPercent
		if !endGC.lowered {
			debug.SetGCPercent(endGC.old)
		}
	}
	endGC.n++
	return func() {
		endGC.Lock()
		defer endGC.Unlock()
		endGC.n--
		if endGC.n == 0 && endGC.lowered {
			debug.SetGCPercent(endGC.old)
		}
	}
}

// Run checks a trace stream under the persistence models of Evaluated.
func Run(stream parser.Stream, opt Options) (*Result, error) {
	models := Evaluated(opt.Models)
	runs := make([]*run, len(models))
	col := &collector{runs: runs, at: opt.SpillAt}
	watch := NewWatcher(&opt)
	shared, names := new(model.Shared), newNameHistory()
	fsOf := opt.FSOf()
	defer shared.Close()
	watch.openFlags = shared.OpenFlags
	for i, p := range models {
		r := &run{p: p, opt: &opt, rules: newObservers(), index: i, col: col, names: names, watch: watch}
		r.byKind = byKind(r.rules)
		first := i == 0
		mo := model.Options{Persistence: p, Existed: opt.Existed, InitialSize: opt.InitialSize, Cwd: opt.Cwd, FDs: opt.FDs, NameFiles: opt.NameFiles, Retire: retireModels, RetireBatch: retireBatch, Shared: shared, PinsOnly: true, AuditPins: auditPins, Reads: true, FSOf: fsOf, Observe: func(m *model.Model, e *model.Effect) {
			for _, rule := range r.byKind[e.Kind] {
				rule.Observe(r, e)
			}
			if first {
				watch.observeEffect(e)
			}
		}}
		if i == 0 {
			// The watcher sees each event with the paths the first model
			// resolved, rather than resolving them again in a process
			// model of its own.
			mo.Resolved = watch.ObserveResolved
		}
		r.m = model.New(mo)
		if i == 0 {
			watch.UseModel(r.m)
			names.synced = r.m.SyncedAfter
		}
		runs[i] = r
	}
	res := &Result{Models: models}
	files := map[string]bool{}
	lastFile := ""
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			col.close()
			for _, r := range runs {
				r.abandon()
			}
			return nil, err
		}
		res.Summary.Events++
		if ev.Pos.File != lastFile || len(files) == 0 {
			// A map assignment per event was 3% of a check: the file
			// changes only between the members of an -ff set.
			lastFile = ev.Pos.File
			files[lastFile] = true
		}
		for _, r := range runs {
			r.m.Apply(ev)
		}
	}
	// The rest runs on this goroutine alone: the collector works beside
	// it, on the CPU the parsing goroutine has left, and keeps the heap
	// nearer to what is live (see lowerGC).
	defer lowerGC()()
	phases.Mark("read the trace")
	for _, r := range runs {
		stillModels.Store(r.m, &crashMemo{})
		defer stillModels.Delete(r.m)
		for _, f := range r.deferred {
			f()
		}
		for _, rule := range r.rules {
			rule.Finish(r)
			if phases.On() {
				phases.Mark(fmt.Sprintf("%s's end under %s", strings.TrimPrefix(fmt.Sprintf("%T", rule), "*check."), r.p))
			}
		}
		stillModels.Delete(r.m)
	}
	if col.sort == nil {
		res.Add(merge(runs, opt.Models)...)
	} else {
		d, err := col.spilledMerge(opt.Models, &res.Summary)
		if err != nil {
			// %v: the temp file's path error is no error of the trace.
			return nil, fmt.Errorf("cannot keep the findings past %d in a temp file in %s (set TMPDIR to a directory with room): %v", opt.SpillAt, os.TempDir(), err)
		}
		res.parts = []part{{disk: d}}
	}
	phases.Mark("merge the models' findings")
	res.Warnings, res.Notes = watch.Finish()
	res.Recording = watch.Describe()
	if !watch.Synced() && !hidesSyncs(res.Warnings) {
		// A blind spot can hide the syncs (a syscall filter, children
		// not followed, io_uring): only a trace that shows everything
		// says the program never asked for durability.
		for f := range files {
			if f != "" {
				res.Unsynced = append(res.Unsynced, f)
			}
		}
		sort.Strings(res.Unsynced)
	}
	var dirs *dirSet
	if len(res.Unsynced) > 0 {
		res.dirs = dirSets{{}}
		dirs = &res.dirs[0]
	}
	res.Summary.Files = countFiles(runs[0].m, &opt, dirs)
	phases.Mark("blind spots and the count of files")
	if err := shared.Err(); err != nil {
		res.Close()
		return nil, err
	}
	return res, nil
}

// hidesSyncs reports whether a blind spot among ws can hide a sync. One
// of a file mapped shared and writable cannot: the stores no line shows
// are writes, and an msync or fsync of them is a call strace prints.
func hidesSyncs(ws []BlindWarning) bool {
	for _, w := range ws {
		if w.ID != BlindSharedMmap {
			return true
		}
	}
	return false
}

// merge joins the findings of every model: one finding per rule, path and
// line, naming the models it happens under, keeping only those that happen
// under a model the user asked for.
func merge(runs []*run, want []model.Persistence) []*Finding {
	if len(want) == 0 {
		want = []model.Persistence{model.Posix}
	}
	// One finding under several models is one finding; the same rule,
	// path and line in two files of an -ff set are two.
	type joinKey struct {
		rule, path, trace string
		line              int
	}
	byKey := map[joinKey]*Finding{}
	var out []*Finding
	for _, r := range runs {
		for _, f := range r.findings {
			k := joinKey{f.Rule.ID, f.Path, f.Trace, f.Line}
			if g, ok := byKey[k]; ok {
				g.modelSet |= 1 << r.p
				continue
			}
			byKey[k] = f
			out = append(out, f)
		}
	}
	kept := out[:0]
	for _, f := range out {
		ok := false
		for _, p := range want {
			ok = ok || f.modelSet.has(p)
		}
		if !ok {
			continue
		}
		if f.Models == nil {
			f.Models = modelNames[f.modelSet]
		} else {
			f.Models = append(f.Models, modelNames[f.modelSet]...)
		}
		kept = append(kept, f)
	}
	// The report's order, the one the spilled findings are sorted in too.
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		return byReport(&key{trace: a.Trace, line: a.Line, rule: a.Rule, path: a.Path}, &key{trace: b.Trace, line: b.Line, rule: b.Rule, path: b.Path})
	})
	return kept
}

// newFinding starts a finding of rule id at event ref.
func newFinding(id string, p string, at model.Ref, msg string) *Finding {
	f := newFindingValue(id, p, at, msg)
	return &f
}

func newFindingValue(id string, p string, at model.Ref, msg string) Finding {
	rule, ok := Lookup(id)
	if !ok {
		panic("check: no rule " + id)
	}
	return Finding{Rule: rule, Path: p, Trace: at.File, Line: at.Line, PID: at.PID, Seq: at.Seq, Message: msg}
}

func (f *Finding) relate(r model.Ref, what string) *Finding {
	for _, x := range f.Related {
		if x.Line == r.Line && x.What == what {
			return f
		}
	}
	f.Related = append(f.Related, Related{Trace: r.File, Line: r.Line, PID: r.PID, Syscall: r.Syscall, What: what})
	return f
}

func base(p string) string { return path.Base(p) }

// nameHash is countFiles' hash of a name; tests make names collide.
var nameHash = maphash.String

// dirSet holds the hashes of directory paths: 8 bytes a directory, not
// its name (a trace that makes a million directories).
type dirSet struct {
	seed   maphash.Seed
	hashes []uint64 // sorted
}

// has reports whether p is in the set (a collision of 64-bit hashes
// aside).
func (d dirSet) has(p string) bool {
	if len(d.hashes) == 0 {
		return false
	}
	_, ok := slices.BinarySearch(d.hashes, nameHash(d.seed, p))
	return ok
}

// dirSets are the directory sets of the traces a result joins, each
// hashed with a seed of its own.
type dirSets []dirSet

// has reports whether one of the sets holds p.
func (ds dirSets) has(p string) bool {
	for _, d := range ds {
		if d.has(p) {
			return true
		}
	}
	return false
}

// countFiles counts the files in scope that the trace changed, by the
// name a user knows them by: a file replaced by rename and its
// replacement are one file to the user. A set of every name held 85
// bytes a file at the end of a check, a gigabyte for ten million settled
// files whose records were in a temp file until then; the names' hashes
// take 8, and only the names of hashes seen more than once (a file and
// its replacement, or a collision) are compared as names.
//
// With dirs, the same pass fills it with the directories in scope the
// model knows, hashed with the same seed.
func countFiles(m *model.Model, opt *Options, dirs *dirSet) int {
	seed := maphash.MakeSeed()
	hash := func(p string) uint64 { return nameHash(seed, p) }
	var hashes []uint64
	m.EachFile(func(p string, dir, modified bool) {
		switch {
		case dir && dirs != nil && opt.inScope(p):
			dirs.hashes = append(dirs.hashes, hash(p))
		case modified && !dir && opt.inScope(p):
			hashes = append(hashes, hash(p))
		}
	})
	if dirs != nil {
		dirs.seed = seed
		slices.Sort(dirs.hashes)
	}
	slices.Sort(hashes)
	files := 0
	var shared map[uint64]bool
	for i := 0; i < len(hashes); {
		j := i + 1
		for j < len(hashes) && hashes[j] == hashes[i] {
			j++
		}
		if j-i == 1 {
			files++
		} else {
			if shared == nil {
				shared = map[uint64]bool{}
			}
			shared[hashes[i]] = true
		}
		i = j
	}
	if shared == nil {
		return files
	}
	names := map[string]bool{}
	m.EachFile(func(p string, dir, modified bool) {
		if modified && !dir && shared[hash(p)] && opt.inScope(p) {
			names[p] = true
		}
	})
	return files + len(names)
}
