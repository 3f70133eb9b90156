package crashsim

import (
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/source"
)

// Python source lines come from the marks crashsim's shim leaves in the
// trace (source.PythonShim): a failed open of a path below
// source.MarkPrefix just before the call it names, in the same process.
// A mark is an event like any other, so the check's own reading of the
// trace collects them (markTap) as it passes: no second read.

// lineMark is a mark and the call it names: the trace file and the line
// the call starts on, as a finding names it.
type lineMark struct {
	file string
	line int
	source.Mark
}

// markTap passes a trace's events on and keeps the marks among them.
type markTap struct {
	parser.Stream
	pending map[int]source.Mark // pid → a mark waiting for its call
	marks   []lineMark
}

func (t *markTap) Next() (*parser.Event, error) {
	ev, err := t.Stream.Next()
	if err != nil || ev.Kind != parser.KindSyscall {
		return ev, err
	}
	// A mark is a failed call: most calls are passed on after one test.
	if ev.Errno == "" && len(t.pending) == 0 {
		return ev, nil
	}
	if m, ok := markOf(ev); ok {
		if t.pending == nil {
			t.pending = map[int]source.Mark{}
		}
		t.pending[ev.PID] = m
		return ev, nil
	}
	if len(t.pending) > 0 {
		if m, ok := t.pending[ev.PID]; ok {
			delete(t.pending, ev.PID)
			t.marks = append(t.marks, lineMark{file: ev.Pos.File, line: ev.Pos.Line, Mark: m})
		}
	}
	return ev, nil
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

// markSources names the Python line of each finding: the mark on the
// finding's own call (a rename, an open, a remove) when there is one, else
// the line that last opened the file under any of its names before the
// finding's call (the with open(...) of a write that was never synced).
func markSources(findings []*check.Finding, marks []lineMark, out map[*check.Finding]source.Location) {
	type at struct {
		file string
		line int
	}
	byLine := map[at]source.Mark{}
	for _, m := range marks {
		byLine[at{m.file, m.line}] = m.Mark
	}
	for _, f := range findings {
		if m, ok := byLine[at{f.Trace, f.Line}]; ok {
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
		for i := len(marks) - 1; i >= 0; i-- {
			if m := marks[i]; m.file == f.Trace && m.line <= f.Line && m.Op == "open" && names[m.Target] {
				out[f] = m.Loc
				break
			}
		}
	}
}
