package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/source"
)

// Options shape the output.
type Options struct {
	Color     bool     // ANSI colour (only when writing to a terminal)
	Models    []string // the models reported, for the summary line
	AllModels int      // how many models crashsim evaluated; a finding under fewer says which

	// Sources are the call sites in the program's own code, for findings
	// whose trace had stacks (crashsim trace --stack).
	Sources map[*check.Finding]source.Location
	// SrcRoot is the directory source files are named relative to (the
	// repository: SARIF's %SRCROOT%). Roots are the directories traced
	// paths are named relative to in fingerprints, first match wins.
	SrcRoot string
	Roots   []string

	// Tool is crashsim's version, for reports that carry it.
	Tool Tool
	// ExitCode is the status crashsim exits with, for SARIF's invocation.
	ExitCode int
	// Counts of findings left out of the report, for the summary.
	Left Left
	// Shard is "I/N" for the report of one shard of explore --shard, so
	// that Merge can check it has every shard of one run; "" otherwise.
	Shard string
	// Explore says what crashsim explore built and checked; nil for the
	// other commands.
	Explore *ExploreJSON
	// Config names the config file the run read (its ignore globs and
	// suppressions decide what is reported); "" when it read none.
	Config string
}

// Tool says which crashsim made a report.
type Tool struct {
	Name     string `json:"name"`
	Version  string `json:"version"`            // the module version, "(devel)" for a build from a checkout
	SemVer   string `json:"semanticVersion"`    // Version as semver without the "v"
	Revision string `json:"revision,omitempty"` // the VCS revision it was built from
}

// Left counts findings that were found and not reported.
type Left struct {
	Ignored    int `json:"ignored"`    // paths matched by an ignore glob
	Suppressed int `json:"suppressed"` // matched by a [[suppress]] entry of the config
	Baseline   int `json:"baseline"`   // already in the baseline report
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
	err := each(res, opt, func(f *check.Finding) error {
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
		loc, hasSource := opt.Sources[f]
		if hasSource {
			where = fmt.Sprintf("%s:%d", textesc.Escape(opt.relSource(loc.File)), loc.Line)
		}
		fmt.Fprintf(w, "%s: %s: %s: %s\n", paint(bold, where), paint(sev, f.Rule.ID), textesc.Escape(f.Path), textesc.Escape(f.Message))
		if hasSource {
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
		count(s.Warnings, "warning", "warnings"), count(s.Infos, "info", "infos"), blind, s.Events, strings.Join(opt.Models, ", "), opt.Left.words())
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

// words says what was left out, for the summary line; "" when nothing.
func (l Left) words() string {
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

// FindingJSON is one finding in JSON output.
type FindingJSON struct {
	Rule     string          `json:"rule"`
	Severity string          `json:"severity"`
	Path     string          `json:"path"`
	Trace    string          `json:"trace"`
	Line     int             `json:"line"`
	PID      int             `json:"pid"`
	Message  string          `json:"message"`
	Models   []string        `json:"models"`
	Related  []check.Related `json:"related"`
	State    *check.State    `json:"state,omitempty"`
	// Fingerprint is the finding's identity across runs (see Fingerprint).
	Fingerprint string `json:"fingerprint"`
	// RelPath is Path relative to the root it lies in (Path when none).
	RelPath string `json:"relpath"`
	// Source is the call site in the program, when the trace had stacks.
	Source *SourceJSON `json:"source,omitempty"`
	// StateIndex orders explore's findings across shards (see Merge).
	StateIndex int `json:"state_index,omitempty"`
}

// SourceJSON is a call site; File is relative to the source root when
// below it.
type SourceJSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
}

// FormatVersion is the version of the JSON document's shape, described by
// crashsim-report.schema.json. It changes when a field is removed or
// changes meaning, not when one is added.
const FormatVersion = 1

// DocumentJSON is the whole JSON document.
type DocumentJSON struct {
	Version  int           `json:"version"`
	Tool     Tool          `json:"tool"`
	Findings []FindingJSON `json:"findings"`
	Summary  SummaryJSON   `json:"summary"`
}

// SummaryJSON counts what was checked and found.
type SummaryJSON struct {
	check.Summary
	Models []string `json:"models"`
	Left   Left     `json:"left"`
	// Warnings are the blind spots: what the trace could not show.
	Warnings []check.BlindWarning `json:"warnings"`
	// Notes say what was left out of scope on purpose.
	Notes []check.Note `json:"notes"`
	Shard string       `json:"shard,omitempty"`
	// Explore is crashsim explore's account of the states it built.
	Explore *ExploreJSON `json:"explore,omitempty"`
	// Config is the config file the run read.
	Config string `json:"config,omitempty"`
}

// JSON writes one document; findings is always an array. The findings
// are encoded one at a time as they are written: the document is as
// encoding/json writes DocumentJSON, without ever being whole in memory.
func JSON(w io.Writer, res *check.Result, opt Options) error {
	sum := SummaryJSON{Summary: res.Summary, Models: opt.Models, Left: opt.Left,
		Warnings: append([]check.BlindWarning{}, res.Warnings...), Notes: append([]check.Note{}, res.Notes...), Shard: opt.Shard, Explore: opt.Explore, Config: opt.Config}
	if sum.Models == nil {
		sum.Models = []string{}
	}
	s := newJSONStream(w)
	s.raw("{")
	s.field("version", FormatVersion, 1, true)
	s.field("tool", opt.tool(), 1, false)
	s.key("findings", 1, false)
	n := 0
	var buf []byte
	err := each(res, opt, func(f *check.Finding) error {
		if n == 0 {
			s.raw("[")
		} else {
			s.raw(",")
		}
		s.raw("\n    ")
		fj := findingJSON(f, opt)
		buf = appendFinding(buf[:0], &fj, 2)
		s.bytes(buf)
		n++
		return s.err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		s.raw("[]")
	} else {
		s.raw("\n  ]")
	}
	s.field("summary", &sum, 1, false)
	s.raw("\n}\n")
	return s.err
}

// each calls f with the findings in the order a report lists them:
// grouped by call site when stacks named them (such results are in
// memory; see Options.Sources), else as the result holds them, read back
// one at a time when they were spilled.
func each(res *check.Result, opt Options, f func(*check.Finding) error) error {
	if len(opt.Sources) == 0 || res.Spilled() {
		return res.Each(f)
	}
	for _, x := range group(res.Findings, opt.Sources) {
		if err := f(x); err != nil {
			return err
		}
	}
	return nil
}

// findingJSON is one finding as JSON writes it.
func findingJSON(f *check.Finding, opt Options) FindingJSON {
	rel := f.Related
	if rel == nil {
		rel = []check.Related{}
	}
	fj := FindingJSON{
		Rule: f.Rule.ID, Severity: f.Rule.Severity.String(), Path: f.Path, Trace: f.Trace,
		Line: f.Line, PID: f.PID, Message: f.Message, Models: f.Models, Related: rel, State: f.State,
		Fingerprint: Fingerprint(f, opt), RelPath: opt.RelPath(f.Path),
		StateIndex: f.StateIndex,
	}
	if loc, ok := opt.Sources[f]; ok {
		fj.Source = &SourceJSON{File: opt.relSource(loc.File), Line: loc.Line, Function: loc.Function}
	}
	return fj
}

// tool is opt.Tool with its name filled in.
func (o Options) tool() Tool {
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
