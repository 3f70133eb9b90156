package explore

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
)

// Output shown in a finding: the first lines of what the checker printed.
const (
	shownLines = 3
	shownBytes = 300
	shownDiffs = 4 // paths named in a finding's message
	shownLost  = 6 // operations not on disk named in a finding
)

// findings turns the failed states into checker-failed findings, in the
// order their trees were first built.
func (e *explorer) findings() {
	rule, ok := check.Lookup(check.CheckerFailed)
	if !ok {
		panic("explore: no rule " + check.CheckerFailed)
	}
	sort.SliceStable(e.states, func(i, j int) bool { return e.states[i].index < e.states[j].index })
	for _, s := range e.states {
		if !s.ran || !s.failed {
			continue
		}
		e.blameSeen(s)
		f := &check.Finding{Rule: rule, Trace: e.opt.Trace, Line: s.line, Models: []string{e.opt.Persistence.String()}, StateIndex: s.index}
		if s.event != nil {
			f.PID, f.Seq = s.event.PID, s.event.Seq
			f.Trace = e.traceOf(*s.event)
		}
		// at names an event's line as the message says it: with its file
		// when that is not the finding's (another file of a -ff set).
		at := func(r model.Ref) string {
			if t := e.traceOf(r); t != f.Trace {
				return t + ":" + strconv.Itoa(r.Line)
			}
			return "line " + strconv.Itoa(r.Line)
		}
		var msg strings.Builder
		switch {
		case s.line == 0:
			f.Path = e.opt.Root
			msg.WriteString("the checker rejects the files as they were before the run")
		case len(s.diffs) == 0:
			f.Path = e.opt.Root
			fmt.Fprintf(&msg, "the checker rejects a state a crash right after line %d can leave: every file as the program saw it", s.line)
		default:
			d := s.diffs[s.primary]
			f.Path = d.path
			fmt.Fprintf(&msg, "the checker rejects a state a crash right after line %d can leave: ", s.line)
			// The other paths the state changes, said once for the
			// message ("a empty, b missing") and once for the state's
			// words, which name the whole joint state: a rejected state
			// is one of several in its problem, where only they tell it
			// from the others ("empty (...), with b missing").
			var others strings.Builder
			rest := append(append([]diff(nil), s.diffs[:s.primary]...), s.diffs[s.primary+1:]...)
			for i, o := range rest {
				if i+1 == shownDiffs {
					fmt.Fprintf(&others, ", and %d more paths", len(rest)+1-shownDiffs)
					break
				}
				if i > 0 {
					others.WriteString(", ")
				}
				fmt.Fprintf(&others, "%s %s", relOrPath(e.opt.Root, o.path), o.words)
			}
			fmt.Fprintf(&msg, "%s %s", relOrPath(e.opt.Root, d.path), d.words)
			words := d.words
			if others.Len() > 0 {
				msg.WriteString(", " + others.String())
				words += ", with " + others.String()
			}
			msg.WriteString("; the other files as the program saw them")
			f.State = &check.State{Trace: f.Trace, Line: s.line, Path: d.path, Outcome: string(d.ps.Outcome), Persisted: d.ps.Persisted, Words: words}
		}
		if s.event != nil && s.line > 0 {
			f.Related = append(f.Related, check.Related{Trace: f.Trace, Line: s.event.Line, PID: s.event.PID, Syscall: s.event.Syscall, What: "the crash comes right after this"})
		}
		for i, l := range s.lost {
			if i == shownLost {
				fmt.Fprintf(&msg, "; %d more operations not on disk", len(s.lost)-shownLost)
				break
			}
			what := "not on disk in this state"
			switch {
			case l.Bytes > 0:
				what = fmt.Sprintf("on disk only in part (%d bytes)", l.Bytes)
			case l.SizeOnly:
				what = "only the size it gave the file on disk"
			}
			f.Related = append(f.Related, check.Related{Trace: e.traceOf(l.Event), Line: l.Event.Line, PID: l.Event.PID, Syscall: l.Event.Syscall, What: what})
		}
		if t := s.tree; t != nil && s.line > 0 {
			switch {
			case t.firstPoint == 0:
				msg.WriteString("; the same files as before the run")
				if t.points > 1 {
					fmt.Fprintf(&msg, ", and at %d crash points since", t.points-1)
				}
			case s.event != nil && t.first.Seq < s.event.Seq:
				f.Related = append(f.Related, check.Related{Trace: e.traceOf(t.first), Line: t.first.Line, PID: t.first.PID, Syscall: t.first.Syscall,
					What: "a crash right after this leaves the same files first"})
				if t.points > 2 {
					fmt.Fprintf(&msg, "; the same files at %d crash points from %s on", t.points, at(t.first))
				}
			}
		}
		fmt.Fprintf(&msg, " (%s", s.why)
		if out := trimOutput(s.output); out != "" {
			fmt.Fprintf(&msg, ": %s", out)
		}
		msg.WriteString(")")
		if ids := e.predicted(s); len(ids) > 0 {
			fmt.Fprintf(&msg, "; predicted by %s", strings.Join(ids, ", "))
		}
		f.Message = msg.String()
		e.res.Findings = append(e.res.Findings, f)
	}
}

// blameSeen adds to a rejected state's differences each file it holds as
// the program saw it empty (state.seen) where a finding of check foresaw
// it empty by the crash: right after a truncation to rewrite the file in
// place, the program's own view is the loss. It becomes the path the
// finding is about unless check foresaw what the state's primary path
// holds. The rejected state of Vim's save with backupcopy=yes right after
// its ftruncate, f.txt empty and the backup f.txt~ not yet on disk, was
// filed under f.txt~, the one path that differed, with no rule to
// predict it, beside truncate-in-place's problem at f.txt.
func (e *explorer) blameSeen(s *state) {
	var blamed []diff
	for _, d := range s.seen {
		if len(e.predicted(&state{line: s.line, event: s.event, diffs: []diff{d}})) > 0 {
			blamed = append(blamed, d)
		}
	}
	if len(blamed) == 0 {
		return
	}
	if len(s.diffs) > 0 && s.primary >= 0 && len(e.predicted(&state{line: s.line, event: s.event, diffs: []diff{s.diffs[s.primary]}})) > 0 {
		s.diffs = append(s.diffs, blamed...)
		return
	}
	s.diffs = append(blamed, s.diffs...)
	s.primary = 0
}

// predicted names the rules of crashsim check whose findings foresaw
// state s. A finding foresees it when what the finding says a crash can
// leave (its crash state: a path and an outcome, such as missing, empty,
// torn or zeros) is what s holds at that path, or at another name of its
// file, and the finding's window has begun by s's crash point (begun). A
// finding about the same file that foresees another outcome (the name
// missing, where s holds a torn record) does not. Where s changes several
// files, each rule is named with the file its finding is about.
func (e *explorer) predicted(s *state) []string {
	if len(s.diffs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var ids []string
	primary := ""
	if s.primary >= 0 && s.primary < len(s.diffs) {
		primary = s.diffs[s.primary].path
	}
	// The findings about the state's primary file first: the file its
	// problem goes by.
	for _, first := range []bool{true, false} {
		for _, f := range e.opt.Predict {
			if f.Rule.ID == check.CheckerFailed || f.State == nil || (f.Path == primary) != first || !foresees(s, f) {
				continue
			}
			id := f.Rule.ID
			if len(s.diffs) > 1 {
				// A state that changes several files: which one the
				// finding foresaw, for the checker may have failed on
				// another ("predicted by" a finding about a log file,
				// where the file it needs is the one missing). Each
				// file's, then: not only the first file's of a rule.
				id += " on " + relOrPath(e.opt.Root, f.Path)
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) > maxPredicted {
		ids = append(ids[:maxPredicted:maxPredicted], fmt.Sprintf("and %d more", len(ids)-maxPredicted))
	}
	return ids
}

// maxPredicted is how many findings "predicted by" names; past it, how
// many more it does not.
const maxPredicted = 6

// foresees reports whether state s holds, at the path of check's finding
// f (the one its crash state names, or its last name) or, for an outcome
// of the file's data, at another name of that file, an outcome f says a crash can leave there (its crash
// state's, or one of those its message names: State.Outcomes), with f's
// window for that outcome begun by s's crash point.
func foresees(s *state, f *check.Finding) bool {
	st := f.State
	for _, d := range s.diffs {
		if string(d.ps.Outcome) != st.Outcome && !slices.Contains(st.Outcomes, d.ps.Outcome) {
			continue
		}
		// Data outcomes go with the file, under any of its names; a
		// name missing is about that name only: "f.txt~ missing" is
		// not the "f.txt missing" of the file's other name.
		at := d.path == st.Path || d.path == f.Path
		if !at && d.ps.Outcome != model.Missing {
			at = slices.Contains(d.paths, st.Path) || slices.Contains(d.paths, f.Path)
		}
		if at {
			if begun(f, s, d.ps.Outcome) {
				return true
			}
		}
	}
	return false
}

// begun reports whether the window in which check's finding f says a
// crash can leave outcome o has begun by state s's crash point. It has
// once the finding's own event completed, no later than the crash
// (compared by the order events complete, Seq, which holds across the
// files of an -ff set). Before that, only for what a call f names already
// put at risk: the data of a write not yet durable, which a later rename
// or directory fsync exposes (the file empty, zeros, torn, an older
// version), when that call came by the crash (by its line, in the crash's
// own file only, where line numbers compare). A name missing is what the
// finding's own call does (the unlink, the rename away, the create whose
// directory is not synced): a state from before that call, which holds a
// name missing for another reason, was not foreseen by it. remove-before-
// sync names the read of the file it removes long before the unlink, and
// took the credit for every state from the read on.
func begun(f *check.Finding, s *state, o model.Outcome) bool {
	if s.event == nil {
		return f.Line <= s.line
	}
	if f.Seq <= s.event.Seq {
		return true
	}
	if o == model.Missing {
		return false
	}
	for _, r := range f.Related {
		if r.Trace == s.event.File && r.Line <= s.line {
			return true
		}
	}
	return false
}

// traceOf is the trace file of event r: its own in a -ff set, the trace
// explore was given otherwise.
func (e *explorer) traceOf(r model.Ref) string {
	if r.File != "" {
		return r.File
	}
	return e.opt.Trace
}

// trimOutput keeps the last lines of a checker's output, on one line,
// between quotes: the error comes last (a Python traceback ends with the
// exception). It is not escaped here: every renderer escapes what it
// prints (text: textesc; JSON and SARIF: their own), once.
func trimOutput(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	more := len(lines) > shownLines
	if more {
		lines = lines[len(lines)-shownLines:]
	}
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	s := strings.Join(lines, " / ")
	if len(s) > shownBytes {
		s = strings.ToValidUTF8(s[len(s)-shownBytes:], "")
		more = true
	}
	if more {
		s = "... " + s
	}
	return `"` + s + `"`
}

func relOrPath(root, p string) string {
	if rel, ok := relPath(root, p); ok {
		return rel
	}
	return p
}
