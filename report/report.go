package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/report/wire"
)

// Options shape the output.
type Options struct {
	Color     bool     // ANSI colour (only when writing to a terminal)
	Models    []string // the models reported, for the summary line
	AllModels int      // how many models crashsim evaluated; a finding under fewer says which

	// SrcRoot is the directory source files are named relative to in
	// text and JSON (where crashsim runs); a finding's Source names its
	// call site. Repo is the repository's top directory, SARIF's
	// %SRCROOT%, which code scanning resolves against the checkout: the
	// files SARIF names are named relative to it (SrcRoot when "").
	// Roots are the directories traced paths are named relative to in
	// fingerprints, first match wins.
	SrcRoot string
	Repo    string
	Roots   []string

	// Tool is crashsim's version, for reports that carry it.
	Tool wire.Tool
	// ExitCode is the status crashsim exits with, for SARIF's invocation.
	ExitCode int
	// Counts of findings left out of the report, for the summary.
	Left wire.Left
	// Shard is "I/N" for the report of one shard of explore --shard, so
	// that Merge can check it has every shard of one run; "" otherwise.
	Shard string
	// Explore says what crashsim explore built and checked; nil for the
	// other commands.
	Explore *wire.Explore
}

const (
	bold   = "\x1b[1m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

// Text writes one line per finding, "TRACE:LINE: RULE: PATH: message",
// then the events that explain it, indented, then a summary.
func Text(w io.Writer, res *check.Result, opt Options) error {
	paint := func(code, s string) string {
		if !opt.Color {
			return s
		}
		return code + s + reset
	}
	err := each(res, func(f *check.Finding) error {
		sev := cyan
		switch f.Rule.Severity {
		case check.Error:
			sev = red
		case check.Warning:
			sev = yellow
		}
		// Every string from the trace (paths, and messages and
		// descriptions that quote them) is escaped: one finding, one line.
		where := fmt.Sprintf("%s:%d", textesc.Escape(f.Trace), f.Line)
		loc := f.Source
		if loc != nil {
			where = fmt.Sprintf("%s:%d", textesc.Escape(opt.relSource(loc.File)), loc.Line)
		}
		fmt.Fprintf(w, "%s: %s: %s: %s\n", paint(bold, where), paint(sev, f.Rule.ID), textesc.Escape(f.Path), textesc.Escape(f.Message))
		if loc != nil {
			fmt.Fprintf(w, "    %s %-10s in %s\n", paint(dim, fmt.Sprintf("%s:%d", textesc.Escape(f.Trace), f.Line)), "call", textesc.Escape(loc.Function))
		}
		for _, r := range f.Related {
			fmt.Fprintf(w, "    %s %-10s %s\n", paint(dim, fmt.Sprintf("%s:%d", textesc.Escape(r.Trace), r.Line)), textesc.Escape(r.Syscall), textesc.Escape(r.What))
		}
		if s := f.State; s != nil {
			fmt.Fprintf(w, "    state: a crash right after line %d can leave %s %s\n", s.Line, textesc.Escape(s.Path), textesc.Escape(s.Describe()))
		}
		if len(f.Models) > 0 && len(f.Models) < opt.AllModels {
			fmt.Fprintf(w, "    only under the %s model\n", strings.Join(f.Models, ", "))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "%s: %s\n", paint(cyan, "note"), n.Message)
	}
	s := res.Summary
	blind := ""
	if n := len(res.Warnings); n > 0 {
		blind = ", " + count(n, "blind spot", "blind spots")
		if a := accepted(res.Warnings); a > 0 {
			blind += fmt.Sprintf(" (%d accepted)", a)
		}
	}
	fmt.Fprintf(w, "%s: %s in scope, %s, %s, %s%s (%d events, model %s)%s\n",
		paint(bold, "crashsim"), count(s.Files, "file", "files"), count(s.Errors, "error", "errors"),
		count(s.Warnings, "warning", "warnings"), count(s.Infos, "info", "infos"), blind, s.Events, strings.Join(opt.Models, ", "), leftWords(opt.Left))
	return nil
}

func accepted(ws []check.BlindWarning) int {
	n := 0
	for _, w := range ws {
		if w.Accepted {
			n++
		}
	}
	return n
}

// BlindSpots writes a trace's blind spots for a person, one
// "TRACE:LINE: warning: ID: message" line each and the fix below it; an
// accepted one is a single note line. crashsim writes them on stderr in
// every output format.
func BlindSpots(w io.Writer, ws []check.BlindWarning) {
	for _, b := range ws {
		at := b.Trace
		if b.Line > 0 {
			at = fmt.Sprintf("%s:%d", b.Trace, b.Line)
		}
		if b.Accepted {
			fmt.Fprintf(w, "%s: note: accepted blind spot %s: %s\n", at, b.ID, b.Message)
			continue
		}
		fmt.Fprintf(w, "%s: warning: %s: %s\n    fix: %s; or accept it with --accept-blind %s\n", at, b.ID, b.Message, b.Fix, b.ID)
	}
}

// leftWords says what was left out, for the summary line; "" when
// nothing.
func leftWords(l wire.Left) string {
	var parts []string
	if l.Ignored > 0 {
		parts = append(parts, fmt.Sprintf("%d ignored", l.Ignored))
	}
	if l.Suppressed > 0 {
		parts = append(parts, fmt.Sprintf("%d suppressed", l.Suppressed))
	}
	if l.Baseline > 0 {
		parts = append(parts, fmt.Sprintf("%d in the baseline", l.Baseline))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; not reported: " + strings.Join(parts, ", ")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// JSON writes the report as one wire.Report, the findings encoded one
// at a time as they are written: the report is never whole in memory.
func JSON(w io.Writer, res *check.Result, opt Options) error {
	sum := wire.Summary{
		Counts: wire.Counts{Events: res.Summary.Events, Files: res.Summary.Files,
			Errors: res.Summary.Errors, WarningFindings: res.Summary.Warnings, Infos: res.Summary.Infos},
		Models: opt.Models, Left: opt.Left, Warnings: wireWarnings(res.Warnings), Notes: wireNotes(res.Notes), Shard: opt.Shard,
		Explore: opt.Explore,
	}
	if sum.Models == nil {
		sum.Models = []string{}
	}
	out := wire.NewReportWriter(w, wire.Version, opt.tool())
	var fj wire.Finding
	var st wire.State
	err := each(res, func(f *check.Finding) error {
		opt.finding(f, &fj, &st)
		return out.Finding(&fj)
	})
	if err != nil {
		return err
	}
	return out.Close(&sum)
}

// each calls f with the findings in the order a report lists them:
// grouped by call site when stacks named them (such findings are in
// memory; see Finding.Source), else as the result holds them, read back
// one at a time when they were spilled.
func each(res *check.Result, f func(*check.Finding) error) error {
	if res.Spilled() {
		for x, err := range res.Findings() {
			if err != nil {
				return err
			}
			if err := f(x); err != nil {
				return err
			}
		}
		return nil
	}
	fs, _ := res.List() // in memory: no error
	for _, x := range group(fs) {
		if err := f(x); err != nil {
			return err
		}
	}
	return nil
}

// finding fills fj with f as a report writes it; st holds its state.
func (o Options) finding(f *check.Finding, fj *wire.Finding, st *wire.State) {
	*fj = wire.Finding{
		Rule: f.Rule.ID, Severity: f.Rule.Severity.String(), Path: f.Path, Trace: f.Trace,
		Line: f.Line, PID: f.PID, Message: f.Message, Models: f.Models, Related: related(f.Related, fj.Related[:0]),
		Fingerprint: Fingerprint(f, o), RelPath: o.RelPath(f.Path), StateIndex: f.StateIndex,
	}
	if s := f.State; s != nil {
		*st = wire.State{Line: s.Line, Path: s.Path, Outcome: s.Outcome, Persisted: s.Persisted, Words: s.Words}
		fj.State = st
	}
	if loc := f.Source; loc != nil {
		fj.Source = &wire.Source{File: o.relSource(loc.File), Line: loc.Line, Function: loc.Function}
	}
}

// related appends the events that explain a finding to buf: an array,
// empty when there are none.
func related(rs []check.Related, buf []wire.Related) []wire.Related {
	if buf == nil {
		buf = make([]wire.Related, 0, len(rs))
	}
	for _, r := range rs {
		buf = append(buf, wire.Related{Line: r.Line, PID: r.PID, Syscall: r.Syscall, What: r.What})
	}
	return buf
}

// wireWarnings are blind spots as reports write them: an array, empty
// when there are none.
func wireWarnings(ws []check.BlindWarning) []wire.Warning {
	out := make([]wire.Warning, 0, len(ws))
	for _, b := range ws {
		out = append(out, wire.Warning{ID: b.ID, Message: b.Message, Trace: b.Trace, Line: b.Line, Fix: b.Fix, Accepted: b.Accepted})
	}
	return out
}

// wireNotes are notes as reports write them: an array, empty when there
// are none.
func wireNotes(ns []check.Note) []wire.Note {
	out := make([]wire.Note, 0, len(ns))
	for _, n := range ns {
		out = append(out, wire.Note{ID: n.ID, Message: n.Message, Trace: n.Trace, Line: n.Line})
	}
	return out
}

// tool is opt.Tool with its name filled in.
func (o Options) tool() wire.Tool {
	t := o.Tool
	if t.Name == "" {
		t.Name = "crashsim"
	}
	if t.Version == "" {
		t.Version = "(devel)"
	}
	if t.SemVer == "" {
		t.SemVer = "0.0.0-devel"
	}
	return t
}
