package model

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// Persistence is a persistence model: what a crash may keep of pending
// operations.
type Persistence uint8

const (
	// Posix is the weakest promise: pending operations persist in any
	// subset; a file fsync never persists a name.
	Posix Persistence = iota
	// Ext4 is ext4 data=ordered with default options: metadata commits in
	// program order, a file fsync makes every entry operation up to the
	// file's last change durable (an fdatasync: its last change of size),
	// a directory fsync commits every one, rewrites in
	// place persist in any subset, and unsynced appends come back as a
	// shorter file, or with their size but zeros once writeback has
	// started (on its own, or for a rename over an existing file:
	// auto_da_alloc), since the size can commit first.
	Ext4
	// Xfs is xfs with default options: metadata in log order, a file or
	// directory sync makes every entry operation up to its last change
	// durable, as ext4's file syncs do, rewrites in place persist in any subset,
	// and unsynced appends come back as a shorter file, never zeros (the
	// on-disk size follows written data).
	Xfs
	// Btrfs is btrfs with default options: transactions commit in order,
	// and an fsync logs the file in the log tree with its names and the
	// new directories above it, and writes with the log the name changes
	// of files logged before; a directory fsync logs its entries;
	// rewrites in place persist in any subset, and unsynced appends come
	// back as a shorter file, never zeros.
	Btrfs
)

// Persistences lists the models, in the order findings name them.
var Persistences = []Persistence{Posix, Ext4, Xfs, Btrfs}

var persistenceNames = [...]string{"posix", "ext4", "xfs", "btrfs"}

func (p Persistence) String() string {
	if int(p) < len(persistenceNames) {
		return persistenceNames[p]
	}
	return "posix"
}

// Ordered reports whether metadata persists in program order (a journal
// or log committing transactions in order), so that crash states keep a
// prefix of the pending entry operations (a crash that keeps an entry
// operation keeps every one before it), and whether data comes back as a
// shorter file (delayed allocation, or a size that follows the data
// written) rather than with holes.
func (p Persistence) Ordered() bool { return p != Posix }

// ParsePersistence reads a --model value.
func ParsePersistence(s string) (Persistence, error) {
	for i, n := range persistenceNames {
		if s == n {
			return Persistence(i), nil
		}
	}
	return 0, fmt.Errorf("unknown persistence model %q (posix, ext4, xfs or btrfs)", s)
}

// Options configure a Model.
type Options struct {
	Persistence Persistence
	// Existed tells whether a path existed before the trace, for paths the
	// trace itself does not settle (open with O_CREAT of a path never seen
	// before). Nil: such a path is taken as created by the trace.
	Existed func(path string) (existed, known bool)
	// InitialSize tells the size a regular file had before the trace,
	// when a listing says (Listing.Size): what a stat of it at the start
	// would show. nil: nothing says.
	InitialSize func(path string) (size int64, known bool)
	// Observe is called after every event with what it did to the model.
	Observe func(m *Model, e *Effect)
	// Reads asks for EffRead effects too: reads change nothing, and only
	// a caller that follows where a file's bytes went wants them.
	Reads bool
	// Resolved is called for every event before the model applies it,
	// with the paths it acts on as Procs.Paths resolves them (valid only
	// during the call): a caller that needs them uses this model's process
	// model instead of keeping one of its own.
	Resolved func(ev *parser.Event, paths []string)
	// Cwd is the directory the traced command started in, for traces
	// recorded without -y (which name no cwd): relative paths of the first
	// process resolve against it.
	Cwd string
	// FDs are the files the traced command was started with open, for
	// traces recorded without -y (see Listing.FDs).
	FDs []InitialFD
	// NameFiles says the trace is an strace -ff set, each process in a
	// file of its own whose lines are numbered from 1: the words of a
	// state name an event's line with its file's base name ("up to
	// trace.4242:17"), which "line 17" alone would not say.
	NameFiles bool
	// Durable is called when data operations of an inode become durable,
	// in program order, before they leave the model: a caller that needs
	// the bytes on disk (explore) applies them to its durable copy of the
	// file. The slice is only valid during the call.
	Durable func(ino *Inode, ops []DataOp)
	// Retire lets the model retire files once nothing about them is
	// pending (retire.go): memory then follows the files that can still
	// change, not every file the trace touched. Answers are the same
	// either way, but Names and Inodes leave retired files out (EachInode
	// includes them), and Exits is not kept. A Timeline never retires: it
	// asks about every path at every point.
	Retire bool
	// RetireBatch is how many candidates for retirement wait before a
	// pass (0: 256). Tests set 1, so that files retire as soon as they can.
	RetireBatch int
	// Shared is what the models replaying one trace side by side (check's,
	// one per persistence model) share; nil: nothing.
	Shared *Shared
	// PinsOnly says that Observe keeps no *Inode past the event that
	// showed it but those it passes to Model.Pin: retirement then keeps
	// its weak pointer only for those and the ones an fd holds
	// (retire.go).
	PinsOnly bool
	// FSOf says which filesystem holds path p, as the directory it is
	// mounted at (the longest mount point above p), for syncfs, which
	// syncs only the filesystem of its fd: the machine's mount table,
	// when the caller has it. Nil, or "" for a path: the model takes
	// /proc, /sys, /dev, /dev/shm, /run and /acct as filesystems of their
	// own, and every other path as on one filesystem (see Model.FSOf).
	FSOf func(p string) string
	// AuditPins, with PinsOnly, checks the caller's word: at the event
	// after a retirement pass that retired inodes nobody pinned, a
	// collection, and the model panics, naming one, if something outside
	// the model still holds it. A test aid: a collection a pass is slow.
	AuditPins bool
}

// Shared is what the models of one check share: the *Ref of the event
// they are applying, so that a file's last sync (and a sync of every
// file) costs one Ref however many models and files point at it; the
// records of retired files (retire.go), which are the same in every
// model: a settled file keeps one record, not one a model; what the
// first model to apply an event decoded of it (flags, resolved paths);
// and the process model of the first four (sharedprocs.go).
// The models sharing one must replay the same events, each once and in
// the same order, with the same Cwd, FDs and Existed.
type Shared struct {
	ref   *Ref
	rest  restShared
	flags flagMemo
	// oneName is the name array a model last gave a file on its first
	// name (see oneName).
	oneName *[1]string
	// procs is the process model the first procModels models share
	// (sharedprocs.go).
	procs      *Procs
	procModels int
}

// eventRef returns a Ref of the event being applied that nothing will
// change: the one the other models share for it, or a new one.
func (m *Model) eventRef() *Ref {
	if r := m.lastRef; r != nil && *r == m.last {
		return r
	}
	s := m.opt.Shared
	if s != nil && s.ref != nil && *s.ref == m.last {
		m.lastRef = s.ref
		return s.ref
	}
	r := new(Ref)
	*r = m.last
	m.lastRef = r
	if s != nil {
		s.ref = r
	}
	return r
}

// oneName returns an array of p alone for a new file's Names (and Paths): the
// one the model before it made for the same file, when the models of a
// check apply the same event one after another. Nothing writes Names in
// place at length 1 (detach of the one name writes nothing, attach of
// another copies: the capacity is 1), so the models can share it.
func (m *Model) oneName(p string) *[1]string {
	s := m.opt.Shared
	if s != nil && s.oneName != nil && s.oneName[0] == p {
		return s.oneName
	}
	one := &[1]string{p}
	if s != nil {
		s.oneName = one
	}
	return one
}

// Model replays events through processes, fd tables, inodes and names,
// each with a page-cache and a durable layer.
type Model struct {
	opt        Options
	procs      *Procs
	names      map[string]*Name
	inodes     inodeTable
	pendingOps []*EntryOp // entry ops not yet durable, in order (and durableInList durable ones, see pending)
	// pendingByDir lists the pending entry ops of each directory, in
	// order (and durable ones, see pendingInDir).
	pendingByDir  map[string][]*EntryOp
	byDirPeak     int // the most directories pendingByDir held since it was made
	durableInList int
	nops          int // entry ops so far (EntryOp.order)
	maps          map[string]*Inode
	// readMaps are the shared mappings of files made without PROT_WRITE,
	// which an mprotect can make writable: the last maxReadMaps.
	readMaps   []readMap
	last       Ref
	lastRef    *Ref // last as eventRef gave it out, shared
	refKeys    refKeys
	exits      []Exit
	lastExit   Exit  // the exit an effect shows, with Options.Retire
	jointStamp int32 // see jointCount
	// unsureAt holds Model.UnsureAt: the few names that were ever unsure
	// (Name.wasUnsure), which never retire.
	unsureAt map[*Name]*Ref
	// unsureIn lists, by directory, the names an open with O_CREAT made
	// unsure that no fsync of their directory has covered since;
	// madeDurable holds those one has, and false for those it has not
	// (see Model.madeDurably).
	unsureIn    map[string][]*Name
	madeDurable map[*Name]bool
	// missing is what failed stats and opens said (see noteMissing).
	missing missingPaths
	// lastCommit is the event of the last sync or syncfs, -1 before any:
	// a transaction commit, which empties btrfs's log (persist.go).
	lastCommit int
	// lastSyncAll is the event of the last sync of every file, -1
	// before any; syncedFS holds, by filesystem, the event of the last
	// syncfs of it (see SyncedAfter).
	lastSyncAll int
	syncedFS    map[string]int
	// syncWrite is what the file of the last write durable on return
	// had on disk just before it (see DurableWriteBefore).
	syncWrite syncWrite
	// eff and paths are Apply's, kept here so that no event allocates
	// them: observers read an Effect only during the call.
	eff   Effect
	paths [3]string
	// pendingBefore is what Effect.pendingBefore points at (pendingOf).
	pendingBefore opList
	// What retirement keeps (retire.go): the records of retired inodes
	// that differ from the one the models of Options.Shared share for
	// their ID (own; the shared table holds the others), the index of
	// their names and the names known absent (restindex.go), weak
	// pointers to the retired Inodes that may still be held (weaks), and
	// the candidates for the next pass.
	own         map[int32]*restInode
	nretired    int
	restIdx     restIndex
	restAbsent  map[string]struct{}
	weaks       weakTable
	candInodes  []*Inode
	candNames   []*Name
	retireEvery int

	// parents are directories known as such because a path below them
	// named a file, for an inode of theirs made later (see underDir).
	parents map[string]bool

	// sharedProcs: procs is the Shared's, and slot the model's place
	// among the models sharing it (sharedprocs.go).
	sharedProcs bool
	slot        int
	// With Options.PinsOnly, the inodes the caller pinned, by ID, and
	// those the fd tables held at the start of the retirement pass, or
	// fdAll when it did not look (pins.go).
	pins   map[int]struct{}
	fdHeld map[*Inode]struct{}
	fdAll  bool
	// unpinned: with Options.AuditPins, the retired inodes that keep a
	// weak pointer only for the audit (pins.go).
	unpinned []int32
}

// Exit is a process's end as the trace shows it.
type Exit struct {
	Event  Ref
	Status int
	Signal string
}

// New returns an empty model.
func New(opt Options) *Model {
	var procs *Procs
	sharedProcs, slot := false, 0
	if s := opt.Shared; s != nil && s.procModels < sharedProcsMax {
		// The process model of the models before it (sharedprocs.go).
		if s.procs == nil {
			s.procs = newProcs(opt)
		}
		procs, sharedProcs, slot = s.procs, true, s.procModels
		s.procModels++
	} else {
		procs = newProcs(opt)
	}
	if opt.Shared != nil {
		opt.Shared.flags.sharers++
	}
	if opt.Retire {
		if opt.Shared == nil {
			opt.Shared = new(Shared) // the model's records, shared with none
		}
		if opt.Shared.rest.models++; opt.Shared.rest.models == 1 {
			opt.Shared.rest.names = newRestIndex()
		}
	}
	return &Model{opt: opt, procs: procs, sharedProcs: sharedProcs, slot: slot, names: map[string]*Name{}, maps: map[string]*Inode{}, parents: map[string]bool{}, pendingByDir: map[string][]*EntryOp{},
		restIdx: newRestIndex(), retireEvery: cmp.Or(opt.RetireBatch, retireBatch), lastCommit: -1, lastSyncAll: -1}
}

// newProcs is the process model of a model with options opt.
func newProcs(opt Options) *Procs {
	procs := NewProcs()
	procs.cwd0 = opt.Cwd
	procs.fds0 = opt.FDs
	if opt.Shared != nil {
		procs.flags = &opt.Shared.flags
		if opt.Shared.flags.texts == nil {
			opt.Shared.flags.texts = new(flagTexts)
		}
	}
	return procs
}

// Persistence returns the model's persistence model.
func (m *Model) Persistence() Persistence { return m.opt.Persistence }

// Inodes returns every inode the trace touched, in order of first sight;
// with Options.Retire, the ones not retired (see EachInode).
func (m *Model) Inodes() []*Inode {
	out := make([]*Inode, 0, m.inodes.n-m.nretired)
	m.inodes.each(func(ino *Inode) { out = append(out, ino) })
	return out
}

// Inode returns the inode with the given ID (PathState.Inode), or nil. A
// retired inode comes back.
func (m *Model) Inode(id int) *Inode {
	if id < 1 || id > m.inodes.n {
		return nil
	}
	return m.reviveID(id)
}

// Names returns the state of every path the trace named; with
// Options.Retire, of those not retired, which are every path with an
// entry operation pending or an existence the trace did not settle.
func (m *Model) Names() map[string]*Name { return m.names }

// PendingEntries returns the entry operations not yet durable.
func (m *Model) PendingEntries() []*EntryOp { return m.pending() }

// Exits returns the process exits seen so far; none with Options.Retire,
// where each exit's Effect carries it.
func (m *Model) Exits() []Exit { return m.exits }

// Last returns the last event applied.
func (m *Model) Last() Ref { return m.last }

// Procs returns the process model (fd tables and cwds).
func (m *Model) Procs() *Procs { return m.procs }

// EffectKind says what an event did, in the model's terms.
type EffectKind uint8

const (
	EffNone          EffectKind = iota
	EffWrite                    // data written (Data)
	EffTruncate                 // size changed (Data)
	EffEntry                    // an entry operation (Entry)
	EffFileSync                 // fsync/fdatasync of a file; Persisted lists entry ops a journal commit made durable
	EffDirSync                  // fsync of a directory; Persisted lists the entry ops made durable
	EffSyncAll                  // sync/syncfs
	EffSyncFailed               // a sync that failed: Inode's pending data is now possibly lost
	EffSyncFileRange            // sync_file_range: nothing made durable
	EffUnmodeled                // a change the trace cannot show (Inode)
	EffExit                     // a process exit (Exit)
	// EffRead: a read that returned data from a regular file (Inode,
	// Handle), or an mmap that maps one for the process to read (not
	// shared and writable), with Options.Reads. It changes nothing;
	// rules that ask where a file's bytes went (remove-before-sync)
	// follow it.
	EffRead
	// EffSizeSeen: a stat showed a size of a regular file the trace
	// changed (Inode) other than the model's (SizeSeen against
	// Inode.Size): a change the trace does not show, or one made by a
	// call still running, whose line comes later. It changes nothing.
	EffSizeSeen
	// EffSettled: a stat showed data in a file whose existence before
	// the trace was unsure (an open with O_CREAT that may have made it,
	// and no write since): the model now takes it as there before the
	// trace, with that data (Effect.Settled, Inode). A read that does
	// the same keeps its own Kind and sets Settled. It changes nothing
	// else.
	EffSettled
)

// Effect describes what one event did to the model. Rules read it, then
// ask the model questions.
type Effect struct {
	Kind      EffectKind
	Event     *parser.Event
	Ref       Ref
	Inode     *Inode
	Data      *DataOp
	Entry     *EntryOp
	Persisted []*EntryOp
	// Covered are the entry ops a directory fsync wrote in that directory,
	// durable or not yet (a rename between directories needs both): what
	// the program made durable as far as this directory goes.
	Covered []*EntryOp
	// Carried are, for a directory rename, the pending entry ops made in
	// the directory that moved with it: each changes the names at the new
	// paths too now (see renameTree), and stays pending until the
	// directory is synced.
	Carried []*EntryOp
	Handle  *Handle
	// Source is, for a copy in the kernel (copy_file_range, sendfile,
	// splice), the file the bytes came from, when it is a file the model
	// knows: the copy read it.
	Source *Inode
	Exit   *Exit
	What   string // unmodeled: what happened
	// SizeSeen is, for EffSizeSeen, the size a stat or an lseek to the
	// end showed, or with SizeAtLeast the end of the bytes a read
	// returned, past the model's size. A read keeps its Kind EffRead
	// (with Options.Reads) and sets SizeSeen and SizeAtLeast only.
	SizeSeen    int64
	SizeAtLeast bool
	// ReadOff and ReadLen are, for the EffRead of a read call whose
	// offset the model knows, the bytes it returned: ReadLen of them from
	// ReadOff. ReadLen is 0 otherwise, and for a mapping, whose pages are
	// read only as the process touches them.
	ReadOff, ReadLen int64
	// FS is, for EffSyncAll, the filesystem a syncfs synced (see
	// Options.FSOf), "" for a sync of every file; Covers says whether a
	// file is on it.
	FS string
	// Settled: the call showed data in Inode, which the model took as
	// maybe made by the trace (Inode.Unsure): it takes the file as there
	// before the trace from now on. Right for a trace that shows every
	// write; a filter that hid the write that made the data makes it
	// wrong, which check's watcher tells from a trace with no write at
	// all.
	Settled bool
	// pendingBefore is the inode's pending data just before a sync: the
	// list the inode dropped, which nothing changes after.
	pendingBefore *opList
	// opened, openNode and openFlags are what an open resolved, until
	// Apply puts them on the fd table's new Handle (no Handle of its own
	// is allocated for each open).
	opened    bool
	openNode  *Inode
	openFlags uint64
}

// PendingBefore returns the inode's pending data just before a sync, for
// rules that ask what a sync covered. A sync can cover a great many ops,
// so they are put in one slice only when asked for.
func (e *Effect) PendingBefore() []DataOp {
	if e.pendingBefore == nil {
		return nil
	}
	return e.pendingBefore.slice()
}

// HadPending reports whether a sync found data pending, without the copy
// PendingBefore makes.
func (e *Effect) HadPending() bool { return e.pendingBefore != nil }

// Apply replays one event.
func (m *Model) Apply(ev *parser.Event) {
	if len(m.unpinned) > 0 {
		m.auditPass() // out of the frame of the event that retired them
	}
	m.last = refOf(ev)
	m.procs.spawned(ev)
	paths := m.procs.sharedPaths(m.paths[:0], ev)
	if m.opt.Resolved != nil {
		m.opt.Resolved(ev, paths)
	}
	switch ev.Kind {
	case parser.KindExit, parser.KindKilled:
		x := Exit{Event: m.last, Status: ev.Status()}
		if ev.Kind == parser.KindKilled {
			x.Signal = ev.Name
		}
		var at *Exit
		if m.opt.Retire {
			// Kept for the effect only: a trace of many short processes
			// (a build) must not grow the model with each.
			m.lastExit = x
			at = &m.lastExit
		} else {
			m.exits = append(m.exits, x)
			at = &m.exits[len(m.exits)-1]
		}
		m.procsApply(ev, paths)
		m.emit(ev, &Effect{Kind: EffExit, Exit: at})
		m.procs.appliedFlags(ev)
		return
	case parser.KindSyscall:
	default:
		m.procs.appliedFlags(ev)
		return
	}
	// The effect is built on the stack: most events (mmap, brk, signals)
	// have none, and filling and clearing m.eff for each cost write
	// barriers. Only an event with an effect is copied out for observers.
	var eff Effect
	if ev.OK() || ev.Failed() && ev.Call.Effect().IsSync() || cutWrite(ev) {
		m.apply(ev, paths, &eff)
	} else if ev.Errno == "ENOENT" && len(paths) > 0 {
		m.noteMissing(ev, paths[0])
	}
	h := m.procsApply(ev, paths)
	m.procs.appliedFlags(ev)
	if eff.opened {
		// The open's handle carries the inode the model resolved.
		if h == nil {
			h = &Handle{Flags: eff.openFlags}
		}
		m.setNode(h, eff.openNode)
		eff.Handle = h
	}
	if eff.Kind != EffNone {
		m.emit(ev, &eff)
	}
	if eff.pendingBefore != nil {
		m.pendingBefore = opList{} // the blocks of the ops a sync dropped go
	}
	if m.opt.Retire {
		m.maybeRetire()
	}
}

// emit shows observers an event's effect, in m.eff, and clears it after:
// it holds no event or op list past the call.
func (m *Model) emit(ev *parser.Event, e *Effect) {
	m.eff = *e
	m.eff.Event, m.eff.Ref = ev, m.last
	m.observe(&m.eff)
	m.eff = Effect{}
}

func (m *Model) observe(e *Effect) {
	if m.opt.Observe != nil {
		m.opt.Observe(m, e)
	}
}

// fileHandle returns the handle of an fd argument with its inode, resolving
// the inode by path when the handle came from before the trace.
func (m *Model) fileHandle(ev *parser.Event, i int) *Handle {
	pr := m.procs.Proc(ev.PID)
	h := m.procs.FDHandle(pr, ev.Arg(i), ev.Began())
	if h == nil || h.Kind == HandlePseudo {
		return nil
	}
	m.loadNode(h)
	if h.Node == nil && h.Path != "" && !isPseudoName(h.Path) {
		if isPseudoPath(h.Path) {
			h.Kind = HandlePseudo
			return nil
		}
		ino := m.lookup(h.Path, true)
		if ino == nil {
			// The path is gone in the model (deleted and recreated
			// elsewhere): the fd still names an inode of its own.
			ino = m.newInode(false, true)
			ino.history().lastPath = h.Path
		} else {
			// An fd the trace never opened (a -y name only): its path
			// names something in its parent, as an open's does, so that
			// a sync of the parent through another such fd is a
			// directory's (sqlite3 recorded without its opens).
			m.underDir(h.Path)
		}
		m.setNode(h, ino)
		if ino.Dir {
			h.Kind = HandleDir
		}
	}
	if h.Node == nil {
		return nil
	}
	return h
}

func (m *Model) apply(ev *parser.Event, paths []string, eff *Effect) {
	p0 := ""
	if len(paths) > 0 {
		p0 = paths[0]
	}
	row := ev.Call.Row()
	switch row.Effect {
	case syscalls.Open:
		m.open(ev, p0, eff)
	case syscalls.WriteFD, syscalls.WriteAt:
		m.write(ev, row, eff)
	case syscalls.ReadFD, syscalls.ReadAt:
		if h := m.fileHandle(ev, row.FD()); h != nil {
			off := m.procs.offset(h)
			if row.Effect == syscalls.ReadAt {
				off = -1
				if o, ok := ev.Arg(row.Offset()).Int(); ok {
					off = o
				}
			} else if off >= 0 {
				m.procs.setOffset(h, off+ev.Ret)
			}
			if ev.Ret > 0 && !h.Node.Written && m.settle(h.Node) && !sizeExact(h.Node) {
				// It held data before the program wrote any. (A file the
				// trace cut to a size it knows shows a change it did
				// not see instead: sizeShown, below.)
				eff.Kind, eff.Inode, eff.Settled = EffSettled, h.Node, true
			}
			if ev.Ret > 0 && off >= 0 && ev.OK() {
				// Bytes up to off+Ret were there: a file at least that long.
				m.sizeShown(ev, h.Node, off+ev.Ret, true, eff)
			}
			if h.Node.Size < 0 && off >= 0 && ev.OK() {
				m.readSize(ev, row, h.Node, off, eff)
			}
			if m.opt.Reads && ev.Ret > 0 && !h.Node.Dir && ev.OK() {
				eff.Kind, eff.Inode, eff.Handle = EffRead, h.Node, h
				if off >= 0 {
					eff.ReadOff, eff.ReadLen = off, ev.Ret
				}
			}
		}
	case syscalls.Seek:
		if h := m.fileHandle(ev, row.FD()); h != nil {
			if end, ok := seekEnd(ev, row); ok {
				m.sizeShown(ev, h.Node, end, false, eff)
				m.seekSize(ev, h.Node, end, eff)
			}
			off := ev.Ret
			if i := row.OffsetOut(); i >= 0 {
				// _llseek returns 0 and puts the new offset in [N].
				off = -1
				if a := ev.Arg(i); a.Kind == parser.ValArray && len(a.Elems) == 1 {
					if o, ok := a.Elems[0].Int(); ok {
						off = o
					}
				}
			}
			m.procs.setOffset(h, off)
		}
	case syscalls.CopyInto:
		m.copyInto(ev, row, eff)
	case syscalls.Truncate:
		var ino *Inode
		if i := row.FD(); i >= 0 {
			if h := m.fileHandle(ev, i); h != nil {
				ino = h.Node
			}
		} else if p0 != "" && !isPseudoPath(p0) {
			ino = m.lookup(p0, true)
		}
		if n, ok := ev.Arg(row.Pos(syscalls.ArgSize)).Int(); ok && ino != nil {
			m.truncate(ev, ino, n, eff)
		}
	case syscalls.Fallocate:
		m.fallocate(ev, row, eff)
	case syscalls.Fsync, syscalls.Fdatasync:
		m.fsync(ev, row, eff)
	case syscalls.Sync:
		m.syncAll(ev, eff)
	case syscalls.Syncfs:
		if ev.OK() {
			if fs := m.fsOfFD(ev, row.FD()); fs != "" {
				m.syncFS(ev, eff, fs)
			} else {
				m.syncAll(ev, eff)
			}
		} else if h := m.fileHandle(ev, row.FD()); h != nil && !syncRefused(ev.Errno) {
			m.syncFailed(ev, h.Node, eff)
		}
	case syscalls.SyncFileRange:
		if h := m.fileHandle(ev, row.FD()); h != nil && !h.Node.Dir {
			h.Node.extra().syncRange = m.eventRef()
			eff.Kind, eff.Inode = EffSyncFileRange, h.Node
		}
	case syscalls.Mkdir:
		if p0 != "" && !isPseudoPath(p0) {
			m.settleDir(parentDir(p0))
			ino := m.newInode(true, false)
			m.name(p0).Known = true
			m.entry(ev, EntryMkdir, []NameChange{{Path: p0, New: ino}}, eff)
		}
	case syscalls.Unlink, syscalls.Rmdir:
		if p0 != "" && !isPseudoPath(p0) {
			old := m.lookup(p0, true)
			kind := EntryUnlink
			if row.Effect == syscalls.Rmdir || removesDir(ev, row) {
				kind = EntryRmdir
				m.missing.forget()
				if old != nil {
					old.Dir = true
				}
			}
			m.entry(ev, kind, []NameChange{{Path: p0, Old: old}}, eff)
		}
	case syscalls.Rename:
		m.rename(ev, row, paths, eff)
	case syscalls.Link:
		m.link(ev, row, paths, eff)
	case syscalls.Symlink, syscalls.Mknod, syscalls.Bind:
		// A new name on a new inode: a symlink, or what mknod makes (a
		// fifo from mkfifo or cp -a, a socket, a device node, or an
		// empty regular file with mode S_IFREG or no type), or the
		// socket bind makes. Each fails when the name exists.
		kind := EntrySymlink
		if row.Effect != syscalls.Symlink {
			kind = EntryCreate
		}
		if p := paths[len(paths)-1]; p != "" && !isPseudoPath(p) {
			m.lookup(p, false)
			ino := m.newInode(false, false)
			switch row.Effect {
			case syscalls.Symlink:
				ino.node = nodeSymlink
			case syscalls.Bind:
				ino.node = nodeSocket
			default:
				ino.node = nodeOfMode(ev.Arg(row.Pos(syscalls.ArgMode)).Text)
			}
			// A symlink's size is not its target's, which a stat shows;
			// a fifo, socket or device node has no size a read or a
			// seek shows.
			ino.sizeLoose = ino.node != nodeFile
			m.entry(ev, kind, []NameChange{{Path: p, New: ino}}, eff)
		}
	case syscalls.Mmap:
		m.mmap(ev, row, eff)
	case syscalls.Mprotect:
		m.mprotect(ev, row, eff)
	case syscalls.Msync:
		m.msync(ev, row, eff)
	case syscalls.Ioctl:
		if req, ok := reflinkRequest(ev.Arg(row.Flags())); ok {
			if h := m.fileHandle(ev, row.FD()); h != nil {
				m.unmodeled(ev, h.Node, "the file's data was changed by "+req+" (reflink), which a trace does not show", eff)
			}
		}
	case syscalls.IOUringEnter:
		if h := m.anyWritable(ev); h != nil {
			m.unmodeled(ev, h.Node, "the program uses io_uring, whose writes a trace does not show", eff)
		}
	case syscalls.Stat:
		m.stat(ev, row, paths, eff)
	}
}

// reflinkRequests are the ioctls that make a file share another's
// blocks, by number: the same on amd64, arm64 and 386.
var reflinkRequests = map[int64]string{
	0x40049409: "FICLONE",
	0x4020940d: "FICLONERANGE",
	0xc0189436: "FIDEDUPERANGE",
}

// reflinkRequest reports whether an ioctl's request argument is one of
// reflinkRequests, and which. strace prints the name btrfs gave the same
// number first ("BTRFS_IOC_CLONE or FICLONE"), the number with the names
// in a comment under -X verbose, and the number alone under -X raw.
func reflinkRequest(v *parser.Value) (string, bool) {
	if n, ok := v.Int(); ok {
		name, ok := reflinkRequests[n]
		return name, ok
	}
	for _, name := range strings.Split(v.Text, " or ") {
		if name == "FICLONE" || name == "FICLONERANGE" || name == "FIDEDUPERANGE" {
			return name, true
		}
	}
	return "", false
}

// removesDir reports whether an unlinkat removes a directory
// (AT_REMOVEDIR).
func removesDir(ev *parser.Event, row *syscalls.Row) bool {
	i := row.Flags()
	if i < 0 {
		return false
	}
	flags, _ := ev.Bits(i, syscalls.AtFlags)
	return flags&syscalls.AT_REMOVEDIR != 0
}

// entry records an entry operation on the model.
func (m *Model) entry(ev *parser.Event, kind EntryKind, changes []NameChange, eff *Effect) *EntryOp {
	op := newEntryOp(kind, m.packRef(refOf(ev)), changes)
	m.addEntryOp(op)
	eff.Kind, eff.Entry, eff.Inode = EffEntry, op, op.Node()
	return op
}

func (m *Model) open(ev *parser.Event, p string, eff *Effect) {
	flags := m.procs.openFlags(ev)
	if ev.RetAnno != "" && strings.HasPrefix(ev.RetAnno, "/") {
		p = annoPath(ev.RetAnno)
	}
	if p == "" || PseudoFile(p) || isAnonAnno(ev.RetAnno, ev.RetDeleted) {
		return
	}
	if flags&syscalls.O_TMPFILE == syscalls.O_TMPFILE {
		// An unnamed file in directory p: it gets a name only by linkat.
		ino := m.newInode(false, false)
		eff.opened, eff.openNode = true, ino
		return
	}
	var ino *Inode
	n := m.name(p)
	created := false
	switch {
	case flags&syscalls.O_CREAT == 0:
		ino = m.lookup(p, true)
	case flags&syscalls.O_EXCL != 0:
		m.lookup(p, false)
		created = true
	default:
		if n.Known {
			ino = n.Cache
			created = ino == nil
		} else if e, known := m.existedBefore(p); known {
			if e {
				ino = m.lookup(p, true)
			} else {
				m.lookup(p, false)
				created = true
			}
		} else if m.newDir(parentDir(p)) || m.missing.has(p) {
			// In a directory made in the trace, or a name a stat or open
			// found missing: nothing was there.
			m.lookup(p, false)
			created = true
		} else {
			// The trace cannot tell whether O_CREAT created the file
			// or opened one that was there: what was there is unknown,
			// an initial inode that may be no file at all.
			ino = m.unsure(p, refOf(ev), true)
		}
	}
	if created {
		m.settleDir(parentDir(p))
		ino = m.newInode(false, false)
		ino.Size, ino.DurableSize = 0, 0
		m.entry(ev, EntryCreate, []NameChange{{Path: p, New: ino}}, eff)
	}
	if ino == nil {
		return
	}
	m.underDir(p)
	if flags&syscalls.O_DIRECTORY != 0 {
		ino.Dir = true
	}
	if flags&syscalls.O_TRUNC != 0 && !created && !ino.Dir && flags&syscalls.O_ACCMODE != syscalls.O_RDONLY {
		m.truncate(ev, ino, 0, eff)
	}
	eff.opened, eff.openNode, eff.openFlags = true, ino, flags
}

// stat learns from a successful stat whether a path exists and the size of
// a file from before the trace.
func (m *Model) stat(ev *parser.Event, row *syscalls.Row, paths []string, eff *Effect) {
	var ino *Inode
	byFD := row.FD()
	if i := row.Path(); i >= 0 && row.Dirfd() >= 0 && ev.Arg(i).HasStr && ev.Arg(i).Str == "" {
		byFD = row.Dirfd() // an empty path with AT_EMPTY_PATH: the dirfd itself
	}
	if byFD >= 0 {
		if h := m.fileHandle(ev, byFD); h != nil {
			ino = h.Node
		} else {
			m.statUnnamed(ev, byFD)
		}
	} else if len(paths) > 0 && paths[0] != "" && !isPseudoPath(paths[0]) {
		if m.restingSized(paths[0]) {
			return // nothing to learn, and a program stats the same files again and again
		}
		ino = m.lookup(paths[0], true)
	}
	if ino == nil {
		return
	}
	if ino.Size >= 0 {
		if sizeExact(ino) {
			m.sizeSeen(ev, ino, eff)
		}
		return
	}
	for i := range ev.Args {
		a := &ev.Args[i]
		if n, ok := statSize(a); ok {
			m.learnSize(ino, n, eff)
			if modeIsDir(statMode(a).Text) {
				ino.Dir = true
			}
		}
	}
}

// statSize returns the size in a stat's or statx's buffer a, if it is one.
func statSize(a *parser.Value) (int64, bool) {
	size := a.Field("st_size")
	if size.Kind == parser.ValNone {
		size = a.Field("stx_size")
	}
	return size.Int()
}

// statMode returns the mode in a stat's or statx's buffer a.
func statMode(a *parser.Value) *parser.Value {
	if mode := a.Field("st_mode"); mode.Kind != parser.ValNone {
		return mode
	}
	return a.Field("stx_mode")
}

// sizeSeen compares the size a stat shows of a regular file the trace
// changed with the size the model gave it (sizeShown).
func (m *Model) sizeSeen(ev *parser.Event, ino *Inode, eff *Effect) {
	for i := range ev.Args {
		a := &ev.Args[i]
		n, ok := statSize(a)
		if !ok {
			continue
		}
		if n == ino.Size {
			return // the common case, asked first: the mode is read only past it
		}
		if t, known := modeType(statMode(a).Text); known && t == modeReg {
			m.sizeShown(ev, ino, n, false, eff)
		}
		return
	}
}

// sizeExact reports whether the model's size of ino is the one the file
// has, as far as the trace's calls go: a file the trace changed, whose
// every change the model could follow (see Inode.sizeLoose).
func sizeExact(ino *Inode) bool {
	return ino.Size >= 0 && ino.Modified && !ino.Dir && !ino.sizeLoose && ino.Unmodeled() == nil
}

// sizeShown says (EffSizeSeen) when a call shows ino at a size other
// than the model's: a stat or an lseek to the end that shows size n, or
// a read that returned bytes up to n (atLeast: the file is at least n
// long). That is a change the trace does not show, or one still being
// made by a call that ends on a later line. A read's effect stays EffRead
// when the caller asks for reads; SizeSeen and SizeAtLeast then say what
// it showed.
func (m *Model) sizeShown(ev *parser.Event, ino *Inode, n int64, atLeast bool, eff *Effect) {
	if ev.Overlap > 0 || ev.Done != 0 || !sizeExact(ino) {
		// Calls completed while this one ran (it was split), or an -ff
		// set merged by time: whether it saw a write of theirs cannot be
		// told. Or the model's size is not the file's.
		return
	}
	if n == ino.Size || atLeast && n < ino.Size {
		return
	}
	eff.Kind, eff.Inode, eff.SizeSeen, eff.SizeAtLeast = EffSizeSeen, ino, n, atLeast
}

// maxReadCount is the most bytes one read returns on Linux
// (MAX_RW_COUNT): a read that asked for more can come back short before
// the end of the file.
const maxReadCount = 0x7ffff000

// readSize learns what a read of ino at off shows of its size when the
// model does not know it (a file from before the trace, never stat'ed):
// the file held at least off+Ret bytes, and exactly that many when the
// read returned fewer than it asked for (a regular file's read stops
// short only at its end). It learns nothing while the trace has data of
// the file pending (the read may have returned bytes the disk does not
// hold yet), or a change the model cannot follow, or other calls
// completed inside this one; a readv's count is the sum of its iovecs,
// which the model does not decode, so a readv shows only the lower
// bound. An exact size is taken as a stat's is.
func (m *Model) readSize(ev *parser.Event, row *syscalls.Row, ino *Inode, off int64, eff *Effect) {
	if ino.Dir || ino.node != nodeFile || ev.Overlap > 0 || ev.Done != 0 || ino.DataPending() || ino.Unmodeled() != nil {
		return
	}
	end := off + ev.Ret
	if asked, ok := ev.Arg(row.Pos(syscalls.ArgSize)).Int(); ok && ev.Ret < min(asked, maxReadCount) {
		m.learnSize(ino, end, eff)
		return
	}
	if ev.Ret > 0 && end > ino.DurableAtLeast() {
		ino.extra().atLeast = end
	}
}

// learnSize takes n for the size of ino, a file from before the trace
// whose size the model did not know, as a call showed it (a stat, a read
// that met the end, an lseek to it): in the page cache, and on disk too
// while the trace has none of its data pending.
func (m *Model) learnSize(ino *Inode, n int64, eff *Effect) {
	if n > 0 && m.settle(ino) {
		// It held data before the program wrote any.
		eff.Kind, eff.Inode, eff.Settled = EffSettled, ino, true
	}
	ino.Size = n
	if len(ino.pending) == 0 {
		ino.DurableSize = n
	}
	if n > 0 {
		ino.HadContent = true
	}
}

// seekSize learns the size an lseek to the end of ino shows, n, when the
// model does not know it, under readSize's conditions.
func (m *Model) seekSize(ev *parser.Event, ino *Inode, n int64, eff *Effect) {
	if ino.Size >= 0 || ino.Dir || ino.node != nodeFile || ev.Overlap > 0 || ev.Done != 0 || ino.DataPending() || ino.Unmodeled() != nil {
		return
	}
	m.learnSize(ino, n, eff)
}

// seekEnd returns the size an lseek to the end shows: its result less its
// offset, for whence SEEK_END. _llseek (whose result is in an array) and
// a whence printed as a number are not read.
func seekEnd(ev *parser.Event, row *syscalls.Row) (int64, bool) {
	w := row.Pos(syscalls.ArgWhence)
	if w < 0 || row.OffsetOut() >= 0 || !ev.OK() || ev.Arg(w).Text != "SEEK_END" {
		return 0, false
	}
	off, ok := ev.Arg(row.Offset()).Int()
	return ev.Ret - off, ok
}

// File types of a stat's mode (S_IFMT bits).
const (
	modeDir  = 0o040000
	modeChr  = 0o020000
	modeFifo = 0o010000
	modeSock = 0o140000
	modeReg  = 0o100000
	modeBlk  = 0o060000
)

var modeNames = [...]struct {
	name string
	bits uint64
}{{"S_IFDIR", modeDir}, {"S_IFCHR", modeChr}, {"S_IFIFO", modeFifo}, {"S_IFSOCK", modeSock}, {"S_IFREG", modeReg}, {"S_IFLNK", 0o120000}, {"S_IFBLK", modeBlk}}

// modeType is the file type of a stat's mode as strace printed it:
// S_IFDIR|0755, or with -X raw the number 040755. ok is false when the
// text says none (a stat printed as an address, or not printed).
func modeType(mode string) (bits uint64, ok bool) {
	for _, m := range modeNames {
		if strings.Contains(mode, m.name) {
			return m.bits, true
		}
	}
	if len(mode) < 2 || mode[0] != '0' {
		return 0, false
	}
	v, err := strconv.ParseUint(mode[1:], 8, 32) // strace prints a raw mode in octal
	return v & 0o170000, err == nil
}

// modeIsDir reports whether a stat's mode is a directory's.
func modeIsDir(mode string) bool {
	t, ok := modeType(mode)
	return ok && t == modeDir
}

// statUnnamed learns from a stat of fd argument i whose file the trace
// cannot name whether it is a file at all: a terminal, pipe or socket
// (perror writes to a dup of standard error after an fstat of it) is out
// of scope, and writes through it are no blind spot (Procs.Unnamed).
func (m *Model) statUnnamed(ev *parser.Event, i int) {
	h := m.procs.FDHandle(m.procs.Proc(ev.PID), ev.Arg(i), ev.Began())
	if h == nil || !h.unnamed || h.Path != "" {
		return
	}
	for j := range ev.Args {
		if t, ok := modeType(statMode(&ev.Args[j]).Text); ok && (t == modeChr || t == modeFifo || t == modeSock) {
			h.Kind = HandlePseudo
			return
		}
	}
}

func (m *Model) truncate(ev *parser.Event, ino *Inode, size int64, eff *Effect) {
	if ino.Size != 0 && (ino.Written || !ino.Unsure && (ino.Initial || ino.DurableSize > 0)) {
		// Shrinking a file that held data: what it had is at risk. An
		// unsure file (opened O_CREAT, no listing) may have held nothing
		// before the trace, but once the trace wrote it, it holds what
		// the trace wrote, whether it existed before or not.
		if ino.Size > 0 || ino.Size < 0 && ino.Initial {
			ino.HadContent = true
		}
	}
	ino.Modified = true
	if size >= 0 && size == ino.Size && size == ino.DurableSize && !ino.DataPending() {
		// The file has this size already, in the page cache and on disk,
		// with nothing pending: the truncation changes no byte and no
		// size, so it is no pending change and gives no new version
		// (RocksDB cuts a synced MANIFEST to its own size on close). One
		// to the size the program sees while writes are still pending
		// stays an op: it sets the size on disk when it persists.
		return
	}
	op := DataOp{Kind: DataTruncate, Off: -1, Size: size, SizeBefore: ino.Size, event: m.packRef(refOf(ev))}
	if size >= 0 && ino.Size >= 0 && size > ino.Size {
		ino.grewZeros(ino.Size)
	} else {
		ino.cutZeros(size)
	}
	ino.Size = size
	eff.Kind, eff.Inode, eff.Data = EffTruncate, ino, ino.addData(op)
}

// CutsDurable reports whether a truncation of the inode to size, the
// one just made (its op pending), cuts bytes the disk holds: what a crash
// before the cut could have kept and the cut takes away. Bytes the trace
// wrote and no sync made durable are not such bytes: a crash before the
// cut could lose them as well, so cutting them loses nothing a crash did
// not already (a temp file written, then truncated and written again
// before it is synced and renamed). An unsure file (opened O_CREAT, no
// listing) that no sync gave data may have held nothing on disk.
func (n *Inode) CutsDurable(size int64) bool {
	switch {
	case n.DurableSize >= 0:
		return size < 0 || n.DurableSize > size
	case n.syncedWrite:
		return true // some of its data reached the disk, where the trace cannot say
	}
	return n.Initial && !n.Unsure
}

func (m *Model) write(ev *parser.Event, row *syscalls.Row, eff *Effect) {
	n := ev.Ret
	if !ev.RetKnown {
		n = asked(ev, row) // cut by the process's end (cutWrite)
	}
	h := m.fileHandle(ev, row.FD())
	if h == nil || h.Node.Dir || n <= 0 {
		return
	}
	ino := h.Node
	var off int64
	positional := false
	if i := row.Offset(); i >= 0 {
		// pwritev2 writes at the fd offset when given -1.
		off, _ = ev.Arg(i).Int()
		positional = off >= 0
	}
	if !positional {
		off = m.procs.offset(h)
		if h.Flags&syscalls.O_APPEND != 0 {
			off = ino.Size // -1 when unknown
		}
		if off >= 0 {
			m.procs.setOffset(h, off+n)
		}
	}
	op := DataOp{Kind: DataWrite, Off: off, Len: n, event: m.packRef(refOf(ev)), Direct: h.Flags&syscalls.O_DIRECT != 0}
	// Where the bytes lie in the trace, clipped to what was written.
	left := n
	data := row.Data()
	if row.Args[data].Kind == syscalls.ArgData {
		if r := ev.Arg(data).Data; !op.setData(r) {
			op.more = &opMore{chunks: []Chunk{{Ref: r, Len: n}}}
		}
	} else {
		var chunks []Chunk
		for _, iov := range ev.Arg(data).Elems {
			if left <= 0 {
				break
			}
			l, _ := iov.Field("iov_len").Int()
			l = min(l, left)
			chunks = append(chunks, Chunk{Ref: iov.Field("iov_base").Data, Len: l})
			left -= l
		}
		if left > 0 {
			chunks = append(chunks, Chunk{Len: left}) // the array was cut short
		}
		op.setChunks(chunks)
	}
	op.SizeBefore = ino.Size
	if off >= 0 && ino.Size >= 0 {
		ino.Size = max(ino.Size, off+n)
	} else if off < 0 {
		// At an offset the trace does not give (an fd it never opened):
		// the file holds n bytes at least, wherever they went, and Size
		// is a lower bound from here. A file the trace made and wrote so
		// (a shell's redirection under -e trace=!dup2) is no longer
		// taken for empty, and a later cut of it for no change.
		if ino.Size >= 0 {
			ino.Size = max(ino.Size, n)
		}
		ino.sizeLoose = true
	}
	op.Size = ino.Size
	ino.wroteAt(off, off+n)
	ino.Written, ino.Modified = true, true
	eff.Kind, eff.Inode, eff.Handle = EffWrite, ino, h
	eff.Data = ino.addData(op)
	// O_SYNC/O_DSYNC on the fd, or RWF_DSYNC/RWF_SYNC on the call, make the
	// write durable when it returns.
	sync := h.Flags&syscalls.O_DSYNC != 0
	if i := row.Flags(); i >= 0 {
		if f, _ := m.procs.bits(ev, i, syscalls.RWFFlags); f&(syscalls.RWF_DSYNC|syscalls.RWF_SYNC) != 0 {
			sync = true
		}
	}
	if sync && syncedWithRange(ino, off, n) {
		d := *eff.Data
		eff.Data = &d
		m.syncWrite = syncWrite{seq1: ev.Seq + 1, durableSize: ino.DurableSize, lastSync: -1}
		if ino.LastSync != nil {
			m.syncWrite.lastSync = ino.LastSync.Seq
		}
		m.persist(ino, m.eventRef())
	}
}

// syncWrite is, for a write durable on return, its event (seq1, counted
// from 1: 0 before any) and what its file had on disk just before it: its
// durable size and the event of the barrier that last made its data
// durable (-1: none in the trace).
type syncWrite struct {
	seq1        int
	durableSize int64
	lastSync    int
}

// DurableWriteBefore says, for the event being applied when it is a
// write durable on return (O_SYNC, O_DSYNC, RWF_DSYNC), what its file had
// on disk just before the call: its durable size (-1: unknown) and the
// event of the barrier that made its data durable last (-1: none). ok is
// false for any other event. The call wrote its pages to the disk one by
// one before it returned, so a crash during it can keep some and not
// others; a rule that asks about that needs the file as it was.
func (m *Model) DurableWriteBefore() (durableSize int64, lastSync int, ok bool) {
	if m.syncWrite.seq1 != m.last.Seq+1 {
		return 0, 0, false
	}
	return m.syncWrite.durableSize, m.syncWrite.lastSync, true
}

// cutWrite reports whether ev is a write the end of its process cut: the
// thread was in the call when another one called exit_group, and strace
// printed "= ?" for it. The kernel had copied some of its bytes into the
// page cache by then, from none to all, and nothing synced them: the
// model takes it as a write of every byte asked for, whose crash states
// (none of it, a prefix, its size without the data) hold what it left.
// Without it, a file whose last write a crash can tear read as clean.
// A call interrupted to be restarted ("= ? ERESTARTSYS") has an errno
// and runs again.
func cutWrite(ev *parser.Event) bool {
	if ev.Kind != parser.KindSyscall || ev.RetKnown || ev.Errno != "" || ev.Injected {
		return false
	}
	e := ev.Call.Effect()
	return e == syscalls.WriteFD || e == syscalls.WriteAt
}

// asked is how many bytes write call ev asked to write: its count, or the
// lengths of its iovecs; 0 when the trace does not give them.
func asked(ev *parser.Event, row *syscalls.Row) int64 {
	if row.Args[row.Data()].Kind == syscalls.ArgData {
		if i := row.Pos(syscalls.ArgSize); i >= 0 {
			if n, ok := ev.Arg(i).Int(); ok {
				return n
			}
		}
		return 0
	}
	var n int64
	for _, iov := range ev.Arg(row.Data()).Elems {
		l, ok := iov.Field("iov_len").Int()
		if !ok {
			return 0
		}
		n += l
	}
	return n
}

// syncedWithRange reports whether a write of n bytes at off, just added
// to ino's pending ops and made durable by O_SYNC/O_DSYNC or RWF_DSYNC,
// takes every pending op of the file with it. Linux syncs only the range
// written (vfs_fsync_range over its pages), and the inode's metadata: a
// write elsewhere in the file that no sync covered stays in the page
// cache, and a truncation to at most where this write starts is made
// durable with it (O_TRUNC, then O_SYNC writes from 0). The model's pending ops persist in program order, so it cannot
// keep this write durable and an earlier one pending; when an earlier one
// lies outside the pages written (or where the trace cannot place it),
// every op stays pending. That overstates what a crash can lose of this
// one write, never what it can lose of the others.
func syncedWithRange(ino *Inode, off, n int64) bool {
	ops := ino.ops()
	k := ops.len()
	if k <= 1 {
		return true
	}
	if off < 0 {
		return false
	}
	lo, hi := off&^(pageSize-1), (off+n+pageSize-1)&^(pageSize-1)
	for i := range k - 1 {
		op := ops.at(i)
		if op.Kind == DataTruncate && op.Size >= 0 && op.Size <= off {
			// A size the file was cut or grown to is the inode's
			// metadata, which the sync of any range takes. The write
			// lies past it, in pages the cut left without data: new
			// blocks, which the same commit makes the file's. (A write
			// below a pending size change can land in blocks the file
			// keeps, on disk before the size is: the oracle showed
			// such a torn file in the middle of the call, on ext4 and
			// xfs.)
			continue
		}
		if op.Kind != DataWrite || op.Off < lo || op.Off+op.Len > hi {
			return false
		}
	}
	return true
}

func (m *Model) copyInto(ev *parser.Event, row *syscalls.Row, eff *Effect) {
	if ev.Ret <= 0 {
		return
	}
	offArg := row.OffsetPtr()
	h := m.fileHandle(ev, row.FD())
	if h != nil && h.Node.Dir {
		h = nil
	}
	// The source first: whether the trace had changed it is asked before
	// this copy changes anything (it may copy a file into itself), and its
	// offset moves whatever the copy wrote into (sendfile to a socket).
	var from *opMore
	if i := row.Pos(syscalls.ArgFDOther); i >= 0 {
		if src := m.fileHandle(ev, i); src != nil && !src.Node.Dir {
			from = m.copySource(ev, row, src, src != h)
			if h != nil {
				eff.Source = src.Node
			}
		}
	}
	if h == nil {
		return
	}
	ino := h.Node
	off := m.procs.offset(h)
	explicit := false
	if offArg >= 0 {
		if o, ok := offsetPtr(ev.Arg(offArg)); ok {
			off, explicit = o, true
		}
	}
	if !explicit {
		if h.Flags&syscalls.O_APPEND != 0 {
			off = ino.Size
		}
		if off >= 0 {
			m.procs.setOffset(h, off+ev.Ret)
		}
	}
	sizeBefore := ino.Size
	if off >= 0 && ino.Size >= 0 {
		ino.Size = max(ino.Size, off+ev.Ret)
	} else if off < 0 {
		ino.sizeLoose = true
	}
	// The trace never shows the bytes copied: one chunk with no
	// reference, and where they came from (see DataOp.Copy).
	op := DataOp{Kind: DataWrite, Off: off, Len: ev.Ret, Size: ino.Size, SizeBefore: sizeBefore, event: m.packRef(refOf(ev)), more: from}
	ino.wroteAt(off, off+ev.Ret)
	ino.Written, ino.Modified = true, true
	eff.Kind, eff.Inode, eff.Handle, eff.Data = EffWrite, ino, h, ino.addData(op)
}

// copySource says where a copy through the fd src read its bytes: the
// file, whether the trace had changed it, and the offset, which is the
// call's own ([N] after the source fd) or else src's, which the copy
// then moves past what it copied (when move says src is not also the
// fd the copy writes through, whose offset the caller moves).
func (m *Model) copySource(ev *parser.Event, row *syscalls.Row, src *Handle, move bool) *opMore {
	n := src.Node
	from := &opMore{copied: true, from: CopySource{Path: n.Name(), Off: -1}}
	if from.from.Path == "" {
		from.from.Path = src.Path
	}
	from.from.Unchanged = n.Initial && !n.Unsure && !n.Written && !n.Modified && n.Unmodeled() == nil
	if i := row.SourceOffsetPtr(); i >= 0 {
		if o, ok := offsetPtr(ev.Arg(i)); ok {
			from.from.Off = o
			return from
		}
	}
	off := m.procs.offset(src)
	from.from.Off = off
	if off >= 0 && move {
		m.procs.setOffset(src, off+ev.Ret)
	}
	return from
}

// offsetPtr reads an offset pointer strace printed as [N] (for sendfile,
// [N] => [M]: N is where the call began), reporting false for NULL.
func offsetPtr(a *parser.Value) (int64, bool) {
	if a.Kind == parser.ValArray && len(a.Elems) == 1 {
		return a.Elems[0].Int()
	}
	return 0, false
}

func (m *Model) fallocate(ev *parser.Event, row *syscalls.Row, eff *Effect) {
	h := m.fileHandle(ev, row.FD())
	if h == nil || h.Node.Dir {
		return
	}
	ino := h.Node
	mode, _ := m.procs.bits(ev, row.Flags(), syscalls.FallocFlags)
	off, _ := ev.Arg(row.Offset()).Int()
	n, _ := ev.Arg(row.Pos(syscalls.ArgSize)).Int()
	switch {
	case mode&(syscalls.FALLOC_FL_PUNCH_HOLE|syscalls.FALLOC_FL_ZERO_RANGE) != 0:
		size := ino.Size
		if mode&syscalls.FALLOC_FL_KEEP_SIZE == 0 && size >= 0 && off+n > size {
			// fallocate(2): a zeroed range past the end grows the file
			// unless FALLOC_FL_KEEP_SIZE (which a punched hole needs).
			size = off + n
		}
		op := DataOp{Kind: DataZero, Off: off, Len: n, Size: size, SizeBefore: ino.Size, event: m.packRef(refOf(ev))}
		if size > ino.Size {
			ino.grewZeros(ino.Size) // the bytes it zeroed below the old end may have been data on disk: not counted
		}
		ino.Size = size
		ino.Modified = true
		eff.Kind, eff.Inode, eff.Data = EffWrite, ino, ino.addData(op)
	case mode&(syscalls.FALLOC_FL_COLLAPSE_RANGE|syscalls.FALLOC_FL_INSERT_RANGE) != 0:
		m.unmodeled(ev, ino, "fallocate moved the file's data ("+ev.Arg(1).Text+")", eff)
	case mode&syscalls.FALLOC_FL_KEEP_SIZE == 0 && ino.Size >= 0 && off+n > ino.Size:
		op := DataOp{Kind: DataExtend, Off: -1, SizeBefore: ino.Size, Size: off + n, event: m.packRef(refOf(ev))}
		ino.grewZeros(ino.Size)
		ino.Size = off + n
		ino.Modified = true
		eff.Kind, eff.Inode, eff.Data = EffTruncate, ino, ino.addData(op)
	}
}

func (m *Model) fsync(ev *parser.Event, row *syscalls.Row, eff *Effect) {
	h := m.fileHandle(ev, row.FD())
	if h == nil {
		return
	}
	ino := h.Node
	if !ev.OK() {
		if syncRefused(ev.Errno) {
			return // not a sync that could fail with data loss
		}
		m.syncFailed(ev, ino, eff)
		return
	}
	r := m.eventRef()
	cut := syncCut(ev, r)
	if ino.Dir || h.Kind == HandleDir {
		ino.Dir = true
		dp := m.pathOf(ino, h)
		dir := map[string]bool{dp: true}
		persisted, covered := m.dirSyncRule(ino, dir, cut)
		m.unsureSynced(dp, cut.Seq)
		ino.LastSync = r
		eff.Kind, eff.Inode, eff.Persisted, eff.Covered = EffDirSync, ino, persisted, covered
		return
	}
	datasync := row.Effect == syscalls.Fdatasync
	reach := m.syncReach(ino, datasync, cut)
	eff.pendingBefore = m.pendingOf(ino)
	m.persistUpTo(ino, r, cut.Seq)
	eff.Kind, eff.Inode = EffFileSync, ino
	eff.Persisted = m.fileSyncRule(ino, reach, cut)
}

// syncCut is the sync at r as its rules see it: r, or, for a call that
// other threads' calls completed beside (parser.Event.Overlap), r with
// Seq the last event that completed before it began. A sync makes sure
// only of what it found done when it was called: a write or a rename
// that completed while it ran may have missed it (ext4's commit, or the
// writeback of the range, may have started before), so it stays pending
// after, where a crash can keep it or lose it.
func syncCut(ev *parser.Event, r *Ref) Ref {
	cut := *r
	if ev.Overlap > 0 {
		cut.Seq = r.Seq - ev.Overlap - 1
	}
	return cut
}

// pathOf is the directory path a directory handle names.
func (m *Model) pathOf(ino *Inode, h *Handle) string {
	if ino.Path != "" {
		return ino.Path
	}
	return h.Path
}

// syncRefused reports whether a sync that failed with errno never
// started writing back, or was cut off by a signal: it lost nothing, and
// the pending data stays dirty for the next one. EINVAL, EBADF and EROFS
// refuse it; EINTR and the ERESTART* codes strace shows of a call a
// signal interrupted (the kernel runs it again, or returns EINTR) report
// no writeback error, which is what makes Linux drop the dirty pages.
func syncRefused(errno string) bool {
	switch errno {
	case "EINVAL", "EBADF", "EROFS", "EINTR", "ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND", "ERESTART_RESTARTBLOCK":
		return true
	}
	return false
}

func (m *Model) syncFailed(ev *parser.Event, ino *Inode, eff *Effect) {
	x := ino.extra()
	if x.failedSync == nil {
		x.failedSync = m.eventRef()
	}
	// Linux clears the dirty state after a writeback error: what was
	// pending may be gone, and a later sync will not write it again.
	eff.pendingBefore = m.pendingOf(ino)
	ops := ino.ops()
	x.lost = ops.appendTo(x.lost)
	ino.dropPending()
	eff.Kind, eff.Inode = EffSyncFailed, ino
}

// ownFS are the directories every Linux system mounts a filesystem of
// its own at, none of which holds a file a power cut leaves on disk: a
// syncfs of one syncs nothing else (coreutils' sync -f /dev/shm).
var ownFS = [...]string{"/proc", "/sys", "/dev", "/dev/shm", "/run", "/acct"}

// runAliases are the directories of /var that are symbolic links into
// /run (FHS 3.0; every systemd distribution, and Debian's and Ubuntu's
// tmpfs before it): a program that writes its pid file below /var/run
// writes it on /run's tmpfs, and neither the trace nor a mount table
// says so, since the path a program passes is not resolved.
var runAliases = [...]struct{ dir, to string }{{"/var/run", "/run"}, {"/var/lock", "/run/lock"}}

// RunAlias is p with a /var directory that links into /run (runAliases)
// replaced by where it leads.
func RunAlias(p string) string {
	for _, a := range runAliases {
		if isOrUnder(p, a.dir) {
			return a.to + p[len(a.dir):]
		}
	}
	return p
}

// FSOf is the filesystem holding the absolute path p, as its mount point,
// with /var/run and /var/lock taken where they lead (RunAlias):
// Options.FSOf's answer, or else the longest of ownFS above p, or "/".
func (m *Model) FSOf(p string) string {
	p = RunAlias(p)
	if m.opt.FSOf != nil {
		if fs := m.opt.FSOf(p); fs != "" {
			return fs
		}
	}
	fs := "/"
	for _, d := range ownFS {
		if len(d) > len(fs) && isOrUnder(p, d) {
			fs = d
		}
	}
	return fs
}

// fsOfFD is the filesystem (FSOf) of the file fd argument i names, ""
// when the trace does not say which file that is.
func (m *Model) fsOfFD(ev *parser.Event, i int) string {
	if i < 0 {
		return ""
	}
	h := m.procs.FDHandle(m.procs.Proc(ev.PID), ev.Arg(i), ev.Began())
	if h == nil {
		return ""
	}
	p := h.Path
	if h.Node != nil && h.Node.Path != "" {
		p = h.Node.Path
	} else if h.Node != nil {
		if names := h.Node.Names(); len(names) > 0 {
			p = names[0]
		}
	}
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	return m.FSOf(p)
}

// onFS reports whether ino lies on filesystem fs: by a name of it, or
// the last name it had; a file that never had one (O_TMPFILE) is taken
// as on fs, as a sync of every file would.
func (m *Model) onFS(ino *Inode, fs string) bool {
	names := ino.Names()
	for _, p := range names {
		if m.FSOf(p) == fs {
			return true
		}
	}
	if len(names) > 0 {
		return false
	}
	if p := ino.LastPath(); p != "" {
		return m.FSOf(p) == fs
	}
	return true
}

// Covers reports whether the sync of an EffSyncAll covered ino: every
// file for a sync, the files on its filesystem for a syncfs (FS).
func (m *Model) Covers(e *Effect, ino *Inode) bool {
	return e.FS == "" || ino != nil && m.onFS(ino, e.FS)
}

// SyncedAfter reports whether, after event seq, a sync of every file
// (sync, or a syncfs whose fd the trace cannot place) or a syncfs of the
// filesystem holding path p ran: what the program wrote to p and the
// entries of p's directory before it are durable. p "" is a file the
// trace cannot name: any syncfs may have been of its filesystem.
func (m *Model) SyncedAfter(p string, seq int) bool {
	if m.lastSyncAll > seq {
		return true
	}
	if len(m.syncedFS) == 0 {
		return false
	}
	if p == "" {
		for _, s := range m.syncedFS {
			if s > seq {
				return true
			}
		}
		return false
	}
	s, ok := m.syncedFS[m.FSOf(p)]
	return ok && s > seq
}

// syncFS is a syncfs of filesystem fs: the data of the files on it and
// the entries of its directories become durable, and nothing else. A
// syncfs of /dev/shm leaves a file written on the disk as it was.
func (m *Model) syncFS(ev *parser.Event, eff *Effect, fs string) {
	r := m.eventRef()
	cut := syncCut(ev, r).Seq
	m.inodes.each(func(ino *Inode) {
		if len(ino.pending) > 0 && m.onFS(ino, fs) {
			m.persistUpTo(ino, r, cut)
		}
	})
	dirs := map[string]bool{}
	for _, op := range m.pending() {
		ds, k := op.dirs()
		for _, d := range ds[:k] {
			if m.FSOf(d) == fs {
				dirs[d] = true
			}
		}
	}
	if len(dirs) > 0 {
		eff.Persisted, _ = m.persistEntriesIn(dirs, cut)
	}
	for d := range m.unsureIn {
		if m.FSOf(d) == fs {
			m.unsureSynced(d, cut)
		}
	}
	if !slices.Contains(ownFS[:], fs) {
		// A transaction commit, as for sync (btrfs's log: persist.go).
		// Of a filesystem that may not hold the trace's files (a mount
		// table's tmpfs): taking it as one only leaves more to a crash.
		m.lastCommit = cut
	}
	if m.syncedFS == nil {
		m.syncedFS = map[string]int{}
	}
	m.syncedFS[fs] = r.Seq
	eff.Kind, eff.FS = EffSyncAll, fs
}

func (m *Model) syncAll(ev *parser.Event, eff *Effect) {
	r := m.eventRef()
	cut := syncCut(ev, r).Seq
	m.inodes.each(func(ino *Inode) {
		if len(ino.pending) > 0 {
			m.persistUpTo(ino, r, cut)
		}
	})
	eff.Persisted = m.persistEntries(nil, cut)
	m.lastCommit, m.lastSyncAll = cut, r.Seq
	for d := range m.unsureIn {
		m.unsureSynced(d, cut)
	}
	eff.Kind = EffSyncAll
}

func (m *Model) rename(ev *parser.Event, row *syscalls.Row, paths []string, eff *Effect) {
	if len(paths) != 2 || paths[0] == "" || paths[1] == "" {
		return
	}
	from, to := paths[0], paths[1]
	if isPseudoPath(from) || isPseudoPath(to) || from == to {
		return
	}
	var flags uint64
	if i := row.Flags(); i >= 0 {
		flags, _ = m.procs.bits(ev, i, syscalls.RenameFlags)
	}
	src := m.lookup(from, true)
	var dst *Inode
	if _, known := m.knownExisting(to); !known && !m.newDir(parentDir(to)) && !m.missing.has(to) && flags&(syscalls.RENAME_EXCHANGE|syscalls.RENAME_NOREPLACE) == 0 {
		// The trace cannot tell whether the rename replaced a file.
		dst = m.unsure(to, refOf(ev), false)
	} else {
		dst = m.lookup(to, flags&syscalls.RENAME_EXCHANGE != 0)
	}
	if src == nil {
		return
	}
	if flags&syscalls.RENAME_EXCHANGE != 0 {
		m.entry(ev, EntryExchange, []NameChange{{Path: from, Old: src, New: dst}, {Path: to, Old: dst, New: src}}, eff)
		return
	}
	op := m.entry(ev, EntryRename, []NameChange{{Path: from, Old: src}, {Path: to, Old: dst, New: src}}, eff)
	if src.mayBeDir() {
		// A directory moved, or a file from before the trace that may be
		// one: a name below either place may have been there before.
		m.missing.forget()
	}
	if src.Dir {
		eff.Carried = m.renameTree(op, from, to)
	}
	if m.opt.Persistence == Ext4 && dst != nil && !src.Dir && len(src.pending) > 0 {
		src.extra().writeback = true // auto_da_alloc: started, not waited for
	}
}

func (m *Model) mmap(ev *parser.Event, row *syscalls.Row, eff *Effect) {
	prot, _ := m.procs.bits(ev, row.PosOf(syscalls.ProtFlags), syscalls.ProtFlags)
	flags, _ := m.procs.bits(ev, row.PosOf(syscalls.MmapFlags), syscalls.MmapFlags)
	// The mapping type is a field, not a flag: MAP_PRIVATE (2) shares a
	// bit with MAP_SHARED_VALIDATE (3).
	typ := flags & syscalls.MAP_TYPE
	if !ev.OK() {
		return
	}
	size, _ := ev.Arg(row.Pos(syscalls.ArgSize)).Int()
	// Any new mapping (MAP_FIXED, or memory unmapped and handed out
	// again) replaces what was mapped there. munmap alone need not be
	// read: an mprotect of memory no mapping holds fails (ENOMEM).
	m.unmapRead(ev.Ret, size)
	shared := typ == syscalls.MAP_SHARED || typ == syscalls.MAP_SHARED_VALIDATE
	// A mapping the process can read and cannot store into the file
	// through (private, or shared without PROT_WRITE) reads the file as
	// a read call does, through memory, as long as it lasts: git and bup
	// map their packs and read them so. Any protection but PROT_NONE
	// reads (a writable or executable page is readable on Linux). A file
	// mapped shared and writable is memory shared between processes
	// (SQLite's -shm, PostgreSQL's segments), not data copied: a change
	// the model cannot follow (EffUnmodeled, below), and no read.
	reads := m.opt.Reads && prot != syscalls.PROT_NONE && flags&syscalls.MAP_ANONYMOUS == 0 &&
		(!shared || prot&syscalls.PROT_WRITE == 0)
	if !shared && !reads {
		return
	}
	h := m.fileHandle(ev, row.FD())
	if h == nil || h.Node.Dir {
		return
	}
	if reads && !(sizeExact(h.Node) && h.Node.Size == 0) { // of a file known empty, it reads nothing
		eff.Kind, eff.Inode, eff.Handle = EffRead, h.Node, h
	}
	if !shared {
		return
	}
	if prot&syscalls.PROT_WRITE == 0 {
		// LMDB maps its file read-only and writes with pwrite; a
		// later mprotect can still make the mapping writable.
		if n := len(m.readMaps) - maxReadMaps + 1; n > 0 {
			m.readMaps = slices.Delete(m.readMaps, 0, n)
		}
		m.readMaps = append(m.readMaps, readMap{ev.Ret, size, h.Node})
		return
	}
	m.maps[strconv.FormatInt(ev.Ret, 16)] = h.Node
	m.unmodeled(ev, h.Node, "the file is mapped shared and writable: stores through the mapping change its data without a write call", eff)
}

// readMap is a shared mapping of a file made without PROT_WRITE.
type readMap struct {
	start, size int64
	node        *Inode
}

// unmapRead cuts the size bytes at addr out of the shared read-only
// mappings: a new mapping replaced them. What is left of one on either
// side stays.
func (m *Model) unmapRead(addr, size int64) {
	if len(m.readMaps) == 0 {
		return
	}
	end := addr + max(size, 1)
	overlaps := func(r readMap) bool { return r.start < end && addr < r.start+max(r.size, 1) }
	if !slices.ContainsFunc(m.readMaps, overlaps) {
		return // the common case: a mapping elsewhere
	}
	var kept []readMap
	for _, r := range m.readMaps {
		if !overlaps(r) {
			kept = append(kept, r)
			continue
		}
		rEnd := r.start + max(r.size, 1)
		if r.start < addr {
			kept = append(kept, readMap{r.start, addr - r.start, r.node})
		}
		if end < rEnd {
			kept = append(kept, readMap{end, rEnd - end, r.node})
		}
	}
	m.readMaps = kept
}

// maxReadMaps bounds Model.readMaps: a program that maps many files
// shared and read-only (and never unmaps them, as far as the model
// knows) keeps the last ones.
const maxReadMaps = 256

// mprotect reads an mprotect that adds PROT_WRITE to a shared mapping of
// a file: it is now mapped shared and writable, as by mmap. It only
// succeeds when the file was opened for writing.
func (m *Model) mprotect(ev *parser.Event, row *syscalls.Row, eff *Effect) {
	if !ev.OK() || len(m.readMaps) == 0 {
		return
	}
	prot, _ := m.procs.bits(ev, row.PosOf(syscalls.ProtFlags), syscalls.ProtFlags)
	if prot&syscalls.PROT_WRITE == 0 {
		return
	}
	addr, _ := ev.Arg(row.Pos(syscalls.ArgAddr)).Int()
	for i := len(m.readMaps) - 1; i >= 0; i-- {
		r := m.readMaps[i]
		if addr < r.start || addr >= r.start+max(r.size, 1) {
			continue
		}
		m.maps[strconv.FormatInt(r.start, 16)] = r.node
		m.unmodeled(ev, r.node, "a shared mapping of the file was made writable: stores through it change its data without a write call", eff)
		return
	}
}

func (m *Model) msync(ev *parser.Event, row *syscalls.Row, eff *Effect) {
	addr, _ := ev.Arg(row.Pos(syscalls.ArgAddr)).Int()
	ino := m.maps[strconv.FormatInt(addr, 16)]
	if ino == nil {
		return
	}
	if !ev.OK() {
		if !syncRefused(ev.Errno) {
			m.syncFailed(ev, ino, eff)
		}
		return
	}
	if f, _ := m.procs.bits(ev, row.Flags(), syscalls.MsyncFlags); f&syscalls.MS_SYNC != 0 {
		eff.pendingBefore = m.pendingOf(ino)
		m.persist(ino, m.eventRef())
		eff.Kind, eff.Inode = EffFileSync, ino
	}
}

// underDir notes that p's parent is a directory, p naming something in
// it: a program may open that directory without O_DIRECTORY and fsync it
// (PostgreSQL opens pg_xact O_RDONLY after writing pg_xact/0000), and the
// sync is a directory's, not a file's.
func (m *Model) underDir(p string) {
	d := parentDir(p)
	if d == "" || m.parents[d] {
		return
	}
	m.parents[d] = true
	if n := m.names[d]; n != nil && n.Cache != nil {
		n.Cache.Dir = true
	} else if id, retired, isDir := m.peekDir(d); retired && id != 0 && !isDir {
		// Retired before the trace showed it a directory (a stat of it
		// printed without its mode): bring it back to say so, as the
		// live model would have.
		if ino := m.lookup(d, true); ino != nil {
			ino.Dir = true
		}
	}
}

func (m *Model) anyWritable(ev *parser.Event) *Handle {
	pr := m.procs.Proc(ev.PID)
	for _, e := range pr.files.all {
		if n := m.node(e.h); n != nil && !n.Dir && e.h.Flags&syscalls.O_ACCMODE != syscalls.O_RDONLY {
			m.loadNode(e.h)
			return e.h
		}
	}
	return nil
}

func (m *Model) unmodeled(ev *parser.Event, ino *Inode, what string, eff *Effect) {
	if ino.Unmodeled() == nil {
		ino.extra().unmodeled = m.eventRef()
	}
	ino.Modified = true
	eff.Kind, eff.Inode, eff.What = EffUnmodeled, ino, what
}
