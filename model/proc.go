package model

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// Handle is an open file description: what open() returned, shared by dup
// and inherited across fork. The offset lives here, not in the fd.
type Handle struct {
	Path   string // absolute when the trace tells, else relative to an unknown cwd; "" when unknown
	Flags  uint64 // open flags (O_APPEND, O_DIRECT, O_SYNC, ...)
	Offset int64  // -1 when unknown (an fd opened before the trace)
	Kind   HandleKind
	// unnamed: an fd the trace never opened and never named (inherited
	// from before the trace, or opened before an attach, and printed
	// without -y), whose file no finding can name (see Procs.Unnamed).
	unnamed bool
	// std: a handle the trace never opened, first seen as fd 0, 1 or 2,
	// standard input, output and error, a terminal almost always. A dup
	// of an unnamed one (perror writes through one) is the same
	// terminal, not a blind spot.
	std bool
	// predates: an fd the trace never opened, first met under a -y name
	// (see Procs.Unopened).
	predates bool
	// standIn: made for an fd a process used before the clone that
	// created it returned (see earlyOp); asked: Unnamed answered with it
	// as a stand-in, so the parent's entry it turns out to be is kept
	// (Procs.heirs).
	standIn, asked bool
	Node           *Inode // set by the durability model for regular files and directories
	// nodes are the inodes of the models sharing the process model, by
	// their place among them (see sharedprocs.go); Node is then the one
	// of the model that last resolved the handle.
	nodes [sharedProcsMax]*Inode
	// anno is the -y annotation Path was last taken from, as the parser
	// gave it: an fd argument carrying the same annotation again (the
	// parser interns them, so the comparison is one pointer) names the
	// same path, without cleaning it again.
	anno string
}

// HandleKind says what an fd refers to, as far as the trace shows.
type HandleKind uint8

const (
	HandleFile   HandleKind = iota // a regular file, or unknown
	HandleDir                      // a directory (O_DIRECTORY, or fsync'd as one)
	HandlePseudo                   // pipe, socket, eventfd, /proc, /dev: out of scope
)

type fdEntry struct {
	h       *Handle
	cloexec bool
	held    bool // in use (fdTable)
	// line is the trace line where the call that assigned this fd number
	// completed, and prevH the entry it replaced. Calls complete in the
	// order strace prints their ends: a call that started before another
	// thread's open returned the same number meant the previous holder
	// (the kernel could not hand out the number until it was free).
	line int64
	// prevH, prevCloexec and prevLine are the entry this one replaced
	// (prevH nil when none): only one is kept, so it lives inline rather
	// than as an allocation at every reuse of an fd number.
	prevH       *Handle
	prevCloexec bool
	prevLine    int64
}

// put assigns fd, remembering the entry it replaces.
func (t *fdTable) put(fd int, e fdEntry) {
	if old, ok := t.get(fd); ok {
		e.prevH, e.prevCloexec, e.prevLine = old.h, old.cloexec, old.line
	}
	t.set(fd, e)
}

// at returns the entry fd had when a call that started at line began.
func (t *fdTable) at(fd int, line int64) (fdEntry, bool) {
	e, ok := t.get(fd)
	if ok && e.line > line && e.prevH != nil {
		return fdEntry{h: e.prevH, cloexec: e.prevCloexec, line: e.prevLine}, true
	}
	return e, ok
}

// fdTable is shared by threads (CLONE_FILES) and copied by fork. The fd
// numbers a program uses are small and dense, so those below lowFDs live
// in a slice indexed by number (a lookup at every call that takes an fd
// was a map access); any other number, in a map.
type fdTable struct {
	low  []fdEntry // low[fd] for 0 <= fd < lowFDs, held when in use
	high map[int]fdEntry
	n    int // fds in use, low and high
}

// lowFDs bounds the fd numbers kept in fdTable's slice: 48 bytes each up
// to the highest in use, copied by a fork that does not share its table,
// so a process whose highest fd is in the hundreds holds some 12 KB, not
// the few hundred bytes of a map of its handful of fds.
const lowFDs = 256

func (t *fdTable) get(fd int) (fdEntry, bool) {
	if uint(fd) < uint(len(t.low)) {
		e := t.low[fd]
		return e, e.held
	}
	if fd >= 0 && fd < lowFDs {
		return fdEntry{}, false
	}
	e, ok := t.high[fd]
	return e, ok
}

func (t *fdTable) set(fd int, e fdEntry) {
	e.held = true
	if fd >= 0 && fd < lowFDs {
		if fd >= len(t.low) {
			t.low = append(t.low, make([]fdEntry, fd+1-len(t.low))...)
		}
		if !t.low[fd].held {
			t.n++
		}
		t.low[fd] = e
		return
	}
	if t.high == nil {
		t.high = map[int]fdEntry{}
	}
	if _, ok := t.high[fd]; !ok {
		t.n++
	}
	t.high[fd] = e
}

func (t *fdTable) del(fd int) {
	if fd >= 0 && fd < lowFDs {
		if fd < len(t.low) && t.low[fd].held {
			t.low[fd] = fdEntry{}
			t.n--
		}
		return
	}
	if _, ok := t.high[fd]; ok {
		delete(t.high, fd)
		t.n--
	}
}

// all yields every fd in use and its entry; the loop may set or delete
// the fd it was given.
func (t *fdTable) all(yield func(int, fdEntry) bool) {
	for fd := range t.low {
		if e := t.low[fd]; e.held && !yield(fd, e) {
			return
		}
	}
	for fd, e := range t.high {
		if !yield(fd, e) {
			return
		}
	}
}

func (t *fdTable) clone() *fdTable {
	n := &fdTable{low: slices.Clone(t.low), n: t.n}
	if len(t.high) > 0 {
		n.high = maps.Clone(t.high)
	}
	return n
}

// fsInfo holds the cwd and the root, shared by threads (CLONE_FS). anno
// is the AT_FDCWD annotation cwd was last taken from ("" when it came
// from elsewhere), so that the same annotation again is not cleaned
// again. root is the directory chroot made "/" of the process, in the
// trace's own terms ("" for "/"): absolute names start there. The cwd and
// -y's annotations name directories from the real root, as strace reads
// them in /proc.
type fsInfo struct{ cwd, anno, root string }

// set changes the cwd to dir, learnt from something other than an
// annotation.
func (f *fsInfo) set(dir string) { f.cwd, f.anno = dir, "" }

// Process is one traced process or thread.
type Process struct {
	PID   int
	files *fdTable
	fs    *fsInfo
	// attached is false for a process whose events came before the clone
	// that created it returned (strace prints the child's first calls
	// first); it inherits its parent's fds when the clone returns.
	attached bool
	// early is what the process did to its fd table while not attached,
	// in order, replayed onto its parent's table when the clone returns
	// (see earlyOp); earlyLost is set once there was too much of it to
	// keep.
	early     []earlyOp
	earlyLost bool
}

// An earlyOp is one change a process not yet attached made to its fd
// table. Under strace -f a child's first calls can be printed before its
// parent's fork or clone returns, and until it does the model does not
// know the table the child started with: a forked child's launcher code
// (posix_spawn's file actions, a zygote's socket put on fd 3) dup2s,
// closes and marks fds it inherited in that window. The child's own table
// holds what the window showed, for the calls in it; when the clone
// returns, the window's changes are applied in order to the table the
// child really started with (a copy of its parent's, or the parent's
// itself under CLONE_FILES), so that an fd it only used there is the
// parent's entry, not a stand-in that hides it.
type earlyOp struct {
	kind earlyKind
	// fd is the fd changed, or the first of a close_range and hi its
	// last.
	fd, hi int
	// line is where the call began (Event.Began): an entry assigned
	// later (by a thread sharing the table) is not the one the call meant.
	line int64
	// e is the entry made (earlySet), the stand-in Handle of an fd first
	// used (earlyInherit), or the new close-on-exec flag (earlyCloexec;
	// for earlyCloseRange, set when it only marks the fds).
	e fdEntry
}

type earlyKind uint8

const (
	// earlyInherit: an fd the child used without making it, so one it
	// started with: the parent's entry when the parent holds the same
	// file at that number, else the stand-in e.h the window used.
	earlyInherit    earlyKind = iota
	earlySet                  // an fd made (open, dup, pipe, socket, ...)
	earlyDel                  // close
	earlyCloexec              // F_SETFD
	earlyCloseRange           // close_range
	earlyExec                 // execve: close-on-exec fds close
)

// earlyOpsMax bounds the changes kept for a process not attached: a
// child's window is a few calls, but a thread whose clone the trace does
// not show (attached with -p) stays unattached for good. Past it the
// child's own entries win over its parent's, as they would without the
// record.
const earlyOpsMax = 512

// noteEarly records a change to the fd table of pr while it is not
// attached.
func (pr *Process) noteEarly(op earlyOp) {
	if pr.attached || pr.earlyLost {
		return
	}
	if len(pr.early) >= earlyOpsMax {
		pr.early, pr.earlyLost = nil, true
		return
	}
	pr.early = append(pr.early, op)
}

// pruneEarly forgets the record's Handles that no fd of pr holds any
// more: a Handle keeps its inode, which the model retires once no fd
// table holds it (Model.heldByFD), and a process whose clone the trace
// never shows would keep every file it ever opened. An fd made with a
// Handle since dropped is closed by the time the clone returns, so it
// is a close there (it took the place of the parent's entry); an fd only
// used and then dropped needs nothing (what dropped it is in the record).
func (pr *Process) pruneEarly() {
	if len(pr.early) == 0 {
		return
	}
	held := make(map[*Handle]struct{}, pr.files.n)
	for _, e := range pr.files.all {
		held[e.h] = struct{}{}
	}
	ops := pr.early[:0]
	for _, op := range pr.early {
		if op.e.h != nil {
			if _, ok := held[op.e.h]; !ok {
				if op.kind != earlySet {
					continue
				}
				op = earlyOp{kind: earlyDel, fd: op.fd, line: op.line}
			}
		}
		ops = append(ops, op)
	}
	clear(pr.early[len(ops):])
	pr.early = ops
}

// Procs models processes, fd tables and cwds so that file arguments can be
// resolved to paths when strace did not annotate them (-y).
type Procs struct {
	procs map[int]*Process
	// Lines without a pid in an -f log belong to the first process, which
	// later lines name by its pid: rootAlias is that pid once known.
	rootAlias int
	// cwd0 is the first process's cwd when the caller knows it, and
	// fds0 the files it holds open from the start; both are forgotten
	// once it is made (newProc).
	cwd0 string
	fds0 []InitialFD
	// joined is the last relative name resolved, against dir: a program
	// stats and opens the same relative name in a row, and each join
	// allocates.
	joinDir, joinName, joined string
	// flags are the flags decoded from the event being applied: its
	// own (ownFlags), or, for the models of one check, which apply each
	// event one after the other, theirs (Shared), so that the flag text
	// of an event is decoded once, not once a model.
	flags    *flagMemo
	ownFlags flagMemo
	// lastPID is the pid Proc last answered, with lastProc its answer
	// (nil: none): an event asks for its process several times (its
	// paths, its fd, Apply), and most follow one of the same process.
	// Any change to procs forgets it.
	lastPID  int
	lastProc *Process
	// heirs maps a stand-in Unnamed answered with (Handle.asked) to the
	// parent's entry it turned out to be when its process was attached.
	heirs map[*Handle]*Handle
	// fromExec is 1 once the trace's first call was an execve (strace
	// started the program: every other process is made by a call in the
	// trace), -1 once it was another call; 0 before the first.
	fromExec int8
	// gone are the processes that exited before their clone returned,
	// having used fds Unnamed answered for with a stand-in, by pid.
	gone map[int]*Process
	// received are the fds a recvmsg gave (SCM_RIGHTS) that the trace
	// does not name (no -y), each with where it arrived: what
	// ReceivedAt tells of an unnamed fd. A named one is a file or no
	// file like any other, and is not kept.
	received map[*Handle]parser.Pos
}

// flagMemo is the flags read from one event's arguments, the event named
// by its pointer and Seq (the parser reuses Events, never a Seq within a
// stream). A memo the models of a check share is let go once each of them
// has applied the event, so that an event made by hand, applied again
// with the same pointer and Seq after a change, is read afresh.
type flagMemo struct {
	ev  *parser.Event
	seq int
	// sharers is how many models share the memo, applied how many of
	// them have applied its event.
	sharers, applied int
	open             bool   // openV holds the event's open flags
	openV            uint64 // see openFlags
	n                int
	args             [2]flagArg
	// The event's resolved paths (appendPaths), when pathsOK: the same
	// in every model, whose process models replay the same events. The
	// array is kept from event to event.
	pathsOK bool
	paths   []string
	// texts are the flag texts decoded lately, kept from event to event
	// (see flagTexts).
	texts *flagTexts
	// For the models sharing a process model (sharedprocs.go): whether
	// the event's Procs.Apply is done, and the Handle it returned; the
	// Handles whose offsets the event moved (a copy moves two), and
	// their offsets before.
	procsDone bool
	newH      *Handle
	offH      *Handle
	offPrev   int64
	offH2     *Handle
	offPrev2  int64
}

// flagTexts remembers the last few flag texts decoded, with their table
// and architecture: a program passes the same few flags again and again
// (O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC at every file it makes, F_SETFL and
// its flags after every open in Go), and decoding one looks each name up
// in a map. What a text decodes to depends on nothing else.
type flagTexts struct {
	e    [8]flagText
	next int
}

type flagText struct {
	t    *parser.FlagTable
	a    parser.Arch
	text string
	v    uint64
	ok   bool
}

// bits is v.Bits(t, a), remembered.
func (c *flagTexts) bits(v *parser.Value, t *parser.FlagTable, a parser.Arch) (uint64, bool) {
	if v.Kind == parser.ValNone {
		return 0, false
	}
	if c == nil {
		return t.Bits(v.Text, a)
	}
	for i := range c.e {
		if e := &c.e[i]; e.t == t && e.a == a && e.text == v.Text {
			return e.v, e.ok
		}
	}
	bits, ok := t.Bits(v.Text, a)
	c.e[c.next] = flagText{t: t, a: a, text: v.Text, v: bits, ok: ok}
	c.next = (c.next + 1) % len(c.e)
	return bits, ok
}

type flagArg struct {
	i  int
	t  *parser.FlagTable
	v  uint64
	ok bool
}

// at makes the memo the event's, forgetting another's.
func (f *flagMemo) at(ev *parser.Event) {
	if ev != f.ev || ev.Seq != f.seq {
		*f = flagMemo{ev: ev, seq: ev.Seq, sharers: f.sharers, paths: f.paths[:0], texts: f.texts}
	}
}

// openFlags is the package's openFlags, read once per event: the model
// asks for them before Apply does (each flag name is a map lookup).
func (p *Procs) openFlags(ev *parser.Event) uint64 {
	return p.flags.openFlags(ev)
}

// openFlags is the event's open flags, decoded on first asking.
func (f *flagMemo) openFlags(ev *parser.Event) uint64 {
	f.at(ev)
	if !f.open {
		f.open, f.openV = true, openFlagsWith(ev, f.texts)
	}
	return f.openV
}

// bits is ev.Bits(i, t), read once per event.
func (p *Procs) bits(ev *parser.Event, i int, t *parser.FlagTable) (uint64, bool) {
	f := p.flags
	f.at(ev)
	for k := range f.args[:f.n] {
		if a := &f.args[k]; a.i == i && a.t == t {
			return a.v, a.ok
		}
	}
	v, ok := f.texts.bits(ev.Arg(i), t, ev.Arch)
	if f.n < len(f.args) {
		f.args[f.n] = flagArg{i: i, t: t, v: v, ok: ok}
		f.n++
	}
	return v, ok
}

// forgetFlags drops the process model's own memo once an event is
// applied, so that nothing is carried to another event even where the
// parser's promise does not hold (events made by hand); a shared memo is
// kept for the next model applying the event (see appliedFlags).
func (p *Procs) forgetFlags() {
	if p.flags == &p.ownFlags {
		p.ownFlags = flagMemo{texts: p.ownFlags.texts}
	}
}

// appliedFlags is forgetFlags once the model is done with ev: a shared
// memo is let go after the last of its models has applied the event.
func (p *Procs) appliedFlags(ev *parser.Event) {
	f := p.flags
	if f == &p.ownFlags {
		p.ownFlags = flagMemo{texts: p.ownFlags.texts}
		return
	}
	if f.ev != ev || f.seq != ev.Seq {
		return // another event's memo, or none
	}
	if f.applied++; f.applied >= f.sharers {
		// No event's: the next event's at clears the rest, once.
		f.ev, f.newH, f.offH, f.offH2 = nil, nil, nil, nil
	}
}

// join is clean(dir, name) for a relative name, remembering the last.
func (p *Procs) join(dir, name string) string {
	if name == "" || dir != p.joinDir || name != p.joinName || p.joined == "" {
		p.joinDir, p.joinName, p.joined = dir, name, clean(dir, name)
	}
	return p.joined
}

// SetInitialFDs gives the first process the open files it was started
// with (see Listing.FDs). Call it before the first event.
func (p *Procs) SetInitialFDs(fds []InitialFD) { p.fds0 = fds }

// NewProcs returns an empty process model.
func NewProcs() *Procs {
	p := &Procs{procs: map[int]*Process{}, rootAlias: -1}
	p.flags = &p.ownFlags
	p.ownFlags.texts = new(flagTexts)
	return p
}

// NewProcsIn returns an empty process model whose first process starts in
// cwd (see Options.Cwd).
func NewProcsIn(cwd string) *Procs {
	p := NewProcs()
	p.cwd0 = cwd
	return p
}

func (p *Procs) newProc(pid int) *Process {
	pr := &Process{PID: pid, files: &fdTable{}, fs: &fsInfo{}, attached: len(p.procs) == 0}
	if pr.attached {
		// A process that comes after every one before it exited (a later
		// strace -p session appended to the file) has its own cwd and
		// files, unknown as any attach's: the caller's are the first's.
		pr.fs.cwd = p.cwd0
		for _, f := range p.fds0 {
			pr.files.set(f.FD, fdEntry{h: &Handle{Path: f.Path, Flags: f.Flags, Offset: f.Offset}})
		}
		p.cwd0, p.fds0 = "", nil
	}
	p.procs[pid] = pr
	p.lastProc = nil
	return pr
}

// spawned gives a process the trace has not shown before its parent's fd
// table and cwd at its first call, when that call came while one call
// that makes a process was under way, or several in threads that share
// their fd table and cwd (parser.Event.Spawner): under
// strace -f a new child's first calls can come before its parent's
// fork or clone returns with its pid, and in a trace that starts at the
// program's execve a process nothing else made is that call's child.
// Its changes through the fds it inherited then reach the parent's
// files at once, rather than stand-ins (see earlyOp). Call it first for
// each event, from every model: it is done once.
func (p *Procs) spawned(ev *parser.Event) {
	if p.fromExec == 0 && ev.Kind == parser.KindSyscall {
		p.fromExec = -1
		if ev.Call.Row().Effect == syscalls.Execve {
			p.fromExec = 1
		}
	}
	spawner, flags, also := ev.Spawner()
	if spawner == 0 || p.fromExec < 0 || ev.Kind != parser.KindSyscall || ev.PID == spawner || ev.PID == p.rootAlias {
		return
	}
	if _, ok := p.procs[ev.PID]; ok {
		return
	}
	parent := p.procs[spawner]
	if parent == nil || !parent.attached {
		return
	}
	for _, pid := range also {
		// Several under way, with the same flags: threads of one
		// process starting threads or children at once (a Go program's
		// runtime). Which one made this process does not matter when
		// they share their fd table and cwd; else it waits for its
		// clone to return.
		q := p.procs[pid]
		if q == nil || !q.attached || q.files != parent.files || q.fs != parent.fs {
			return
		}
	}
	if _, ok := p.procs[0]; ok && p.rootAlias < 0 {
		return // lines without a pid: which pid is the first process's is open
	}
	p.attachChild(parent, ev.PID, flags)
}

// Proc returns the process an event belongs to, creating it on first sight.
func (p *Procs) Proc(pid int) *Process {
	if pr := p.lastProc; pr != nil && pid == p.lastPID {
		return pr
	}
	pr := p.proc(pid)
	p.lastPID, p.lastProc = pid, pr
	return pr
}

func (p *Procs) proc(pid int) *Process {
	if pr, ok := p.procs[pid]; ok {
		return pr
	}
	if pid == p.rootAlias {
		if pr, ok := p.procs[0]; ok {
			return pr
		}
		// The first process has exited, and a line of its pid comes
		// after (a call strace left unfinished, in a cut or mixed log):
		// a process of its own, as for any pid not seen before.
		return p.newProc(pid)
	}
	if pr0, ok := p.procs[0]; ok && pid != 0 && p.rootAlias < 0 && !p.isChild(pid) {
		// The first pid-prefixed line of a process that so far had none.
		p.rootAlias = pid
		return pr0
	}
	return p.newProc(pid)
}

func (p *Procs) isChild(pid int) bool {
	_, ok := p.procs[pid]
	return ok
}

// clean makes a trace path absolute against dir when it is relative.
func clean(dir, name string) string {
	if name == "" {
		return dir
	}
	if strings.HasPrefix(name, "/") || dir == "" {
		return path.Clean(name)
	}
	return path.Join(dir, name)
}

// FDHandle returns the handle an fd argument refers to, creating one from
// the -y annotation when the fd was opened before the trace began.
func (p *Procs) FDHandle(pr *Process, v *parser.Value, line int64) *Handle {
	fd, ok := fdNumber(v)
	if !ok {
		return nil
	}
	e, ok := pr.files.at(int(fd), line)
	if ok && v.HasAnno && e.h.anno != "" && v.Anno == e.h.anno {
		return e.h
	}
	if v.HasAnno {
		anno := annoPath(v.Anno)
		switch {
		case ok && e.h.Path == anno:
			e.h.anno = v.Anno
		case ok && (v.Deleted || e.h.Path == "" || e.h.Node != nil && e.h.Node.HasName(anno)):
			// Same file under its new name (renamed since it was opened),
			// or a name the table did not know yet.
			if !v.Deleted {
				e.h.Path, e.h.anno = anno, v.Anno
				if e.h.Kind == HandleFile {
					e.h.Kind = kindOfAnno(v.Anno, false)
				}
			} else if e.h.Path == "" && e.h.Kind == HandleFile && isAnonAnno(v.Anno, true) {
				e.h.Kind = HandlePseudo // an fd the table knew nothing of, on no filesystem
			}
		default:
			// The fd predates the trace or the table lost track: believe
			// strace, it read /proc/PID/fd.
			// Opened before the trace, or by a parent before its clone
			// returned: where its offset stood the trace has not shown
			// (a log a daemon has written for hours is far past 0).
			h := &Handle{Path: anno, Kind: kindOfAnno(v.Anno, v.Deleted), anno: v.Anno, Offset: -1, predates: !ok, std: !ok && fd <= 2, standIn: !pr.attached}
			pr.files.set(int(fd), fdEntry{h: h})
			if !pr.attached {
				pr.noteEarly(earlyOp{kind: earlyInherit, fd: int(fd), line: line, e: fdEntry{h: h}})
				if ok {
					pr.pruneEarly()
				}
			}
			return h
		}
	}
	if !ok {
		if fd < 0 {
			return nil
		}
		// An fd inherited from before the trace, whose file the trace
		// does not name: remember it as unknown, so that dup of it
		// carries "unknown" instead of leaving stale entries in place.
		h := &Handle{unnamed: true, std: fd <= 2, Offset: -1, standIn: !pr.attached} // as above
		pr.files.set(int(fd), fdEntry{h: h})
		pr.noteEarly(earlyOp{kind: earlyInherit, fd: int(fd), line: line, e: fdEntry{h: h}})
		return h
	}
	return e.h
}

// socketUse marks the socket of ev, a socket call that succeeded, as no
// file when the trace does not name it (an fd open before the trace,
// printed without -y): a server attached with -p that sends on it,
// receives on it and closes it loses nothing in a crash, and a write
// through it is no change to a file the model cannot see (Unnamed).
func (p *Procs) socketUse(pr *Process, ev *parser.Event, row *syscalls.Row) {
	i := row.Pos(syscalls.ArgFDOther)
	if i < 0 {
		return
	}
	if h := p.FDHandle(pr, ev.Arg(i), ev.Began()); h != nil && h.Kind == HandleFile && h.Path == "" {
		h.Kind = HandlePseudo
	}
}

// Unnamed reports whether argument v of an event of process pid at line
// is an fd the trace never opened and cannot name: one inherited from
// before the trace or opened before an attach, printed without a -y
// path, or one received over a Unix socket without one (ReceivedAt). A
// change made through it reaches a file the model cannot see.
// Standard input, output and error and their dups are left out (a
// terminal, almost always, in every trace), and so is an fd a stat
// showed to be no file (Model.statUnnamed). Ask after the model resolved
// the event's paths (Options.Resolved), so that an fd first met in this
// event is in the table.
//
// The answer is provisional when the fd is a stand-in of a process whose
// clone had not returned at line (strace printed a child's first calls
// before its parent's clone returned, as a busy machine makes it do: see
// earlyOp): standIn is then that stand-in, which may turn out to be an
// fd of the parent's, a pipe or a file the trace opened; StandInBlind
// answers for it once the trace has ended.
func (p *Procs) Unnamed(pid int, v *parser.Value, line int64) (unnamed bool, standIn *Handle) {
	h := p.heldAt(pid, v, line)
	if !h.isUnnamed() {
		return false, nil
	}
	if h.standIn {
		h.asked = true
		return true, h
	}
	return true, nil
}

// isUnnamed is Unnamed's question of handle h, which may be nil.
func (h *Handle) isUnnamed() bool {
	return h != nil && h.unnamed && !h.std && h.Kind != HandlePseudo && h.Path == ""
}

// StandInBlind reports whether a change made through s, a stand-in
// Unnamed answered with, reached a file the model could not see: s
// stayed a stand-in (its clone never showed, or its parent did not hold
// the fd) and is unnamed; or it turned out to be an entry of its
// parent's (or of that one's parent, for a child of a child not yet
// attached itself) that is a file, which the model did not know at the
// time of the change, and to which it did not apply it: parentFile is
// then that file's path ("?" when the trace does not name it). A pipe, a
// socket, or the standard input, output or error the first process got
// is none.
func (p *Procs) StandInBlind(s *Handle) (blind bool, parentFile string) {
	h := p.heirs[s]
	if h == nil {
		return s.isUnnamed(), ""
	}
	for i := 0; i < len(p.heirs); i++ { // a chain of parents, no cycle
		next := p.heirs[h]
		if next == nil {
			break
		}
		h = next
	}
	switch {
	case h.Kind == HandlePseudo || h.std:
		return false, ""
	case h.isUnnamed():
		return true, ""
	case h.Path == "":
		return true, "?"
	}
	return true, h.Path
}

// Unopened reports whether argument v of an event of process pid at line
// is an fd that the trace never opened but names (-y): a file or
// directory open before the trace began (inherited, or opened before an
// attach), or opened by a call a syscall filter left out; and whether it
// was standard input, output or error then (a shell's redirection, most
// often). Pipes, sockets and the other files on no filesystem are left
// out. Ask after the model resolved the event's paths
// (Options.Resolved).
func (p *Procs) Unopened(pid int, v *parser.Value, line int64) (unopened, std bool) {
	h := p.heldAt(pid, v, line)
	if h == nil || !h.predates || h.Kind == HandlePseudo {
		return false, false
	}
	return true, h.std
}

// heldAt is the handle fd argument v of process pid stands for at line,
// as the table holds it, or nil: Unnamed's and Unopened's lookup.
func (p *Procs) heldAt(pid int, v *parser.Value, line int64) *Handle {
	fd, ok := fdNumber(v)
	if !ok || fd < 0 {
		return nil
	}
	if e, ok := p.Proc(pid).files.at(int(fd), line); ok {
		return e.h
	}
	return nil
}

// Owner returns a key that is the same for every thread of the process
// pid belongs to (those that share its fd table), and different for
// another process: rules that follow one program's reads and writes
// key by it. It is nil for a pid the model does not know (or no longer:
// it exited).
func (p *Procs) Owner(pid int) any {
	if pr := p.procs[pid]; pr != nil {
		return pr.files
	}
	return nil
}

// EachOwner calls f with the Owner key of each live process, once per
// thread: a key it is not called with belongs to processes that are gone.
func (p *Procs) EachOwner(f func(any)) {
	for _, pr := range p.procs {
		f(pr.files)
	}
}

// fdNumber is v.Int() with a quick answer for what fd arguments
// almost always are, a few decimal digits or -1 (mmap's), read without
// a copy of the text.
func fdNumber(v *parser.Value) (int64, bool) {
	if v.Kind == parser.ValNumber {
		t := v.Text
		if t == "-1" {
			return -1, true
		}
		if n := len(t); n >= 1 && n <= 6 && (t[0] != '0' || n == 1) {
			var fd int64
			for i := 0; i < n; i++ {
				c := t[i]
				if c < '0' || c > '9' {
					return v.Int()
				}
				fd = fd*10 + int64(c-'0')
			}
			return fd, true
		}
	}
	return v.Int()
}

// annoPath turns an annotation into a path; pipes and sockets keep their
// "pipe:[N]" text.
func annoPath(a string) string {
	if strings.HasPrefix(a, "/") {
		return cleanAbs(a)
	}
	return a
}

// cleanAbs is path.Clean for an absolute path, with a quick answer for
// the usual case: the kernel prints an fd's path already clean, and
// path.Clean walks and copies every byte of it to find that out. A path
// is clean when no element is empty, "." or "..", and it does not end in
// '/' (but for "/" itself).
func cleanAbs(p string) string {
	if len(p) > 1 && p[len(p)-1] != '/' && !slashSlashOrDot(p) {
		return p
	}
	return path.Clean(p)
}

// slashSlashOrDot reports whether p holds "//" or "/.", in one pass over
// p rather than one for each.
func slashSlashOrDot(p string) bool {
	for i := 0; i+1 < len(p); i++ {
		if p[i] == '/' {
			if c := p[i+1]; c == '/' || c == '.' {
				return true
			}
		}
	}
	return false
}

// kindOfAnno is the kind of file a -y annotation names, deleted when
// strace marked it "(deleted)".
func kindOfAnno(a string, deleted bool) HandleKind {
	if !strings.HasPrefix(a, "/") || isPseudoPath(a) || isAnonAnno(a, deleted) {
		return HandlePseudo
	}
	return HandleFile
}

// isAnonAnno reports whether a -y annotation names a file that is on no
// mounted filesystem, though it reads like a file in "/". The kernel
// gives such a file's /proc/PID/fd link as a path from the root of the
// internal mount it lives on, and as the file was never linked into a
// directory, it adds " (deleted)" (strace prints "(deleted)" after the
// annotation, or older ones inside it):
//
//	/memfd:NAME (deleted)      memfd_create, hugetlb ones too
//	/SYSV0000162e (deleted)    a SysV shared memory segment (shmget), by its key
//
// A dma-buf names itself "/dmabuf:NAME", with no marker. Other files of
// no filesystem strace prints without a leading "/" ("anon_inode:[...]",
// "socket:[N]", "pipe:[N]"), and /dev/shm holds real files on tmpfs. An
// fd received over a socket is known by its annotation alone: without
// this, a memfd another process sent would be taken for a file in "/".
// The names are only told apart as the kernel prints them: a path a
// program gives is a path, whatever it reads like.
func isAnonAnno(a string, deleted bool) bool {
	if len(a) < 6 || a[0] != '/' {
		return false
	}
	switch a[1] {
	case 'm':
		return deleted && strings.HasPrefix(a, "/memfd:")
	case 'S':
		return deleted && len(a) == len("/SYSV")+8 && strings.HasPrefix(a, "/SYSV") && isHex(a[len("/SYSV"):])
	case 'd':
		return strings.HasPrefix(a, "/dmabuf:")
	}
	return false
}

// isHex reports whether s is lower-case hexadecimal digits, as the
// kernel prints a SysV key.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// isPseudoPath reports paths on pseudo filesystems, never in scope.
// /dev/shm holds regular files (on tmpfs, which the scope decides).
// Android mounts a cgroup at /acct: a process joins one by writing its
// pid to /acct/uid/N/tasks, which changes nothing on disk.
func isPseudoPath(p string) bool {
	// Asked of every path an open or a stat names: the second byte turns
	// away almost all of them.
	if len(p) < 4 || p[0] != '/' {
		return false
	}
	switch p[1] {
	case 'a':
		return isOrUnder(p, "/acct")
	case 'p':
		return isOrUnder(p, "/proc")
	case 's':
		return isOrUnder(p, "/sys")
	case 'd':
		return isOrUnder(p, "/dev") && !isOrUnder(p, "/dev/shm")
	}
	return false
}

// isPseudoName reports whether p is the name strace gives a file of no
// directory, as a -y annotation prints it: "pipe:[12]", "socket:[34]",
// "TCP:[1.2.3.4:5->6.7.8.9:10]", "anon_inode:[eventfd]",
// "anon_inode:inotify". Such a name never starts with '/', so a file a
// program named "/srv/data:[1]" is a file.
func isPseudoName(p string) bool {
	if p == "" || p[0] == '/' {
		return false
	}
	return strings.HasPrefix(p, "anon_inode:") || p[len(p)-1] == ']' && strings.Contains(p, ":[")
}

// PseudoFile reports whether p names no file a crash can change: a path
// below /proc, /sys, /dev (but /dev/shm) or Android's /acct, or a pipe's,
// socket's or other such file's name as -y prints it.
func PseudoFile(p string) bool { return isPseudoPath(p) || isPseudoName(p) }

// isOrUnder reports whether p is dir or a path below it.
func isOrUnder(p, dir string) bool {
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}

// isCwdFD reports whether a dirfd argument is AT_FDCWD: by name, or as
// -X raw prints it, -100 (its value on every architecture), annotated
// with the cwd under -y ("-100</srv/app>") like the name is.
func isCwdFD(v *parser.Value) bool { return v.Text == "AT_FDCWD" || v.Text == "-100" }

// cwd returns the process's cwd, learning it from an AT_FDCWD annotation.
func (p *Procs) cwd(pr *Process, dirfd *parser.Value) string {
	if dirfd != nil && dirfd.HasAnno && (pr.fs.anno == "" || dirfd.Anno != pr.fs.anno) && isCwdFD(dirfd) {
		pr.fs.cwd, pr.fs.anno = annoPath(dirfd.Anno), dirfd.Anno
	}
	if pr.fs.cwd == "" && !pr.attached {
		return p.commonCwd()
	}
	return pr.fs.cwd
}

// commonCwd is the cwd every placed process has, or "" when they differ.
// Under -f strace can print a child's first calls before its parent's
// fork or clone returns, so the child is not yet placed in the tree. Its
// parent is blocked in that call and cannot have moved since, so when all
// placed processes share one cwd, the child has it too.
func (p *Procs) commonCwd() string {
	cwd := ""
	for _, q := range p.procs {
		if !q.attached {
			continue
		}
		if q.fs.cwd == "" || cwd != "" && q.fs.cwd != cwd {
			return ""
		}
		cwd = q.fs.cwd
	}
	return cwd
}

// atPath resolves a (dirfd, path) pair; dirfd may be nil (cwd).
func (p *Procs) atPath(pr *Process, dirfd, name *parser.Value, line int64) string {
	if !name.HasStr {
		return ""
	}
	if strings.HasPrefix(name.Str, "/") {
		// An absolute name still carries AT_FDCWD's annotation: learn the
		// cwd from it, or a later mkdir("d"), which strace prints with no
		// dirfd to annotate, stays relative (a dynamic loader's opens of
		// absolute library paths come first in every trace).
		if dirfd != nil && isCwdFD(dirfd) {
			p.cwd(pr, dirfd)
		}
		if pr.fs.root != "" {
			// Below the root a chroot set (ldconfig -r, useradd -R): a
			// root the trace placed relative to an unknown cwd leaves the
			// name relative too, which is said (blind-unknown-cwd).
			// "/.." is "/" there too: cleaned before the join.
			return p.join(pr.fs.root, cleanAbs(name.Str)[1:])
		}
		return cleanAbs(name.Str)
	}
	if dirfd == nil || isCwdFD(dirfd) {
		return p.join(p.cwd(pr, dirfd), name.Str)
	}
	h := p.FDHandle(pr, dirfd, line)
	if h == nil || h.Path == "" {
		return ""
	}
	return p.join(h.Path, name.Str)
}

// Paths returns the paths an event acts on, resolved as far as the trace
// allows: the first is the main one (the file written, the old name of a
// rename), the second the new name of a rename or link. It must be called
// before Apply for the same event.
func (p *Procs) Paths(ev *parser.Event) []string { return p.appendPaths(nil, ev) }

// sharedPaths is appendPaths, worked out once per event for all the
// models that share a memo (model.Shared): resolving an event's paths in
// each of check's models was a tenth of its time on a real trace.
func (p *Procs) sharedPaths(out []string, ev *parser.Event) []string {
	f := p.flags
	if f == &p.ownFlags {
		return p.appendPaths(out, ev)
	}
	f.at(ev)
	if !f.pathsOK {
		f.paths, f.pathsOK = p.appendPaths(f.paths[:0], ev), true
	}
	// The memo's own slice, not a copy for each model: the paths are
	// read only, and during the event only (a copy of the strings into
	// each model's array was most of the call, with a write barrier for
	// each string while the collector runs).
	return f.paths
}

// appendPaths is Paths appending to out, so that a caller replaying every
// event reuses one array.
func (p *Procs) appendPaths(out []string, ev *parser.Event) []string {
	if ev.Kind != parser.KindSyscall {
		return out
	}
	s := ev.Call.Row()
	if !s.HasFiles() {
		return out
	}
	pr := p.Proc(ev.PID)
	if i := s.FD(); i >= 0 {
		if h := p.FDHandle(pr, ev.Arg(i), ev.Began()); h != nil && h.Path != "" {
			out = append(out, h.Path)
		}
	}
	if i := s.Path(); i >= 0 {
		var d *parser.Value
		if j := s.Dirfd(); j >= 0 {
			d = ev.Arg(j)
		}
		out = append(out, p.atPath(pr, d, pathValue(ev, s, i), ev.Began()))
		if s.RetFD && out[len(out)-1] == "" && ev.RetAnno != "" {
			out[len(out)-1] = annoPath(ev.RetAnno)
		}
	}
	if i := s.Path2(); i >= 0 {
		var d *parser.Value
		if j := s.Dirfd2(); j >= 0 {
			d = ev.Arg(j)
		}
		out = append(out, p.atPath(pr, d, ev.Arg(i), ev.Began()))
	}
	return out
}

// StillOpen reports whether process pid's fd is still the one an open
// that ended at opened (its Event.Ended) made: not closed since, by
// close, close_range or an exec of an O_CLOEXEC fd, and not reused.
func (p *Procs) StillOpen(pid, fd int, opened int64) bool {
	pr, ok := p.procs[pid]
	if !ok || pr.files == nil {
		return false
	}
	e, ok := pr.files.get(fd)
	return ok && e.line == opened
}

// pathValue is argument i of ev, a path: itself, or for a socket address
// the sun_path of a Unix socket's (strace before 4.8 printed it as
// "path"). An abstract socket's name (strace prints @"name") and another
// family's address name no file: the zero Value then, which names none.
func pathValue(ev *parser.Event, s *syscalls.Row, i int) *parser.Value {
	v := ev.Arg(i)
	if s.Args[i].Kind != syscalls.ArgSockAddr {
		return v
	}
	if !unixFamily(v.Field("sa_family")) {
		return &parser.Value{}
	}
	if p := v.Field("sun_path"); p.Kind != parser.ValNone {
		return p
	}
	return v.Field("path")
}

// unixFamily reports whether a sa_family is AF_UNIX: strace 4 printed it
// AF_LOCAL, and before 4.8 AF_FILE; -X raw prints the number.
func unixFamily(v *parser.Value) bool {
	switch v.Text {
	case "AF_UNIX", "AF_LOCAL", "AF_FILE":
		return true
	}
	n, ok := v.Int()
	return ok && n == 1
}

// Apply updates processes, fd tables and cwds with a completed event and
// returns the handle of a newly opened fd (nil otherwise). Failed calls
// change nothing.
func (p *Procs) Apply(ev *parser.Event, paths []string) *Handle {
	pr := p.Proc(ev.PID)
	switch ev.Kind {
	case parser.KindExit, parser.KindKilled:
		if !pr.attached && pr.askedEarly() {
			// Gone before its clone returned: kept until then, to say
			// what the stand-ins Unnamed answered with were.
			if p.gone == nil {
				p.gone = map[int]*Process{}
			}
			p.gone[ev.PID] = pr
		}
		if p.procs[ev.PID] == pr {
			delete(p.procs, ev.PID)
		} else if p.procs[0] == pr {
			delete(p.procs, 0) // the first process, under the pid its lines gave later
		}
		p.lastProc = nil
		return nil
	case parser.KindSyscall:
	default:
		return nil
	}
	if !ev.OK() {
		// A clone's child exists even when strace lost the result; an
		// execve that "failed" with ? did replace the image.
		return nil
	}
	t := pr.files
	row := ev.Call.Row()
	if row.Socket() {
		p.socketUse(pr, ev, row)
	}
	switch row.Effect {
	case syscalls.Open:
		flags := p.openFlags(ev)
		p.forgetFlags() // never carried to another event
		h := &Handle{Flags: flags}
		if len(paths) > 0 {
			h.Path = paths[0]
		}
		if ev.RetAnno != "" {
			h.Path, h.anno = annoPath(ev.RetAnno), ev.RetAnno
		}
		h.Kind = HandleFile
		if flags&syscalls.O_DIRECTORY != 0 && flags&syscalls.O_TMPFILE != syscalls.O_TMPFILE {
			h.Kind = HandleDir
		}
		if isPseudoPath(h.Path) || isAnonAnno(ev.RetAnno, ev.RetDeleted) {
			h.Kind = HandlePseudo
		}
		pr.put(int(ev.Ret), fdEntry{h: h, cloexec: flags&syscalls.O_CLOEXEC != 0, line: ev.Ended()})
		return h
	case syscalls.Close:
		if fd, ok := ev.Arg(row.FD()).Int(); ok {
			pr.noteEarly(earlyOp{kind: earlyDel, fd: int(fd), line: ev.Began()})
			if e, ok := t.get(int(fd)); ok {
				// A close that began before the open of this entry ended
				// closed the previous holder: the kernel hands out a number
				// only once it is free. Under -f that holder may be one the
				// table never knew (an fd from before the trace). In an -ff
				// set Ended is only a bound (the opener's next call), and a
				// close in between with no holder before closed this entry,
				// after the open ended.
				if e.line <= ev.Began() || e.prevH == nil && ev.Done != 0 {
					t.del(int(fd))
				} else {
					e.prevH = nil // it closed the previous holder
					t.set(int(fd), e)
				}
			}
		}
	case syscalls.CloseRange:
		lo, _ := ev.Arg(0).Int()
		hi, _ := ev.Arg(1).Int()
		flags, _ := p.bits(ev, row.Flags(), syscalls.CloseRangeFlags)
		op := earlyOp{kind: earlyCloseRange, line: ev.Began(), e: fdEntry{cloexec: flags&syscalls.CLOSE_RANGE_CLOEXEC != 0}}
		op.fd, op.hi = int(min(max(lo, 0), 1<<31-1)), 1<<31-1
		if hi >= 0 && hi < 1<<31-1 {
			op.hi = int(hi) // ~0U is printed as 4294967295 or -1
		}
		pr.noteEarly(op)
		t.apply(&op, false)
	case syscalls.Dup:
		if h := p.FDHandle(pr, ev.Arg(row.FD()), ev.Began()); h != nil {
			cloexec := false
			if i := row.Flags(); i >= 0 {
				flags, _ := p.bits(ev, i, syscalls.OpenFlags)
				cloexec = flags&syscalls.O_CLOEXEC != 0
			}
			pr.put(int(ev.Ret), fdEntry{h: h, cloexec: cloexec, line: ev.Ended()})
		}
	case syscalls.Fcntl:
		fdArg := ev.Arg(row.FD())
		cmd, _ := p.bits(ev, row.Flags(), syscalls.FcntlCmds)
		arg := row.PosOf(syscalls.OpenFlags)
		switch cmd {
		case syscalls.F_DUPFD, syscalls.F_DUPFD_CLOEXEC:
			if h := p.FDHandle(pr, fdArg, ev.Began()); h != nil {
				pr.put(int(ev.Ret), fdEntry{h: h, cloexec: cmd == syscalls.F_DUPFD_CLOEXEC, line: ev.Ended()})
			}
		case syscalls.F_SETFD:
			if fd, ok := fdArg.Int(); ok {
				bits, _ := p.bits(ev, arg, syscalls.FDFlags)
				op := earlyOp{kind: earlyCloexec, fd: int(fd), line: ev.Began(), e: fdEntry{cloexec: bits&syscalls.FD_CLOEXEC != 0}}
				pr.noteEarly(op)
				t.apply(&op, false)
			}
		case syscalls.F_SETFL:
			if h := p.FDHandle(pr, fdArg, ev.Began()); h != nil {
				bits, _ := p.bits(ev, arg, syscalls.OpenFlags)
				h.Flags = h.Flags&^setflFlags | bits&setflFlags
			}
		}
	case syscalls.Pipe:
		arr := ev.Arg(row.Pos(syscalls.ArgFDPair))
		// pipe2's flags, or socketpair's type (SOCK_CLOEXEC); pipe has none.
		cloexec := strings.Contains(ev.Arg(1).Text, "CLOEXEC")
		for i := range arr.Elems {
			if fd, ok := arr.Elems[i].Int(); ok {
				pr.put(int(fd), fdEntry{h: &Handle{Path: arr.Elems[i].Anno, Kind: HandlePseudo}, cloexec: cloexec, line: ev.Ended()})
			}
		}
	case syscalls.Receive:
		p.receive(pr, ev, row)
	case syscalls.BPF:
		if ev.Ret <= 0 {
			break // not a command that makes an fd
		}
		fallthrough
	case syscalls.NewFD, syscalls.IOUringSetup:
		pr.put(int(ev.Ret), fdEntry{h: &Handle{Path: pseudoName(ev.RetAnno, ev.RetDeleted), Kind: HandlePseudo}, cloexec: anyArgHas(ev, "CLOEXEC"), line: ev.Ended()})
	case syscalls.Chdir:
		if len(paths) > 0 && paths[0] != "" {
			pr.fs.set(paths[0])
		}
	case syscalls.Fchdir:
		if h := p.FDHandle(pr, ev.Arg(row.FD()), ev.Began()); h != nil && h.Path != "" {
			pr.fs.set(h.Path)
		}
	case syscalls.Getcwd:
		if a := ev.Arg(row.Pos(syscalls.ArgBuf)); a.HasStr && strings.HasPrefix(a.Str, "/") {
			// getcwd answers from the process's root.
			if pr.fs.root != "" {
				pr.fs.set(p.join(pr.fs.root, a.Str[1:]))
			} else {
				pr.fs.set(path.Clean(a.Str))
			}
		}
	case syscalls.Chroot:
		// The cwd stays where it was (programs chdir("/") next).
		if len(paths) > 0 && paths[0] != "" {
			pr.fs.root = paths[0]
			if pr.fs.root == "/" {
				pr.fs.root = ""
			}
		}
	case syscalls.Fork:
		p.attachChild(pr, int(ev.Ret), ev.CloneFlags())
	case syscalls.Execve:
		op := earlyOp{kind: earlyExec, line: ev.Began()}
		pr.noteEarly(op)
		t.apply(&op, false)
	}
	if !pr.attached {
		switch row.Effect {
		case syscalls.Close, syscalls.CloseRange, syscalls.Dup, syscalls.Execve:
			pr.pruneEarly()
		}
	}
	return nil
}

// receive puts in pr's table the fds that ev, a recvmsg that succeeded,
// received in its SCM_RIGHTS control messages. Each is the sender's open
// file description, at an offset the trace cannot tell: a file, a pipe
// or a socket as its -y name says, or, printed without one, an fd the
// trace cannot name (Unnamed), which ReceivedAt tells apart from one
// open before the trace began. The fds get the lowest free numbers, so a
// number the table still holds was closed where the trace did not show.
func (p *Procs) receive(pr *Process, ev *parser.Event, row *syscalls.Row) {
	ctl := ev.Arg(row.Data()).Field("msg_control")
	if ctl.Kind != parser.ValArray {
		return
	}
	cloexec := false
	if f := ev.Arg(row.Data() + 1); strings.Contains(f.Text, "MSG_CMSG_CLOEXEC") {
		cloexec = true
	} else if n, ok := f.Int(); ok && n&msgCmsgCloexec != 0 {
		cloexec = true
	}
	for i := range ctl.Elems {
		c := &ctl.Elems[i]
		if !scmRights(c) {
			continue
		}
		fds := c.Field("cmsg_data")
		for j := range fds.Elems {
			v := &fds.Elems[j]
			fd, ok := v.Int()
			if !ok || fd < 0 {
				continue
			}
			h := &Handle{Offset: -1}
			if v.HasAnno {
				h.Path, h.anno, h.Kind = annoPath(v.Anno), v.Anno, kindOfAnno(v.Anno, v.Deleted)
				if h.Kind == HandlePseudo {
					h.Path = pseudoName(v.Anno, v.Deleted)
				}
			} else {
				h.unnamed = true
				if p.received == nil {
					p.received = map[*Handle]parser.Pos{}
				}
				p.received[h] = ev.Pos
			}
			pr.put(int(fd), fdEntry{h: h, cloexec: cloexec, line: ev.Ended()})
		}
	}
}

// pseudoName is the Path of a handle on no file whose -y name is a: the
// name itself ("pipe:[12]", "socket:[34]", which no check takes for a
// path), or none for a file of no filesystem that reads like a path in
// "/" (a memfd's "/memfd:NAME (deleted)"), which a check would take for
// a file changed outside its roots.
func pseudoName(a string, deleted bool) string {
	if isAnonAnno(a, deleted) {
		return ""
	}
	return a
}

// msgCmsgCloexec is MSG_CMSG_CLOEXEC, recvmsg's flag that makes the fds
// it receives close-on-exec, as a number (the same on every
// architecture).
const msgCmsgCloexec = 0x40000000

// scmRights reports whether c, one control message of a msghdr's
// msg_control, carries fds: SOL_SOCKET's SCM_RIGHTS, by name or, printed
// raw, as numbers (1 and 1).
func scmRights(c *parser.Value) bool {
	level, typ := c.Field("cmsg_level"), c.Field("cmsg_type")
	if typ.Text == "SCM_RIGHTS" {
		return true
	}
	l, okL := level.Int()
	t, okT := typ.Int()
	return okL && okT && l == 1 && t == 1
}

// ReceivedAt returns where the process of pid received argument v at
// line, an fd Unnamed reports, over a Unix socket (the recvmsg's
// position in the trace), and false for an fd it did not receive so (one
// open before the trace began).
func (p *Procs) ReceivedAt(pid int, v *parser.Value, line int64) (parser.Pos, bool) {
	h := p.heldAt(pid, v, line)
	if h == nil || p.received == nil {
		return parser.Pos{}, false
	}
	at, ok := p.received[h]
	return at, ok
}

// setflFlags are the flags F_SETFL changes.
const setflFlags = syscalls.O_APPEND | syscalls.O_ASYNC | syscalls.O_DIRECT | syscalls.O_NOATIME | syscalls.O_NONBLOCK

// attachChild gives a new process its parent's fd table and cwd: shared
// with CLONE_FILES / CLONE_FS, copied otherwise. A child that already made
// calls has what it did to its fds then applied on top (see earlyOp): it
// keeps what it opened itself, and an fd it only used is its parent's.
func (p *Procs) attachChild(parent *Process, pid int, flags uint64) {
	child, seen := p.procs[pid]
	if !seen {
		if g := p.gone[pid]; g != nil {
			delete(p.gone, pid)
			if !g.earlyLost {
				p.keepHeirs(parent.files.clone().replay(g.early, flags&syscalls.CLONE_FILES != 0))
			}
		}
		child = p.newProc(pid)
	}
	if child.attached {
		return
	}
	child.attached = true
	own, early, lost := child.files, child.early, child.earlyLost
	child.early, child.earlyLost = nil, false
	shared := flags&syscalls.CLONE_FILES != 0
	if shared {
		child.files = parent.files
	} else {
		child.files = parent.files.clone()
	}
	if lost {
		// Too much to replay: what the child's table held wins.
		for fd, e := range own.all {
			child.files.set(fd, e)
		}
	} else if as := child.files.replay(early, shared); len(as) > 0 {
		p.resolveStandIns(child.files, as)
		p.keepHeirs(as)
	}
	cwd, root := child.fs.cwd, child.fs.root
	if flags&syscalls.CLONE_FS != 0 {
		child.fs = parent.fs
	} else {
		child.fs = &fsInfo{cwd: parent.fs.cwd, root: parent.fs.root}
	}
	if cwd != "" {
		child.fs.set(cwd)
	}
	if root != "" {
		child.fs.root = root
	}
}

// askedEarly reports whether pr, not attached, used an fd Unnamed
// answered for with a stand-in.
func (pr *Process) askedEarly() bool {
	for _, op := range pr.early {
		if op.kind == earlyInherit && op.e.h.asked {
			return true
		}
	}
	return false
}

// keepHeirs notes, of the stand-ins a replay found to be their parent's
// entries, those Unnamed answered with (see StandInBlind); the parent's
// entry, if a stand-in itself, is then asked for too.
func (p *Procs) keepHeirs(as map[*Handle]*Handle) {
	for s, h := range as {
		if !s.asked {
			continue
		}
		if p.heirs == nil {
			p.heirs = map[*Handle]*Handle{}
		}
		p.heirs[s] = h
		h.asked = h.asked || h.standIn
	}
}

// put assigns fd in pr's table, noted while pr is not attached.
func (pr *Process) put(fd int, e fdEntry) {
	pr.files.put(fd, e)
	pr.noteEarly(earlyOp{kind: earlySet, fd: fd, line: e.line, e: e})
}

// resolveStandIns puts, in every table but t (the one just replayed),
// the parent's handle where a stand-in of as was: a child that forks
// before its own clone returned gives its children copies of its table
// with the stand-ins of the fds it inherited, and they keep them after
// it is attached. (bash's command substitution: the subshell dup2s the
// pipe its parent made onto fd 1, and a program it runs writes there;
// on a busy machine strace printed the subshell's calls, and its child's,
// before the subshell's clone returned, and the write was taken for one
// to an fd the trace never opened.) Only the stand-ins a replay found to
// be the parent's are in as, and no table but t's copies holds one.
func (p *Procs) resolveStandIns(t *fdTable, as map[*Handle]*Handle) {
	for _, q := range p.procs {
		if q.files == t {
			continue
		}
		for fd, e := range q.files.all {
			h, prev := as[e.h], as[e.prevH]
			if h == nil && prev == nil {
				continue
			}
			if h != nil {
				e.h = h
			}
			if prev != nil {
				e.prevH = prev
			}
			q.files.set(fd, e)
		}
	}
}

// replay applies to t, the table a child started with, the changes the
// child made before it was attached (see earlyOp), in order, and returns
// the stand-ins of the fds the child used without making them that were
// its parent's entries, each with the parent's handle. guarded: t is
// shared with threads that may have changed it since (CLONE_FILES), so
// an entry assigned after a change's line is not the one it meant; a
// copied table holds only entries older than any of the child's calls.
func (t *fdTable) replay(ops []earlyOp, guarded bool) map[*Handle]*Handle {
	var as map[*Handle]*Handle // a stand-in, and the handle it was
	for i := range ops {
		op := &ops[i]
		switch op.kind {
		case earlyInherit:
			s := op.e.h
			e, ok := t.get(op.fd)
			if ok && guarded && e.line > op.line {
				// Assigned since: the child used the holder before.
				if e.prevH != nil && e.prevLine <= op.line && e.prevH.takes(s) {
					as = setAs(as, s, e.prevH)
				}
				continue
			}
			if ok && e.h.takes(s) {
				as = setAs(as, s, e.h)
				continue
			}
			// Not an fd it started with (received over a socket, or the
			// table lost track), or strace names another file than the
			// table's: the stand-in, as the child's calls saw it.
			t.set(op.fd, fdEntry{h: s})
		case earlySet:
			if h := as[op.e.h]; h != nil {
				o := *op
				o.e.h = h
				t.apply(&o, guarded)
				continue
			}
			t.apply(op, guarded)
		default:
			t.apply(op, guarded)
		}
	}
	return as
}

func setAs(as map[*Handle]*Handle, s, h *Handle) map[*Handle]*Handle {
	if as == nil {
		as = map[*Handle]*Handle{}
	}
	as[s] = h
	return as
}

// apply makes a change other than earlyInherit to the table. guarded:
// leave an entry assigned after the change's line alone (see replay).
func (t *fdTable) apply(op *earlyOp, guarded bool) {
	newer := func(e fdEntry) bool { return guarded && e.line > op.line }
	switch op.kind {
	case earlySet:
		if e, ok := t.get(op.fd); ok && newer(e) {
			return
		}
		// set, not put: the child's calls come in order, and none to
		// come can mean the entry this one replaces.
		t.set(op.fd, op.e)
	case earlyDel:
		if e, ok := t.get(op.fd); ok && !newer(e) {
			t.del(op.fd)
		}
	case earlyCloexec:
		if e, ok := t.get(op.fd); ok && !newer(e) {
			e.cloexec = op.e.cloexec
			t.set(op.fd, e)
		}
	case earlyCloseRange:
		for fd, e := range t.all {
			if fd >= op.fd && fd <= op.hi && !newer(e) {
				if op.e.cloexec {
					e.cloexec = true
					t.set(fd, e)
				} else {
					t.del(fd)
				}
			}
		}
	case earlyExec:
		for fd, e := range t.all {
			if e.cloexec && !newer(e) {
				t.del(fd)
			}
		}
	}
}

// takes reports whether h, the entry a child's table started with at an
// fd, is the file the stand-in s was made for when the child used that fd
// before it was attached, and gives h what s learnt: its name under -y,
// its F_SETFL flags. s names no file (no -y), or the same file, or one h
// did not know the name of, or h's under a name it was renamed to.
func (h *Handle) takes(s *Handle) bool {
	switch {
	case s.Path == "" || s.Path == h.Path:
	case h.Path == "":
		h.Path, h.anno = s.Path, s.anno
		if h.Kind == HandleFile {
			h.Kind = s.Kind
		}
	case h.Node != nil && h.Node.HasName(s.Path):
	default:
		return false
	}
	if s.Flags&setflFlags != 0 {
		h.Flags = h.Flags&^setflFlags | s.Flags&setflFlags
	}
	return true
}

// openFlags returns the flags of an open call, wherever its form puts
// them: a flags argument (open, openat), the flags of open_how (openat2),
// or none, which is creat's O_CREAT|O_WRONLY|O_TRUNC.
func openFlags(ev *parser.Event) uint64 { return openFlagsWith(ev, nil) }

// openFlagsWith is openFlags, decoding the flags through c when it is not
// nil.
func openFlagsWith(ev *parser.Event, c *flagTexts) uint64 {
	row := ev.Call.Row()
	if row.Effect != syscalls.Open {
		return 0
	}
	i := row.Flags()
	switch {
	case i < 0:
		return syscalls.O_CREAT | syscalls.O_WRONLY | syscalls.O_TRUNC
	case row.Args[i].Kind == syscalls.ArgOpenHow:
		flags, _ := ev.Arg(i).Field("flags").Bits(syscalls.OpenFlags, ev.Arch)
		return flags
	}
	if c != nil {
		flags, _ := c.bits(ev.Arg(i), syscalls.OpenFlags, ev.Arch)
		return flags
	}
	flags, _ := ev.Bits(i, syscalls.OpenFlags)
	return flags
}

// anyArgHas reports whether an argument's text contains word (which holds
// no space, so it cannot span two arguments).
func anyArgHas(ev *parser.Event, word string) bool {
	for i := range ev.Args {
		if strings.Contains(ev.Args[i].Text, word) {
			return true
		}
	}
	return false
}
