package explore

import (
	"fmt"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/check"
)

// Output shown in a finding: the first lines of what the checker printed.
const (
	shownLines = 3
	shownBytes = 300
	shownAlso  = 3 // crash points named that leave the same files
)

// findings turns the failed states into checker-failed findings, in the
// order the states were built.
func (e *explorer) findings() {
	rule, ok := check.Lookup(check.CheckerFailed)
	if !ok {
		panic("explore: no rule " + check.CheckerFailed)
	}
	sort.Slice(e.states, func(i, j int) bool { return e.states[i].index < e.states[j].index })
	for _, s := range e.states {
		if !s.ran || !s.failed {
			continue
		}
		f := &check.Finding{Rule: rule, Trace: e.opt.Trace, Line: s.line, Models: []string{e.opt.Persistence.String()}, StateIndex: s.index}
		var msg strings.Builder
		if s.path == "" {
			f.Path = e.opt.Root
			msg.WriteString("the checker rejects the files as they were before the run")
		} else {
			f.Path = s.path
			f.PID, f.Seq = s.event.PID, s.event.Seq
			fmt.Fprintf(&msg, "the checker rejects a state a crash right after line %d can leave: %s %s, the other files as the program saw them",
				s.line, relOrPath(e.opt.Root, s.path), s.words)
			f.State = &check.State{Trace: e.opt.Trace, Line: s.line, Path: s.path, Outcome: string(s.ps.Outcome), Persisted: s.ps.Persisted, Words: s.words}
			f.Related = append(f.Related, check.Related{Trace: e.opt.Trace, Line: s.line, PID: s.event.PID, Syscall: s.event.Syscall, What: "the crash comes right after this"})
			for _, r := range s.lost {
				f.Related = append(f.Related, check.Related{Trace: e.opt.Trace, Line: r.Line, PID: r.PID, Syscall: r.Syscall, What: "not on disk in this state"})
			}
			if r := s.torn; r != nil {
				f.Related = append(f.Related, check.Related{Trace: e.opt.Trace, Line: r.Line, PID: r.PID, Syscall: r.Syscall, What: fmt.Sprintf("on disk only in part (%d bytes)", s.ps.TornBytes)})
			}
		}
		for i, r := range s.also {
			if i == shownAlso {
				fmt.Fprintf(&msg, "; the same files after %d more crash points", len(s.also)-shownAlso)
				break
			}
			f.Related = append(f.Related, check.Related{Trace: e.opt.Trace, Line: r.Line, PID: r.PID, Syscall: r.Syscall, What: "a crash right after this leaves the same files"})
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

// predicted names the rules of crashsim check that report a loss at the
// varied path (or another name of its file) by the crash point.
func (e *explorer) predicted(s *state) []string {
	if s.path == "" {
		return nil
	}
	names := map[string]bool{s.path: true}
	if ino := e.tl.Model().Inode(s.ps.Inode); ino != nil {
		for _, p := range ino.Paths {
			names[p] = true
		}
	}
	seen := map[string]bool{}
	var ids []string
	for _, f := range e.opt.Predict {
		if f.Rule.ID == check.CheckerFailed || !names[f.Path] || f.Line > s.line || seen[f.Rule.ID] {
			continue
		}
		seen[f.Rule.ID] = true
		ids = append(ids, f.Rule.ID)
	}
	return ids
}

// trimOutput keeps the last lines of a checker's output, on one line:
// the error comes last (a Python traceback ends with the exception).
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
		s = s[len(s)-shownBytes:]
		more = true
	}
	if more {
		s = "... " + s
	}
	return fmt.Sprintf("%q", s)
}

func relOrPath(root, p string) string {
	if rel, ok := relPath(root, p); ok {
		return rel
	}
	return p
}
