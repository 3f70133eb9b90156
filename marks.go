package crashsim

import (
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/source"
)

// Python source lines come from the marks crashsim's shim leaves in the
// trace (source.PythonShim): a failed open of a path below
// source.MarkPrefix. A mark is an event like any other, so the check's
// own reading of the trace collects them (markTap) as it passes: no
// second read.
//
// A mark names the next call of its own thread when that call is one its
// operation makes (source.Mark.Names): the open, the rename, the fsync.
// A write note (source.Mark.Note) names the writes of its fd by its
// thread from the next one on, until another note of that fd, or a close
// of it: a file object's buffered bytes reach the kernel at a flush or a
// close, after the f.write lines that gave them.

// lineMark is a mark and the calls it names: the trace file and the line
// each call starts on, as a finding names it. A mark of one call has
// last == line; a write note covers the writes of its fd on the lines
// from line to last (other calls between them are not its).
type lineMark struct {
	file       string
	line, last int
	pid        int
	source.Mark
}

// noteKey is a thread's fd.
type noteKey struct{ pid, fd int }

// markTap passes a trace's events on and keeps the marks among them.
type markTap struct {
	parser.Stream
	pending map[int]source.Mark // pid → a mark waiting for its call
	// notes are the write notes waiting for their fd's first write;
	// noted the index in marks of each fd's note that named one.
	notes map[noteKey]source.Mark
	noted map[noteKey]int
	marks []lineMark
}

func (t *markTap) Next() (*parser.Event, error) {
	ev, err := t.Stream.Next()
	if err != nil || ev.Kind != parser.KindSyscall {
		return ev, err
	}
	// A mark is a failed call: most calls are passed on after one test.
	if ev.Errno == "" && len(t.pending) == 0 && len(t.notes) == 0 && len(t.noted) == 0 {
		return ev, nil
	}
	if m, ok := markOf(ev); ok {
		if m.Note() {
			if t.notes == nil {
				t.notes = map[noteKey]source.Mark{}
			}
			t.notes[noteKey{ev.PID, m.FD}] = m
			return ev, nil
		}
		if t.pending == nil {
			t.pending = map[int]source.Mark{}
		}
		t.pending[ev.PID] = m
		return ev, nil
	}
	if m, ok := t.pending[ev.PID]; ok {
		delete(t.pending, ev.PID)
		if m.Names(ev.Name) {
			t.marks = append(t.marks, lineMark{file: ev.Pos.File, line: ev.Pos.Line, last: ev.Pos.Line, pid: ev.PID, Mark: m})
		}
	}
	if len(t.notes) > 0 || len(t.noted) > 0 {
		t.noteCall(ev)
	}
	return ev, nil
}

// noteCall follows the write notes through a call: a write of a noted fd,
// or the fd closed or opened anew.
func (t *markTap) noteCall(ev *parser.Event) {
	var fd int64
	var ok bool
	switch ev.Name {
	case "write", "writev", "pwrite64", "pwritev", "pwritev2":
		if fd, ok = ev.Arg(0).Int(); !ok || ev.Failed() {
			return
		}
		k := noteKey{ev.PID, int(fd)}
		if m, ok := t.notes[k]; ok {
			delete(t.notes, k)
			if t.noted == nil {
				t.noted = map[noteKey]int{}
			}
			t.noted[k] = len(t.marks)
			t.marks = append(t.marks, lineMark{file: ev.Pos.File, line: ev.Pos.Line, last: ev.Pos.Line, pid: ev.PID, Mark: m})
		} else if i, ok := t.noted[k]; ok {
			t.marks[i].last = ev.Pos.Line
		}
		return
	case "close":
		fd, ok = ev.Arg(0).Int()
	case "open", "openat", "openat2", "creat":
		fd, ok = ev.Ret, ev.OK() && ev.Ret >= 0
	}
	if ok {
		k := noteKey{ev.PID, int(fd)}
		delete(t.notes, k)
		delete(t.noted, k)
	}
}

// markOf reads the mark an event is, if it is one: a failed open whose
// path (the decoded string, whatever escapes strace printed) starts with
// source.MarkPrefix.
func markOf(ev *parser.Event) (source.Mark, bool) {
	var path *parser.Value
	switch ev.Name {
	case "open":
		path = ev.Arg(0)
	case "openat", "openat2":
		path = ev.Arg(1)
	default:
		return source.Mark{}, false
	}
	if !ev.Failed() || !path.HasStr || !strings.HasPrefix(path.Str, source.MarkPrefix) {
		return source.Mark{}, false
	}
	m, err := source.ParseMark(path.Str)
	return m, err == nil
}

// markSources names the Python line of each finding, at the call where
// its fix goes (fixAt): the mark of that call when there is one (the
// os.fsync, the os.replace, the open); else, for a write, the f.write
// line a write note gives; else the line that last opened the file under
// any of its names before that call (the with open(...) whose f.write
// Python 3.11 does not show).
func markSources(findings []*check.Finding, marks []lineMark, out map[*check.Finding]source.Location) {
	type at struct {
		file string
		line int
	}
	byLine := map[at]source.Mark{}
	var notes []lineMark
	for _, m := range marks {
		if m.Note() {
			notes = append(notes, m)
			continue
		}
		byLine[at{m.file, m.line}] = m.Mark
	}
	for _, f := range findings {
		line, pid := fixAt(f)
		if m, ok := byLine[at{f.Trace, line}]; ok {
			out[f] = m.Loc
			continue
		}
		// The names the file had: its final name, and what was renamed
		// or linked onto one of them, back to the first.
		names := map[string]bool{f.Path: true}
		for i := len(marks) - 1; i >= 0; i-- {
			if m := marks[i]; m.file == f.Trace && m.From != "" && names[m.Target] {
				names[m.From] = true
			}
		}
		if loc, ok := noteAt(notes, f.Trace, line, pid, names); ok {
			out[f] = loc
			continue
		}
		for i := len(marks) - 1; i >= 0; i-- {
			if m := marks[i]; m.file == f.Trace && m.line <= line && m.Op == "open" && names[m.Target] {
				out[f] = m.Loc
				break
			}
		}
	}
}

// noteAt is the line of the write note that covers the write on line of
// trace by pid, of a file with one of names.
func noteAt(notes []lineMark, trace string, line, pid int, names map[string]bool) (source.Location, bool) {
	for i := len(notes) - 1; i >= 0; i-- {
		n := notes[i]
		if n.file == trace && n.pid == pid && n.line <= line && line <= n.last && (names[n.Target] || strings.HasPrefix(n.Target, "fd:")) {
			return n.Loc, true
		}
	}
	return source.Location{}, false
}
