package crashsim

import (
	"slices"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/syscalls"
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
	// names holds one copy of each operation, file and function name:
	// a loop leaves the same few in thousands of marks.
	names map[string]string
}

// intern is s, in one copy for the whole trace.
func (t *markTap) intern(s string) string {
	if c, ok := t.names[s]; ok {
		return c
	}
	if t.names == nil {
		t.names = map[string]string{}
	}
	t.names[s] = s
	return s
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
		m.Op, m.Loc.File, m.Loc.Function = t.intern(m.Op), t.intern(m.Loc.File), t.intern(m.Loc.Function)
		if strings.HasPrefix(m.Target, "fd:") && !m.Note() {
			m.Target = "" // an fd's number names nothing once the call is found
		}
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
	row := ev.Call.Row()
	switch row.Effect {
	case syscalls.WriteFD, syscalls.WriteAt:
		if fd, ok = ev.Arg(row.FD()).Int(); !ok || ev.Failed() {
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
	case syscalls.Close:
		fd, ok = ev.Arg(row.FD()).Int()
	case syscalls.Open:
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
	row := ev.Call.Row()
	if row.Effect != syscalls.Open {
		return source.Mark{}, false
	}
	path := ev.Arg(row.Path())
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
// Python 3.11 does not show). marks are in trace order in each file.
func markSources(findings []*check.Finding, marks []lineMark) {
	type at struct {
		file string
		line int
	}
	type named struct{ file, path string }
	byLine := map[at]source.Mark{}
	opens := map[named][]lineMark{}
	notes := map[named][]lineMark{}
	renames := map[string][]lineMark{} // renames and links, by trace file
	for _, m := range marks {
		switch {
		case m.Note():
			k := named{m.file, m.Target}
			if strings.HasPrefix(m.Target, "fd:") {
				k.path = "fd:"
			}
			notes[k] = append(notes[k], m)
			continue
		case m.Op == "open":
			opens[named{m.file, m.Target}] = append(opens[named{m.file, m.Target}], m)
		case m.From != "":
			renames[m.file] = append(renames[m.file], m)
		}
		byLine[at{m.file, m.line}] = m.Mark
	}
	for _, f := range findings {
		line, pid := fixAt(f)
		if m, ok := byLine[at{f.Trace, line}]; ok {
			f.Source = locOf(m.Loc)
			continue
		}
		// The names the file had: its final name, and what was renamed
		// or linked onto one of them, back to the first.
		names := []string{f.Path}
		rs := renames[f.Trace]
		for i := len(rs) - 1; i >= 0; i-- {
			if slices.Contains(names, rs[i].Target) && !slices.Contains(names, rs[i].From) {
				names = append(names, rs[i].From)
			}
		}
		// A write note of the file's fd by the writing thread that
		// covers the write; one that could not name its file ("fd:N")
		// when no other does.
		var note *lineMark
		for _, p := range append(names, "fd:") {
			for _, n := range notes[named{f.Trace, p}] {
				if n.line <= line && line <= n.last && n.pid == pid {
					note = &n
				}
			}
			if note != nil {
				break
			}
		}
		if note != nil {
			f.Source = locOf(note.Loc)
			continue
		}
		// The last open of one of its names before the call.
		best := -1
		for _, p := range names {
			ms := opens[named{f.Trace, p}]
			k := sort.Search(len(ms), func(i int) bool { return ms[i].line > line })
			if k > 0 && ms[k-1].line > best {
				best = ms[k-1].line
				f.Source = locOf(ms[k-1].Loc)
			}
		}
	}
}

// locOf is a finding's Source, a copy of loc.
func locOf(loc source.Location) *source.Location { return &loc }
