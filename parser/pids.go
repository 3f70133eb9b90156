package parser

import (
	"bytes"
	"strconv"

	"github.com/crashsim/crashsim/internal/syscalls"
)

// An strace -f writing to its stderr (no -o) prints a line's pid only
// while it traces more than one process: the command's lines come without
// one until its first child is attached, then as "[pid N] ...", and any
// process left alone later loses its prefix again. pidTrack gives each
// line the process it belongs to, so that a call started on a line without
// a pid and resumed on one with it is one call, and the model sees one
// process, not two.
//
// The command's own lines keep pid 0 (the trace never says its number
// before it is prefixed); once its number shows, lines with that number
// are given 0 too. Its number is known when a prefixed line resumes the
// call a line without a pid left unfinished, or when a pid neither
// announced by "Process N attached" nor returned by a fork is seen in a
// trace that announces its children, or (with -q, which announces none)
// after the command's own fork returned while no fork is under way: a
// pid that is new while one is may be a child whose fork has not
// returned yet, and is left as it is.
//
// Several strace -p sessions appended to one file (strace -A -o FILE -p N,
// run again) have no pid column either, each tracing one process: once
// the command's process has exited with no line ever prefixed, a
// "Process N attached" starts the next session, and the lines without a
// pid after it are process N's (session), not the command's.
type pidTrack struct {
	prefixed  bool         // a line had a pid
	main      bool         // lines without a pid came first: pid 0 is the command
	mainDone  bool         // ... and it has exited
	mainPID   int          // the command's number, once known (0: not yet)
	announced bool         // the trace says "Process N attached"
	children  map[int]bool // pids announced or returned by a fork
	seen      map[int]bool // pids seen on prefixed lines
	live      map[int]bool // processes with prefixed lines, until their exit
	last      int          // the last pid seen, to skip the maps on runs
	// hot holds pids seen and live (not the command's number), by their
	// low bits: a line of one of them needs neither map, as a trace
	// switches between a few processes line by line.
	hot [8]int
	// mainForked: a fork of the command returned on a line without a
	// pid. strace prefixes lines once it traces a second process, the
	// command's child: a pid then new, neither a child nor born of a
	// fork still under way, is the command's own.
	mainForked bool
	// session is the process a later strace -p session attached to
	// after the command had exited, in a trace without a pid column,
	// which its lines without a pid belong to (0: none); sessionDone is
	// set once it has exited.
	session     int
	sessionDone bool
}

// placePID sets the pid of a parsed line of a trace that is not one file
// of an -ff set.
func (r *Reader) placePID(ev *Event, kind lineKind) {
	t := &r.pids
	if ev.PID == 0 {
		switch {
		case !t.prefixed:
			t.main = true
			ev.PID = t.session
		case len(t.live) == 1:
			for p := range t.live {
				ev.PID = p
			}
		}
	} else {
		if t.seen == nil {
			t.seen, t.live = map[int]bool{}, map[int]bool{}
			if t.main && !t.mainDone {
				t.live[0] = true
			}
			if t.session != 0 && !t.sessionDone {
				t.live[t.session] = true
			}
		}
		t.prefixed = true
		if t.mainPID != 0 && ev.PID == t.mainPID {
			ev.PID = 0
		} else if ev.PID != t.last && t.hot[ev.PID&7] != ev.PID && !t.seen[ev.PID] {
			t.seen[ev.PID] = true
			if t.main && !t.mainDone && t.mainPID == 0 && !t.children[ev.PID] && (t.announced || r.resumesMain(ev, kind) || t.mainForked && !r.forkPending()) {
				t.mainPID, ev.PID = ev.PID, 0
			}
		}
		if ev.PID != t.last && t.hot[ev.PID&7] != ev.PID {
			t.live[ev.PID] = true
			if ev.PID != 0 {
				t.hot[ev.PID&7] = ev.PID
			}
		}
	}
	t.last = ev.PID
	switch kind {
	case lineExit, lineKilled:
		t.exited(ev.PID)
	case lineCall, lineResumed:
		if ev.Call.Effect() == syscalls.Fork && ev.RetKnown && ev.Ret > 0 {
			t.child(int(ev.Ret))
			if ev.PID == 0 {
				t.mainForked = true
			}
		}
	}
}

// exited notes that process pid (0: the command) has ended.
func (t *pidTrack) exited(pid int) {
	if t.live != nil {
		delete(t.live, pid)
	}
	if t.hot[pid&7] == pid {
		t.hot[pid&7] = 0
	}
	if pid == 0 {
		t.mainDone = true
	}
	if pid == t.session {
		t.sessionDone = true
	}
	t.last = -1
}

// resumesMain reports whether a prefixed line resumes the call that a line
// without a pid left unfinished: the command's, now with its number.
func (r *Reader) resumesMain(ev *Event, kind lineKind) bool {
	if kind != lineResumed || r.pending[ev.PID] != nil {
		return false
	}
	start := r.pending[0]
	return start != nil && start.Name == ev.Name
}

// forkPending reports whether a call that makes a process is unfinished
// in some process: its child can show before it returns, under a pid no
// fork has returned yet.
func (r *Reader) forkPending() bool {
	for _, ev := range r.pending {
		if ev != nil && ev.Call.Effect() == syscalls.Fork {
			return true
		}
	}
	return false
}

func (t *pidTrack) child(pid int) {
	if t.children == nil {
		t.children = map[int]bool{}
	}
	t.children[pid] = true
}

// noteDiag reads "Process N attached" in a diagnostic line.
func (t *pidTrack) noteDiag(text []byte) {
	text = bytes.TrimPrefix(text, []byte("strace: "))
	rest, ok := bytes.CutPrefix(text, []byte("Process "))
	if !ok {
		return
	}
	num, what, ok := bytes.Cut(rest, []byte(" "))
	if !ok || !bytes.HasPrefix(what, []byte("attached")) {
		return
	}
	if n, err := strconv.Atoi(string(num)); err == nil && n > 0 {
		t.announced = true
		t.child(n)
		if t.main && t.mainDone && !t.prefixed && (t.session == 0 || t.sessionDone) {
			// No process is traced any more: strace -p again (-A).
			t.session, t.sessionDone = n, false
		}
	}
}

// owner is the process a line with this pid (0: none) is likely to
// belong to, as placePID would place it, for the argument count of a
// resumed call before the line is placed.
func (t *pidTrack) owner(pid int) int {
	switch {
	case pid == 0 && t.prefixed && len(t.live) == 1:
		for p := range t.live {
			return p
		}
	case pid == 0 && !t.prefixed:
		return t.session
	case pid != 0 && (pid == t.mainPID || t.main && !t.mainDone && t.mainPID == 0 && !t.children[pid]):
		return 0
	}
	return pid
}

// firstLine is what placePID learns from a line the quick path passed
// (Reader.step) before it is known whether the trace starts with the
// command's bare lines or with prefixed ones: a pid prefix is digits and a
// space (a time has '.' or ':' after its digits).
func (t *pidTrack) firstLine(b []byte) {
	k := 0
	for k < len(b) && isDigit(b[k]) {
		k++
	}
	if k > 0 && k < len(b) && b[k] == ' ' {
		t.prefixed = true
	} else {
		t.main = true
	}
}
