package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/textesc"
)

// Options shape the output.
type Options struct {
	Color     bool     // ANSI colour (only when writing to a terminal)
	Models    []string // the models reported, for the summary line
	AllModels int      // how many models crashsim evaluated; a finding under fewer says which
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
	for _, f := range res.Findings {
		sev := cyan
		switch f.Rule.Severity {
		case check.Error:
			sev = red
		case check.Warning:
			sev = yellow
		}
		// Every string from the trace (paths, and messages and
		// descriptions that quote them) is escaped: one finding, one line.
		fmt.Fprintf(w, "%s: %s: %s: %s\n", paint(bold, fmt.Sprintf("%s:%d", textesc.Escape(f.Trace), f.Line)), paint(sev, f.Rule.ID), textesc.Escape(f.Path), textesc.Escape(f.Message))
		for _, r := range f.Related {
			fmt.Fprintf(w, "    %s %-10s %s\n", paint(dim, fmt.Sprintf("%s:%d", textesc.Escape(r.Trace), r.Line)), textesc.Escape(r.Syscall), textesc.Escape(r.What))
		}
		if s := f.State; s != nil {
			fmt.Fprintf(w, "    state: a crash right after line %d can leave %s %s (%s persisted)\n", s.Line, textesc.Escape(s.Path), outcomeWords(s.Outcome), persistedWords(s.Persisted))
		}
		if len(f.Models) > 0 && len(f.Models) < opt.AllModels {
			fmt.Fprintf(w, "    only under the %s model\n", strings.Join(f.Models, ", "))
		}
	}
	s := res.Summary
	fmt.Fprintf(w, "%s: %s in scope, %s, %s, %s (%d events, model %s)\n",
		paint(bold, "crashsim"), count(s.Files, "file", "files"), count(s.Errors, "error", "errors"),
		count(s.Warnings, "warning", "warnings"), count(s.Infos, "info", "infos"), s.Events, strings.Join(opt.Models, ", "))
	return nil
}

// outcomeWords says an outcome in a sentence.
func outcomeWords(o string) string {
	switch o {
	case "missing":
		return "missing"
	case "initial":
		return "with its content from before the run"
	case "earlier":
		return "with an earlier version"
	case "empty":
		return "empty"
	case "torn":
		return "torn (part old, part new)"
	case "zeros":
		return "full of zeros"
	}
	return o
}

func persistedWords(p string) string {
	switch p {
	case "none":
		return "none of its pending writes"
	case "all":
		return "all of its pending writes"
	}
	return p
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
}

// DocumentJSON is the whole JSON document.
type DocumentJSON struct {
	Findings []FindingJSON `json:"findings"`
	Summary  SummaryJSON   `json:"summary"`
}

// SummaryJSON counts what was checked and found.
type SummaryJSON struct {
	check.Summary
	Models []string `json:"models"`
}

// JSON writes one document; findings is always an array.
func JSON(w io.Writer, res *check.Result, opt Options) error {
	doc := DocumentJSON{Findings: []FindingJSON{}, Summary: SummaryJSON{Summary: res.Summary, Models: opt.Models}}
	for _, f := range res.Findings {
		rel := f.Related
		if rel == nil {
			rel = []check.Related{}
		}
		doc.Findings = append(doc.Findings, FindingJSON{
			Rule: f.Rule.ID, Severity: f.Rule.Severity.String(), Path: f.Path, Trace: f.Trace,
			Line: f.Line, PID: f.PID, Message: f.Message, Models: f.Models, Related: rel, State: f.State,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
