package report

import (
	"encoding/hex"
	"fmt"
	"io"
	"slices"
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
	// Problems are the result's findings grouped (check.Group), when the
	// caller grouped them already; nil: each renderer groups them.
	Problems *check.Problems
	// Config names the config file the run read (its ignore globs and
	// suppressions decide what is reported); "" when it read none.
	Config string
	// Run is an explore run's identity, which its shards share; nil for
	// the other commands.
	Run *wire.RunID
	// AllConsequences lists every consequence of a problem in text (-v);
	// else the first ShownConsequences, and how many more.
	AllConsequences bool
}

// ShownConsequences is how many consequence lines a problem's text block
// holds unless Options.AllConsequences: the program-level problem of a
// program that synced nothing has one for each file it wrote, 400,000
// lines for 200,000 files, where a screenful says what it is. One more
// line says how many are left out; the JSON report holds each.
const ShownConsequences = 50

const (
	bold   = "\x1b[1m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

// Text writes one block per problem: "SOURCE-or-TRACE:LINE: RULE: PATH:
// message" (the message ends with the fix), the events that explain its
// primary finding, indented, then one line per consequence saying what
// a crash leaves (its source line first, when known); then a summary,
// "N problems (M findings)".
func Text(w io.Writer, res *check.Result, opt Options) error {
	paint := opt.paint
	ps, err := opt.problems(res)
	if err != nil {
		return err
	}
	// The problems' blocks are made in batches, on several goroutines
	// when there are many (inBatches).
	err = inBatches(ps, 0, 0, encoders(res.Len()), func() batchFunc {
		t := &textFindings{opt: opt, ps: ps, rd: res.NewReading(), primOf: -1}
		return t.batch
	}, func(p []byte) error {
		_, err := w.Write(p)
		return err
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
	fmt.Fprintf(w, "%s: %s (%s): %s, %s, %s%s; %s in scope (%d events, model %s)%s\n",
		paint(bold, "crashsim"), count(ps.Len(), "problem", "problems"), count(res.Len(), "finding", "findings"),
		count(ps.Errors, "error", "errors"), count(ps.Warnings, "warning", "warnings"), count(ps.Infos, "info", "infos"), blind,
		count(s.Files, "file", "files"), s.Events, strings.Join(opt.Models, ", "), leftWords(opt.Left))
	return nil
}

// paint colors s with the terminal code when the report is in color.
func (o Options) paint(code, s string) string {
	if !o.Color {
		return s
	}
	return code + s + reset
}

// textFindings makes the text of problems for one goroutine: its own
// reading of the result, into one Finding and State (a spilled one would
// otherwise be decoded into new ones): nothing of it is kept past its
// lines.
type textFindings struct {
	opt   Options
	ps    *check.Problems
	rd    *check.Reading
	reuse check.Finding
	st    check.State
	// primAt is the place of problem primOf's primary among its
	// members (-1 when it has none): the batch's problem, looked up
	// once (primOf -1: none yet).
	primOf, primAt int
}

// consequence is the ordinal of problem n's k-th member among its
// consequences (its members but the primary).
func (t *textFindings) consequence(n, k int) int {
	p := t.ps.List[n]
	if t.primOf != n {
		t.primOf, t.primAt = n, -1
		if p.Primary >= 0 {
			t.primAt = slices.Index(p.Members, int32(p.Primary))
		}
	}
	if t.primAt >= 0 && t.primAt < k {
		return k - 1
	}
	return k
}

// batch is a batchFunc: a problem's block starts at its first finding.
func (t *textFindings) batch(dst []byte, n, k, count int) ([]byte, error) {
	var err error
	for range count {
		for k == len(t.ps.List[n].Members) {
			n, k = n+1, 0
		}
		p := t.ps.List[n]
		if k == 0 {
			if dst, err = t.head(dst, p); err != nil {
				return dst, err
			}
		}
		if i := int(p.Members[k]); i != p.Primary && (t.opt.AllConsequences || t.consequence(n, k) < ShownConsequences) {
			if dst, err = t.member(dst, p, i); err != nil {
				return dst, err
			}
		}
		if k == len(p.Members)-1 && !t.opt.AllConsequences {
			all := len(p.Members)
			if p.Primary >= 0 {
				all--
			}
			if more := all - ShownConsequences; more > 0 {
				dst = fmt.Appendf(dst, "    %s\n", t.opt.paint(dim, fmt.Sprintf("... and %d more consequences: -v lists every one, --format json holds each", more)))
			}
		}
		k++
	}
	return dst, nil
}

// severityColor is the color of a problem's severity.
func severityColor(s check.Severity) string {
	switch s {
	case check.Error:
		return red
	case check.Warning:
		return yellow
	}
	return cyan
}

// only says under which models alone a finding happens, "" when under
// every one.
func (o Options) only(f *check.Finding) string {
	if len(f.Models) > 0 && len(f.Models) < o.AllModels {
		return fmt.Sprintf("only under the %s model", strings.Join(f.Models, ", "))
	}
	return ""
}

// head appends a problem's first line and the events that explain its
// primary finding. Every string from the trace (paths, and messages and
// descriptions that quote them) is escaped: one line each.
func (t *textFindings) head(dst []byte, p *check.Problem) ([]byte, error) {
	opt, paint := t.opt, t.opt.paint
	where := fmt.Sprintf("%s:%d", textesc.Escape(p.Trace), p.Line)
	loc := p.Source
	if loc != nil {
		where = fmt.Sprintf("%s:%d", textesc.Escape(opt.relSource(loc.File)), loc.Line)
	}
	path := textesc.Escape(p.Path)
	if n := len(p.Paths) - 1; n > 0 && p.Dirs > 0 {
		path += fmt.Sprintf(" (and %d more)", n) // files and directories
	} else if n > 0 {
		path += fmt.Sprintf(" (and %s)", count(n, "other file", "other files"))
	}
	dst = fmt.Appendf(dst, "%s: %s: %s: %s\n", paint(bold, where), paint(severityColor(p.Severity), p.Rule.ID), path, textesc.Escape(p.Message))
	if p.Primary < 0 {
		return dst, nil
	}
	if loc != nil {
		dst = fmt.Appendf(dst, "    %s %-10s in %s\n", paint(dim, fmt.Sprintf("%s:%d", textesc.Escape(p.Trace), p.Line)), "call", textesc.Escape(loc.Function))
	}
	f, err := t.rd.AtReuse(p.Primary, &t.reuse, &t.st)
	if err != nil {
		return dst, err
	}
	for _, r := range f.Related {
		dst = fmt.Appendf(dst, "    %s %-10s %s\n", paint(dim, fmt.Sprintf("%s:%d", textesc.Escape(r.Trace), r.Line)), textesc.Escape(r.Syscall), textesc.Escape(r.What))
	}
	if s := f.State; s != nil {
		dst = fmt.Appendf(dst, "    state: %s\n", s.Sentence(f.Trace, textesc.Escape))
	}
	if o := opt.only(f); o != "" {
		dst = fmt.Appendf(dst, "    %s\n", o)
	}
	return dst, nil
}

// member appends the line of finding i, one of p's consequences: what a
// crash leaves, its source line first when known.
func (t *textFindings) member(dst []byte, p *check.Problem, i int) ([]byte, error) {
	opt, paint := t.opt, t.opt.paint
	f, err := t.rd.AtReuse(i, &t.reuse, &t.st)
	if err != nil {
		return dst, err
	}
	what := textesc.Escape(f.Message)
	if s := f.State; s != nil {
		what = s.Sentence(f.Trace, textesc.Escape)
	}
	if o := opt.only(f); o != "" {
		what += " (" + o + ")"
	}
	at := fmt.Sprintf("%s:%d", textesc.Escape(f.Trace), f.Line)
	if loc := f.Source; loc != nil {
		at = fmt.Sprintf("%s:%d %s", textesc.Escape(opt.relSource(loc.File)), loc.Line, at)
	}
	return fmt.Appendf(dst, "    %s %s: %s\n", paint(dim, at), paint(severityColor(p.Severity), f.Rule.ID), what), nil
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
		at := textesc.Escape(b.Trace)
		if b.Line > 0 {
			at = fmt.Sprintf("%s:%d", at, b.Line)
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

// JSON writes the report as one wire.Report: its problems, then the
// findings in the order of the problems, each encoded as it is written:
// the report is never whole in memory.
func JSON(w io.Writer, res *check.Result, opt Options) error {
	ps, ids, err := problems(res, opt)
	if err != nil {
		return err
	}
	sum := wire.Summary{
		Counts: wire.Counts{Events: res.Summary.Events, Files: res.Summary.Files,
			Errors: res.Summary.Errors, WarningFindings: res.Summary.Warnings, Infos: res.Summary.Infos, Problems: ps.Len()},
		Models: opt.Models, Left: opt.Left, Warnings: wireWarnings(res.Warnings), Notes: wireNotes(res.Notes), Shard: opt.Shard,
		Explore: opt.Explore, Config: name(opt.Config), Run: opt.Run,
	}
	if sum.Models == nil {
		sum.Models = []string{}
	}
	out := wire.NewReportWriter(w, wire.Version, opt.tool())
	// Each finding's fingerprint is worked out once, for its problem's
	// list, and kept (8 bytes) for the finding itself.
	sums := make([][][8]byte, len(ps.List))
	for n, p := range ps.List {
		if sums[n], err = memberSums(res, p, opt); err != nil {
			return err
		}
		wp := opt.wireProblem(p, ids[n], memberPrints(p, sums[n]))
		if err := out.Problem(&wp); err != nil {
			return err
		}
	}
	if err := writeFindings(out, res, ps, ids, sums, opt); err != nil {
		return err
	}
	return out.Close(&sum)
}

// finding fills fj with f as a report writes it, sum its fingerprint
// (fingerprintSum); st holds its state.
func (o Options) finding(f *check.Finding, sum [8]byte, fj *wire.Finding, st *wire.State) {
	*fj = wire.Finding{
		Rule: f.Rule.ID, Severity: f.Rule.Severity.String(), Path: name(f.Path), Trace: name(f.Trace),
		Line: f.Line, PID: f.PID, Message: name(f.Message), Models: f.Models, Related: related(f.Related, f.Trace, fj.Related[:0]),
		Fingerprint: hex.EncodeToString(sum[:]), RelPath: name(o.RelPath(f.Path)), StateIndex: f.StateIndex,
	}
	if s := f.State; s != nil {
		*st = wire.State{Line: s.Line, Path: name(s.Path), Outcome: s.Outcome, Persisted: name(s.Persisted), Words: name(s.Words), Trace: otherTrace(s.Trace, f.Trace)}
		fj.State = st
	}
	if loc := f.Source; loc != nil {
		fj.Source = &wire.Source{File: name(o.relSource(loc.File)), Line: loc.Line, Function: name(loc.Function)}
	}
}

// related appends the events that explain a finding in trace to buf: an
// array, empty when there are none.
func related(rs []check.Related, trace string, buf []wire.Related) []wire.Related {
	if buf == nil {
		buf = make([]wire.Related, 0, len(rs))
	}
	for _, r := range rs {
		buf = append(buf, wire.Related{Line: r.Line, PID: r.PID, Syscall: name(r.Syscall), What: name(r.What), Trace: otherTrace(r.Trace, trace)})
	}
	return buf
}

// otherTrace is the name of trace t, as the JSON report writes it, when
// it is not the finding's (of): another file of a -ff set; "" otherwise.
func otherTrace(t, of string) string {
	if t == "" || t == of {
		return ""
	}
	return name(t)
}

// wireWarnings are blind spots as reports write them: an array, empty
// when there are none.
func wireWarnings(ws []check.BlindWarning) []wire.Warning {
	out := make([]wire.Warning, 0, len(ws))
	for _, b := range ws {
		out = append(out, wire.Warning{ID: b.ID, Message: name(b.Message), Trace: name(b.Trace), Line: b.Line, Fix: name(b.Fix), Accepted: b.Accepted})
	}
	return out
}

// wireNotes are notes as reports write them: an array, empty when there
// are none.
func wireNotes(ns []check.Note) []wire.Note {
	out := make([]wire.Note, 0, len(ns))
	for _, n := range ns {
		out = append(out, wire.Note{ID: n.ID, Message: name(n.Message), Trace: name(n.Trace), Line: n.Line})
	}
	return out
}

// name is a string from a trace or the command line (a path, a trace's
// name, a message that quotes them) as JSON and SARIF carry it: escaped
// as the text report escapes it (textesc), so that it stays reversible.
// Written raw, encoding/json would turn every byte that is not UTF-8 into
// U+FFFD, and two different names into one; and a bidi control would
// reach a SARIF viewer as it is, to reorder what it shows.
func name(s string) string { return textesc.Escape(s) }

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

// Render writes the report in format: "json", "sarif", or text for any
// other.
func Render(w io.Writer, format string, res *check.Result, opt Options) error {
	switch format {
	case "json":
		return JSON(w, res, opt)
	case "sarif":
		return SARIF(w, res, opt)
	}
	return Text(w, res, opt)
}
