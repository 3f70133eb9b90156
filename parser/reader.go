package parser

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/internal/textesc"
)

// Options tune a Reader.
type Options struct {
	// Warn receives problems that do not stop reading: a last line cut
	// short, a resumed call whose start is missing. Nil discards them.
	Warn func(pos Pos, msg string)
	// Diag receives strace's own "strace: ..." lines. Nil discards them.
	Diag func(pos Pos, text string)
	// DecodeArgs, when set, says which calls need their arguments: the
	// others come with Args nil, their name, process, times, return value
	// and returned fd's annotation read as usual, and their arguments only
	// scanned past, which costs a fraction of decoding them. Nil decodes
	// every call's arguments.
	DecodeArgs func(name string) bool
	// DecodePositions, when set, says which argument positions of each
	// call to decode, and takes the place of DecodeArgs. A position left
	// out is scanned past as the full decoding would read it (so the
	// positions after it keep their numbers) and comes as a Value of kind
	// ValSkipped; positions left out after the last one kept are not in
	// Args at all (Arg returns a ValNone Value for them). An empty set
	// skips the whole call, as DecodeArgs false does.
	DecodePositions func(name string) ArgSet
	// DecodeNone decodes no call's arguments, as a DecodePositions that
	// gives no position of any call would, and takes the place of both:
	// for a caller that only counts events. It lets Reader.Skip pass the
	// lines of whole calls without building their events.
	DecodeNone bool
	// Arch is the architecture the trace was recorded on, when the caller
	// knows it (crashsim trace writes it in the listing; --arch). Unknown
	// lets the trace tell (syscalls.Evidence: calls only some
	// architectures have, personality lines); every event carries the
	// answer in Event.Arch.
	Arch Arch
	// MaxLine bounds one physical line in bytes (DefaultMaxLine when 0).
	// It is enforced while the line is read, so it bounds memory too.
	MaxLine int
	// Recycle lets a Pipeline reuse the memory of the events it has
	// handed out, for a caller that keeps none: with it, an Event and
	// everything reached from it (Args, each Value's Elems and Extra,
	// the Event's Extra and Stack) is valid only until the next call to
	// the Pipeline's Next, which may overwrite it with a later event.
	// Strings are never reused: a caller may keep any string it read
	// (Name, Value.Text, Pos.File...). Without a Pipeline it changes
	// nothing: a Reader or an -ff set read directly allocates as usual.
	Recycle bool

	// anyDay leaves the files of an -ff set stamped with times of day
	// each on the day of its own first line, unread before the merge
	// (placeDays): for ProbeTrace, which reads a set's first events
	// only, for what they show, not their order.
	anyDay bool

	// pool is where the Readers of a recycling Pipeline's stream take
	// their events from (see eventPool), set by Pipeline.
	pool *eventPool
}

// Stream yields events in trace order. Next returns io.EOF at the end and
// an *Error for a line it cannot read.
type Stream interface {
	Next() (*Event, error)
	Close() error
}

// Reader parses one trace file line by line, joining split calls.
type Reader struct {
	name string
	c    io.Closer
	br   *bufio.Reader
	opt  Options

	off   int64 // file offset of the next line
	line  int   // number of the last line read
	long  longLine
	lines int // non-blank lines seen
	calls int // lines that were calls, signals or exits

	sniffed bool
	hold    *Event // a call with "= ?" whose stack may follow its exit line
	// unsure are the pids whose last call ended with "= ?" and was handed
	// out before their exit line came: that call's -k stack follows the
	// exit line, and is skipped there.
	unsure map[int]bool
	// pids places lines without a pid (see pidTrack).
	pids pidTrack
	// cut is the call the line just read left unfinished, for a rest
	// printed on the next line with no pid (see continuation).
	cut     *Event
	summary bool         // inside an strace -c/-C summary table
	table   summaryTable // its columns (see summaryLine)
	// old names the first shape only an strace before 5.x prints, and
	// where, for the hint an unreadable line gets.
	old     string
	oldLine int

	lp lineParser
	// evidence is what the trace showed of its architecture so far;
	// members of an -ff set share one.
	evidence *syscalls.Evidence
	pending  map[int]*Event // unfinished calls by pid
	// forking are the fork, vfork, clone and clone3 calls under way (left
	// unfinished and not yet resumed), by pid, each with its flags: while
	// there are some, every call another process begins is stamped with
	// them (EventExtra.Spawner).
	forking map[int]forkFlags
	// handoff is, in a reader of an -ff set's member, the set's own
	// (ffSet.handoff): a thread's execve started in its file ("<pid
	// changed to L ...>") by the pid L it took, until L's file resumes it.
	handoff map[int]*Event
	// cuts are what the pending calls left open, by the same pids (see
	// openCut and noteCut); bracketCuts counts those inside brackets, and
	// freeCuts are openCuts to fill again.
	cuts        map[int]*openCut
	bracketCuts int
	freeCuts    []*openCut
	ready       []*Event // events completed, from ready[head]
	head        int
	seq         int
	eof         bool

	tf       timeFormat
	relTotal int64 // -r: running sum of deltas
	lastTime int64 // -t/-tt: to notice midnight
	dayOff   int64

	// pid is the process id for lines without one: set for a member of an
	// -ff set (from its .PID suffix), 0 otherwise.
	pid int

	// slab is where the next events are carved from (see newEvent), and
	// free holds events Skip passed, which no one else can hold, for
	// newEvent to hand out again.
	slab []Event
	free []*Event
	// quick is set when Skip may pass a whole call's line without an
	// Event (Options.DecodeNone); skipped takes a passed line's -k frames.
	quick   bool
	skipped Event
}

// eventSlab is how many Events one allocation holds. An Event carved from
// a slab is never reused once handed out, so a consumer may keep any; one
// it keeps holds its slab's memory (about 15 KB) alive. (A recycling
// Pipeline's events come from its eventPool instead.)
const eventSlab = 64

// newEvent returns a fresh Event for the line being read: from a
// recycling Pipeline's pool, with lp.mem its memory, or else carved from a
// slab, which costs one allocation per eventSlab lines instead of one per
// line.
func (r *Reader) newEvent() *Event {
	if p := r.opt.pool; p != nil {
		ev, m := p.get()
		ev.PID, ev.Dur = r.pid, -1
		r.lp.mem = m
		return ev
	}
	if n := len(r.free); n > 0 {
		ev := r.free[n-1]
		r.free = r.free[:n-1]
		*ev = Event{PID: r.pid, Dur: -1}
		return ev
	}
	if len(r.slab) == 0 {
		r.slab = make([]Event, eventSlab)
	}
	ev := &r.slab[0]
	r.slab = r.slab[1:]
	ev.PID, ev.Dur = r.pid, -1
	return ev
}

// drop gives back an event no one has seen or will see: in a recycling
// Pipeline, to the pool; otherwise to free when reuse is asked for.
func (r *Reader) drop(ev *Event, reuse bool) {
	if p := r.opt.pool; p != nil {
		p.put(ev)
	} else if reuse {
		r.free = append(r.free, ev)
	}
}

// clearEvent empties ev for the line to be parsed again. In a recycling
// Pipeline it keeps its memory (lineParser.mem), and the Values it had
// carved stay carved, as an event saved before may still point at them:
// the memory is reset only when the event is reused.
func (r *Reader) clearEvent(ev *Event) {
	*ev = Event{PID: r.pid, Dur: -1}
}

// NewReader reads a trace from r. name is the file name used in positions
// and data references; DataReader re-opens it to decode written bytes.
func NewReader(r io.Reader, name string, opt Options) *Reader {
	return newReaderSize(r, name, opt, readBlock)
}

func newReaderSize(r io.Reader, name string, opt Options, size int) *Reader {
	rd := &Reader{
		name:    name,
		br:      bufio.NewReaderSize(r, size),
		opt:     opt,
		pending: map[int]*Event{},
	}
	if c, ok := r.(io.Closer); ok {
		rd.c = c
	}
	rd.lp.file = name
	rd.evidence = new(syscalls.Evidence)
	rd.lp.decode = opt.DecodePositions
	if opt.DecodeNone {
		rd.lp.decode = func(string) ArgSet { return 0 }
		rd.quick = true
	}
	if rd.lp.decode == nil && opt.DecodeArgs != nil {
		keep := opt.DecodeArgs
		rd.lp.decode = func(name string) ArgSet {
			if keep(name) {
				return AllArgs
			}
			return 0
		}
	}
	rd.lp.names = map[string]string{}
	rd.lp.pool = opt.pool
	rd.lp.resumeArgs = func(pid int, name string) (int, *openCut) {
		if ev := rd.pending[pid]; ev != nil && ev.Name == name {
			return len(ev.Args), rd.liveCut(pid)
		}
		if rd.pid == 0 {
			p := rd.pids.owner(pid)
			if ev := rd.pending[p]; ev != nil && ev.Name == name {
				return len(ev.Args), rd.liveCut(p)
			}
		}
		return -1, nil
	}
	return rd
}

// Close closes the underlying file when the Reader opened it, and lets go
// of the memory of the last long line.
func (r *Reader) Close() error {
	r.long.free()
	if r.c != nil {
		return r.c.Close()
	}
	return nil
}

// Next returns the next completed event.
func (r *Reader) Next() (*Event, error) { return r.next(false) }

// Skip passes the next completed event as Next would return it, without
// returning it: for a caller that only counts events. It reads every
// line, gives every error and warning Next gives, and returns io.EOF at
// the end. With Options.DecodeNone, the line of a whole call of the usual
// shape is passed without building an Event at all (quickCall); the events
// of other lines are built and then reused.
func (r *Reader) Skip() error {
	_, err := r.next(true)
	return err
}

// next is Next, or Skip when skip is set (it returns a nil event then).
func (r *Reader) next(skip bool) (*Event, error) {
	for {
		// A call that never returned ("exit_group(0) = ?") is held back
		// for one line: strace prints its -k stack after the exit line.
		if r.head < len(r.ready) && (r.hold == nil || r.ready[r.head] != r.hold || r.eof) {
			ev := r.ready[r.head]
			r.ready[r.head] = nil
			r.head++
			if r.head == len(r.ready) {
				// Reuse the queue's room: slicing past the front would
				// make each append allocate.
				r.ready, r.head = r.ready[:0], 0
			}
			ev.Seq = r.seq
			r.seq++
			if ev.Overlap < 0 {
				// Parked at the start: -1 - the events completed then.
				ev.Overlap = ev.Seq - (-1 - ev.Overlap)
			}
			ev.Arch = r.opt.Arch
			if ev.Arch == syscalls.Unknown {
				ev.Arch = r.evidence.Arch()
			}
			if skip {
				// No one saw it and nothing points at it any more.
				r.drop(ev, true)
				return nil, nil
			}
			return ev, nil
		}
		if r.eof {
			if len(r.pending) > 0 {
				r.flushPending(-1, r.line)
				continue
			}
			if r.lines == 0 {
				return nil, &Error{Pos: Pos{File: r.name, Line: max(r.line, 1)}, Msg: "the trace is empty: no strace output in it"}
			}
			return nil, io.EOF
		}
		passed, err := r.step(skip && r.quick && r.hold == nil)
		if err != nil {
			return nil, err
		}
		if passed {
			r.seq++
			return nil, nil
		}
	}
}

// step reads one line (or a line and its continuation) and queues what it
// completes. With quick set it may instead pass a line that holds one
// whole call, queueing nothing, and report passed: only when the queue is
// empty and no call is held, so that nothing comes out of order.
func (r *Reader) step(quick bool) (passed bool, err error) {
	if !r.sniffed {
		r.sniffed = true
		if err := r.sniff(); err != nil {
			return false, err
		}
	}
	held := r.hold
	r.hold = nil
	cut := r.cut
	r.cut = nil
	text, off, nl, err := r.readLine()
	if err == io.EOF {
		r.eof = true
		return false, nil
	}
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return false, pe
		}
		return false, fmt.Errorf("read %s: %w", textesc.Escape(r.name), err)
	}
	r.line++
	if k := bytes.IndexByte(text, 0); k >= 0 {
		return false, &Error{Pos: Pos{File: r.name, Line: r.line, Col: k + 1}, Msg: "NUL byte in the line: this is not an strace text log (a binary file?)"}
	}
	if r.line <= foreignLines {
		if err := r.foreignLine(text); err != nil {
			return false, err
		}
	}
	// The last line of a trace without its newline is read in full
	// (lineParser.mayskip), a summary table by summaryLine, and a line
	// right after one a call was cut short on by stepLine, value by value
	// (lineParser.scan): the quick lane scans as skipArgs does.
	if quick && held == nil && cut == nil && nl && !r.summary {
		r.lp.ev, r.lp.mem = &r.skipped, nil
		if ok, resumed, pid, name := r.lp.quickCall(text); ok {
			if resumed {
				if pid < 0 {
					pid = r.pid
				}
				start := r.pending[pid]
				if start == nil || start.Name != string(name) || r.mayJoin() {
					// Warned of in full by stepLine, or read joined
					// to what its first half left open there.
					return false, r.stepLine(held, cut, text, off, nl)
				}
				delete(r.pending, pid)
				r.forkDone(pid)
				r.dropCut(pid)
				r.drop(start, true)
			}
			if r.pid == 0 && !r.pids.main && !r.pids.prefixed {
				r.pids.firstLine(text)
			}
			r.lines++
			r.calls++
			r.skipped.Extra = nil
			return true, r.readStack(&r.skipped)
		}
	}
	return false, r.stepLine(held, cut, text, off, nl)
}

// stepLine is step for the line text just read; prev is the call the line
// before left unfinished, if it did (see continuation).
func (r *Reader) stepLine(held, prev *Event, text []byte, off int64, nl bool) error {
	if skip, err := r.summaryLine(text); skip || err != nil {
		return err
	}
	if !isBlank(text) {
		r.lines++
	}
	if hasPrefix(text, stackMark) {
		r.warn(Pos{File: r.name, Line: r.line, Col: 1}, "a stack line (strace -k) that follows no completed call: ignored")
		return nil
	}
	startLine := r.line
	ev := r.newEvent()
	lp := &r.lp
	lp.line, lp.off, lp.text, lp.ev = startLine, off, text, ev
	lp.splitAt = len(text) + 1
	// Passing a call's arguments whole (skipArgs) reads them as the full
	// reading does only where the full reading accepts them: it is no
	// validator. A line the full reading rejects may yet be the rest of
	// the call the line before cut short (continuation), so right after
	// such a line the arguments are read value by value, which rejects
	// what the full reading rejects, and every reading takes the line the
	// same way.
	lp.mayskip, lp.scan = nl, prev == nil
	kind, tf, perr := lp.parse()
	for perr != nil && lp.eolErr {
		// A diagnostic ("strace: Process 6 attached", or the bare "Process
		// 6 attached" of strace 4.x) printed into the middle of a line cut
		// it in two: take the message out and join the rest with the next
		// line.
		cut := diagCut(text)
		if cut <= 0 || !nl {
			break
		}
		r.diag(Pos{File: r.name, Line: r.line, Col: cut + 1}, text[cut:])
		if !hasPrefix(text[cut:], "strace: ") {
			r.sawOld("a \"Process N attached\" message inside a line", r.line)
		}
		// text lies in the reader's buffer, which a look at the next
		// line may move.
		text = append([]byte(nil), text...)
		if r.nextStartsLine() {
			// strace 5 and later go on with the next call and never
			// print the rest of this one: it is left unfinished, as by
			// "<unfinished ...>", its result unknown. Joined to the next
			// line it took that call's place (an fsync lost).
			cutShort := append(append([]byte(nil), text[:cut]...), " "+unfinishedText...)
			r.clearEvent(ev)
			lp.text = cutShort
			lp.splitAt = len(cutShort) + 1
			lp.mayskip, lp.scan = nl, prev == nil
			if kind, tf, perr = lp.parse(); perr == nil {
				text = cutShort
				break
			}
			r.clearEvent(ev)
			lp.text, lp.splitAt = text, len(text)+1
		}
		joined := append([]byte(nil), text[:cut]...)
		next, off2, nl2, err := r.readLine()
		if err != nil {
			break
		}
		r.line++
		joined = append(joined, next...)
		text, nl = joined, nl2
		r.clearEvent(ev)
		lp.text = text
		lp.splitAt, lp.off2 = cut, off2
		lp.mayskip, lp.scan = nl, prev == nil
		kind, tf, perr = lp.parse()
	}
	if perr != nil && prev != nil && !lp.eolErr {
		if k, tf2, ok := r.continuation(prev, ev, text, off, nl); ok {
			kind, tf, perr = k, tf2, nil
		}
	}
	if lp.old != "" {
		r.sawOld(lp.old, startLine)
		lp.old = ""
	}
	if lp.unbalanced {
		lp.unbalanced = false
		if perr == nil {
			r.warn(Pos{File: r.name, Line: startLine, Col: ev.Pos.Col}, "the arguments of "+ev.Name+" do not read (strace printed a bracket it never closed, as some strace 4.x builds do), but its result does: read without its arguments, which crashsim does not need for this call")
		}
	}
	if perr != nil {
		// The last line of a trace whose recording was stopped (strace -p
		// interrupted, a killed strace) ends inside a call, with or
		// without its newline.
		// A line copied along with the trace is refused with its hint,
		// wherever it stands.
		if (!nl || lp.eolErr && r.atEOF()) && pastedHint(text) == "" {
			r.warn(Pos{File: r.name, Line: r.line, Col: perr.Pos.Col}, "the last line is cut short (the trace was still being written, or strace was stopped?): ignored: "+perr.Msg)
			r.eof = true
			r.drop(ev, false)
			return nil
		}
		return r.explain(perr)
	}
	if kind == lineDiag {
		if lp.unreadable {
			lp.unreadable = false
			r.warn(Pos{File: r.name, Line: startLine, Col: 1}, "strace could not read this call of a process going away (\"????\"): what it did, if anything, is not in the trace")
		}
		r.drop(ev, false)
		if lp.mode != nil {
			r.evidence.Personality(string(lp.mode))
			lp.mode = nil
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			r.diag(Pos{File: r.name, Line: startLine, Col: 1}, t)
		}
		return nil
	}
	if r.pid == 0 {
		r.placePID(ev, kind)
	}
	r.calls++
	if ev.Call != 0 {
		r.evidence.Call(ev.Call)
	}
	ev.Pos = Pos{File: r.name, Line: startLine, Col: ev.Pos.Col}
	ev.EndLine = r.line
	r.setTime(ev, tf)
	var done *Event // the event this line completed, which a -k stack follows
	switch kind {
	case lineSuperseded:
		// A thread other than the leader called execve: the kernel gave
		// it the leader's pid, so the call it started ("N execve(...
		// <unfinished ...>") ends under that pid ("<... execve
		// resumed>"), after this line.
		if n := ev.FormerPID(); n != 0 && n != ev.PID {
			r.takeOver(ev.PID, n)
		}
		r.ready = append(r.ready, ev)
		done = ev
	case lineCall, lineSignal:
		if kind == lineCall {
			r.spawnerOf(ev)
		}
		r.ready = append(r.ready, ev)
		done = ev
	case lineExit, lineKilled:
		return r.exited(held, ev)
	case lineUnfinished:
		if l, ok := r.handedOff(text); ok && l != ev.PID {
			// A thread's execve in an -ff set: the kernel gave the thread
			// the leader's pid, and the call ends in the leader's file
			// ("+++ superseded by execve in pid N +++", then "<... execve
			// resumed>"), which joins this start there.
			r.handoff[l] = detach(ev)
			r.drop(ev, false)
			return nil
		}
		if old := r.pending[ev.PID]; old != nil {
			r.warn(ev.Pos, fmt.Sprintf("%s started before %s (line %d) finished: the earlier call is taken as never returning", ev.Name, old.Name, old.Pos.Line))
			old.EndLine = r.line
			r.ready = append(r.ready, old)
		}
		r.pending[ev.PID] = ev
		r.spawnerOf(ev)
		r.noteForking(ev)
		// The events completed before the call began, numbered or
		// waiting in ready: Overlap counts from there when it is
		// numbered (next).
		ev.Overlap = -1 - (r.seq + len(r.ready) - r.head)
		r.noteCut(ev.PID)
		r.cut = ev
		if status, ok := exitedInside(text); ok {
			// strace 4.x: "<unfinished ... exit status N>", the process
			// exited inside the call. The call never returns, and the
			// process's exit follows on the same line, as "+++ exited
			// with N +++" would say it.
			r.cut = nil
			return r.exited(held, r.exitAt(ev, status))
		}
	case lineResumed:
		start := r.pending[ev.PID]
		if h := r.handoffOf(start, ev); h != nil {
			// The start another member's file handed over: the joined
			// call is this file's, at this line, with the start's
			// arguments and time.
			delete(r.handoff, ev.PID)
			if h.PID != ev.PID {
				r.lp.extra(h).FormerPID = h.PID
			}
			h.PID, h.Pos = ev.PID, ev.Pos
			start = h
			r.pending[ev.PID] = h
		}
		if start == nil || start.Name != ev.Name {
			if n := r.execveOfThread(ev); n != 0 {
				// A thread's execve, with the "+++ superseded by
				// execve in pid N +++" line between its halves left
				// out (strace -qqq, or -e quiet=thread-execve): read
				// as if it were there.
				r.takeOver(ev.PID, n)
				start = r.pending[ev.PID]
			}
		}
		if j := lp.joined; j != nil && (start == nil || start.Name != ev.Name || r.liveCut(ev.PID) != j) {
			return joinedElsewhere(ev, j)
		}
		if start == nil || start.Name != ev.Name {
			r.warn(ev.Pos, fmt.Sprintf("%s resumed but its start is not in the trace: only the resumed half is known", ev.Name))
			r.ready = append(r.ready, ev)
			done = ev
			break
		}
		delete(r.pending, ev.PID)
		r.forkDone(ev.PID)
		r.dropCut(ev.PID)
		if j := lp.joined; j != nil {
			// The resumed half's first argument is the one the first
			// half left open, read again whole from the joined text.
			start.Args = start.Args[:min(j.arg, len(start.Args))]
		}
		if m := r.opt.pool.memOf(start); m != nil && r.lp.mem != nil {
			// The resumed half's Values (and their Elems, in its own
			// memory) join the start's: the half is reused with it.
			start.Args = m.join(start.Args, ev.Args)
			m.joined = ev
		} else {
			start.Args = append(start.Args, ev.Args...)
		}
		// The places an unfinished half kept for its arguments that no
		// position asked for are left out after the last one decoded, as
		// for a call on one line: none at all for a call skipped whole.
		args := start.Args
		for len(args) > 0 && args[len(args)-1].Kind == ValSkipped {
			args = args[:len(args)-1]
		}
		if len(args) < len(start.Args) || lp.joined != nil && len(args) == 0 {
			// (Joined, none at all only for a call skipped whole.)
			if len(args) == 0 {
				args = nil
			}
			start.Args = args
		}
		start.EndLine = r.line
		start.Ret, start.RetKnown, start.Errno = ev.Ret, ev.RetKnown, ev.Errno
		start.RetAnno, start.RetDeleted, start.Injected = ev.RetAnno, ev.RetDeleted, ev.Injected
		if x := ev.RetExtra(); x != "" || start.RetExtra() != "" {
			r.lp.extra(start).RetExtra = x
		}
		start.Dur = ev.Dur
		r.ready = append(r.ready, start)
		done = start
	}
	if done != nil {
		nameIovecs(done)
		if done.Kind == KindSyscall && !done.RetKnown {
			r.hold = done
			if r.unsure == nil {
				r.unsure = map[int]bool{}
			}
			r.unsure[done.PID] = true
		}
		return r.readStack(done)
	}
	return nil
}

// takeOver moves the call thread left unfinished, its execve, to the
// process's leader: the kernel gave the thread the leader's pid, and the
// call ends under it ("<... execve resumed>"). The leader's own call,
// when strace had printed its start, never ends in the trace: execve
// killed the leader thread (it has no exit line), and its pid is the
// caller's from here on.
func (r *Reader) takeOver(leader, thread int) {
	start := r.pending[thread]
	if start == nil {
		return
	}
	r.flushPending(leader, r.line)
	r.forkDone(leader)
	delete(r.pending, thread)
	r.forkDone(thread)
	start.PID = leader
	r.lp.extra(start).FormerPID = thread
	r.pending[leader] = start
	if c := r.liveCut(thread); c != nil && r.liveCut(leader) == nil {
		// What the call left open moves with it.
		delete(r.cuts, thread)
		r.cuts[leader] = c
	}
}

// execveOfThread returns the thread whose execve ev, the resumed half of
// an execve whose start its own pid has not left unfinished, ends: the
// one other pid inside an execve of that name, when the call succeeded.
// Only a thread's execve moves to another pid (the leader's), and strace
// prints the start of a call it traces, so a successful execve resumed
// with no start of its own is that thread's. Two threads inside execve
// at once, neither of them shown to have ended, are left as they are: it
// cannot be told which one the kernel let through. 0 when there is none.
func (r *Reader) execveOfThread(ev *Event) int {
	if ev.Call == 0 || ev.Call.Row().Effect != syscalls.Execve || !ev.RetKnown || ev.Failed() {
		return 0
	}
	thread := 0
	for pid, start := range r.pending {
		if pid == ev.PID || pid == 0 || start.Name != ev.Name {
			continue
		}
		if thread != 0 {
			return 0
		}
		thread = pid
	}
	return thread
}

// exited queues ev, a process's exit (or death by a signal), after the
// calls the process left unfinished, which never return. held is the call
// the line before completed, if its -k stack may still follow.
func (r *Reader) exited(held, ev *Event) error {
	r.forkDone(ev.PID)
	left := r.flushPending(ev.PID, r.line)
	r.ready = append(r.ready, ev)
	unsure := r.unsure[ev.PID]
	delete(r.unsure, ev.PID)
	if held != nil && held.PID == ev.PID {
		return r.readStack(held)
	}
	if left != nil {
		// The process exited inside a call it had started: another
		// thread's exit_group ended it ("PID exit_group(0
		// <unfinished ...>" then "PID +++ exited"). strace takes the
		// stack of exit, exit_group and execve as the call starts and
		// prints it when it forgets the process, after the exit line.
		return r.readStack(left)
	}
	if unsure {
		// Another process's line came between the call and this
		// exit line, so the call has gone out without its stack.
		var gone Event
		return r.readStack(&gone)
	}
	return nil
}

// exitAt returns the exit with status that the line of call, cut short by
// "<unfinished ... exit status N>", also stands for: an event of its own,
// at the same line and time, for the same process.
func (r *Reader) exitAt(call *Event, status int) *Event {
	ev := r.newEvent()
	ev.Kind, ev.PID, ev.Pos, ev.EndLine = KindExit, call.PID, call.Pos, call.EndLine
	ev.Time, ev.HasTime = call.Time, call.HasTime
	if status != 0 {
		r.lp.extra(ev).Status = status
	}
	if r.pid == 0 {
		r.pids.exited(ev.PID)
	}
	return ev
}

// handedOff returns the pid an unfinished line's call went to ("<pid
// changed to L ...>"), for a member of an -ff set only: a single trace
// joins the halves in its own pending calls.
func (r *Reader) handedOff(text []byte) (int, bool) {
	if r.handoff == nil {
		return 0, false
	}
	return pidChangedTo(text)
}

// handoffOf returns the start of ev, a resumed execve, that another
// member of the set handed over, when its own file has none.
func (r *Reader) handoffOf(start, ev *Event) *Event {
	if start != nil || r.handoff == nil {
		return nil
	}
	if h := r.handoff[ev.PID]; h != nil && h.Name == ev.Name {
		return h
	}
	return nil
}

// continuation reads a line that is not strace output on its own as the
// rest of the call the line before left unfinished. strace 6 filtering by
// status (-z, -Z, -e status=) prints a call another process's line cut in
// two as "PID name(args <unfinished ...>" and, on the very next line, the
// rest with no pid, no time and no "<... name resumed>":
//
//	21952 read(3,  <unfinished ...>
//	"", 4096)                               = 0
//
// The line is parsed as "PID <... name resumed>" and the rest, its bytes
// mapped to where they are in the file. It reports false, with ev as it
// was, when even so the line does not parse: the caller reports the
// line's first error.
func (r *Reader) continuation(cut, ev *Event, text []byte, off int64, nl bool) (lineKind, timeFormat, bool) {
	if r.pending[cut.PID] != cut || resumedInside(text) {
		return 0, 0, false
	}
	saved, savedLP := *ev, r.lp
	prefix := fmt.Appendf(nil, "%d <... %s resumed>", cut.PID, cut.Name)
	joined := append(prefix, text...)
	lp := &r.lp
	r.clearEvent(ev)
	lp.text, lp.ev = joined, ev
	lp.off, lp.splitAt, lp.off2 = off, len(prefix), off
	lp.mayskip, lp.scan = nl, false // value by value, as stepLine reads a line after a cut
	kind, tf, err := lp.parse()
	if err != nil || kind != lineResumed || ev.PID != cut.PID {
		*ev, r.lp = saved, savedLP
		return 0, 0, false
	}
	return kind, tf, true
}

// resumedInside reports whether text holds a resumed half of its own,
// "<... NAME resumed>", outside a quoted string: strace's next line after
// the program's output ("hello [pid 3] <... write resumed>) = 5", the
// program and strace writing to one terminal), which is no continuation
// of the call cut short, but a line of another call.
func resumedInside(text []byte) bool {
	quoted := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == '<' && !quoted && hasPrefix(text[i:], "<... "):
			j := i + len("<... ")
			for j < len(text) && isNameByte(text[j]) {
				j++
			}
			if j > i+len("<... ") && hasPrefix(text[j:], " resumed>") {
				return true
			}
		}
	}
	return false
}

// nextStartsLine reports whether the next line starts as strace starts
// one of its own: "[pid N] ", a pid or a time, a signal, an exit or a
// resumed half (another message is taken out as this one was). The rest of a line a message cut in two
// (strace 4.x) starts with what followed where it was cut: a comma, a
// value.
func (r *Reader) nextStartsLine() bool {
	b, _ := r.br.Peek(32)
	if k := bytes.IndexByte(b, '\n'); k >= 0 {
		b = b[:k]
	}
	switch {
	case hasPrefix(b, "[pid "), hasPrefix(b, "--- "), hasPrefix(b, "+++ "), hasPrefix(b, "<... "):
		return true
	}
	k := 0
	for k < len(b) && isDigit(b[k]) {
		k++
	}
	return k > 0 && k < len(b) && (b[k] == ' ' || b[k] == '.' || b[k] == ':')
}

// atEOF reports whether nothing but blank lines follows: the line just
// read is the last of the trace.
func (r *Reader) atEOF() bool {
	for n := 1; ; n++ {
		b, err := r.br.Peek(n)
		if len(b) < n {
			return err != nil
		}
		switch b[n-1] {
		case '\n', ' ', '\r', '\t':
			if n >= 4096 {
				return false
			}
			continue
		}
		return false
	}
}

func (r *Reader) diag(pos Pos, text []byte) {
	r.pids.noteDiag(text)
	if r.opt.Diag != nil {
		r.opt.Diag(pos, string(text))
	}
}

// sawOld remembers the first shape of an old strace, for the hint that an
// unreadable line gets.
func (r *Reader) sawOld(what string, line int) {
	if r.old == "" {
		r.old, r.oldLine = what, line
	}
}

// flushPending completes unfinished calls that will never resume: those of
// pid (all when pid < 0), in the order they started. It returns the last.
func (r *Reader) flushPending(pid, line int) *Event {
	var evs []*Event
	for p, ev := range r.pending {
		if pid < 0 || p == pid {
			evs = append(evs, ev)
			delete(r.pending, p)
			r.dropCut(p)
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].Pos.Line < evs[j].Pos.Line })
	for _, ev := range evs {
		ev.EndLine = line
		ev.RetKnown = false
		r.ready = append(r.ready, ev)
	}
	if len(evs) == 0 {
		return nil
	}
	return evs[len(evs)-1]
}

func (r *Reader) setTime(ev *Event, tf timeFormat) {
	if tf == timeUnknown {
		return
	}
	if r.tf == timeUnknown {
		r.tf = tf
	}
	switch tf {
	case timeRelative:
		r.relTotal += ev.Time
		ev.Time = r.relTotal
	case timeClock:
		t := ev.Time + r.dayOff
		if t < r.lastTime-12*int64(time.Hour) {
			r.dayOff += 24 * int64(time.Hour)
			t += 24 * int64(time.Hour)
		}
		r.lastTime = t
		ev.Time = t
	}
}

func (r *Reader) warn(pos Pos, msg string) {
	if r.opt.Warn != nil {
		r.opt.Warn(pos, msg)
	}
}

// OpenFile opens one trace file: a regular file, or a pipe the shell made
// (/dev/stdin); a device, a named pipe or a file of /proc is refused
// before it is read (inputfile), as /dev/zero would be read for ever.
func OpenFile(path string, opt Options) (*Reader, error) {
	return openFile(path, opt, inputfile.Named)
}

// openFile opens a trace file that reached crashsim as o says: a regular
// file, or a pipe when it was named (inputfile).
func openFile(path string, opt Options, o inputfile.Origin) (*Reader, error) {
	f, err := inputfile.Open(path, o)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	// A small file needs no full-size buffer (the fuzzers open thousands).
	size := int(min(max(fi.Size()+1, 2*sniffSize), readBlock))
	return newReaderSize(f, path, opt, size), nil
}

// noteForking notes ev, a call left unfinished, among the calls that make
// a process under way when it is one (see Reader.forking), and forgets
// an earlier one of its process that it stands in place of.
func (r *Reader) noteForking(ev *Event) {
	r.forkDone(ev.PID)
	if ev.Call == 0 || ev.Call.Row().Effect != syscalls.Fork {
		return
	}
	flags, ok := ev.cloneFlags(r.arch())
	if r.forking == nil {
		r.forking = map[int]forkFlags{}
	}
	r.forking[ev.PID] = forkFlags{flags, ok}
}

// forkFlags are the clone flags of a call that makes a process, and
// whether the line shows them (or this reading decoded them).
type forkFlags struct {
	flags uint64
	known bool
}

// forkDone forgets the call of process pid that makes a process, if one
// is under way.
func (r *Reader) forkDone(pid int) {
	if len(r.forking) > 0 {
		delete(r.forking, pid)
	}
}

// spawnerOf stamps ev, a call beginning, with the calls that make a
// process under way in other processes, when their flags read and are
// the same (see EventExtra.Spawner).
func (r *Reader) spawnerOf(ev *Event) {
	if len(r.forking) == 0 {
		return
	}
	first, flags := 0, uint64(0)
	for pid, f := range r.forking {
		// (Pid 0: lines without one, a process whose pid is not known;
		// ev's own: it is inside no call.)
		if pid == ev.PID || pid == 0 || !f.known || first != 0 && f.flags != flags {
			return
		}
		if first == 0 || pid < first {
			first = pid
		}
		flags = f.flags
	}
	x := r.lp.extra(ev)
	x.Spawner, x.SpawnFlags = first, flags
	if len(r.forking) > 1 {
		for pid := range r.forking {
			if pid != first {
				x.SpawnAlso = append(x.SpawnAlso, pid)
			}
		}
		slices.Sort(x.SpawnAlso)
	}
}

// arch is the architecture the trace is read as so far.
func (r *Reader) arch() syscalls.Arch {
	if r.opt.Arch != syscalls.Unknown {
		return r.opt.Arch
	}
	return r.evidence.Arch()
}
