package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
)

// The rule registry (check.Rules) rendered for a person or a program:
// crashsim rules and crashsim explain, as SARIF's rule metadata renders
// it for code scanning.

// RuleJSON is one element of `crashsim rules --format json`; its field
// names are a stable interface.
type RuleJSON struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Severity check.Severity `json:"severity"`
	Doc      string         `json:"doc"`
	Fix      string         `json:"fix"`
	Bad      string         `json:"bad"`
	Good     string         `json:"good"`
	Seed     string         `json:"seed"`
	HelpURI  string         `json:"help_uri,omitempty"`
}

// RulesJSON writes every rule with its docs, as one indented JSON array.
func RulesJSON(w io.Writer, rules []*check.Rule) error {
	out := make([]RuleJSON, 0, len(rules))
	for _, r := range rules {
		out = append(out, RuleJSON{
			ID: r.ID, Title: r.Title, Severity: r.Severity,
			Doc: r.Doc, Fix: r.Fix, Bad: r.Bad, Good: r.Good,
			Seed: r.Seed, HelpURI: r.HelpURI,
		})
	}
	e := wire.NewEncoder(w, wire.Indented)
	if err := e.Value(out); err != nil {
		return err
	}
	e.Raw("\n")
	return e.Flush()
}

// RulesTable writes one line per rule: ID, severity and title.
func RulesTable(w io.Writer, rules []*check.Rule) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Title)
	}
	return tw.Flush()
}

// explainWidth is where Explain wraps its paragraphs: a terminal's 80
// columns less a margin.
const explainWidth = 76

// Explain writes everything the registry says of one rule.
func Explain(w io.Writer, r *check.Rule) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s (%s): %s\n\n", r.ID, r.Severity, r.Title)
	wrap(bw, r.Doc, "  ", explainWidth)
	fmt.Fprintf(bw, "\nFix:\n")
	wrap(bw, r.Fix, "  ", explainWidth)
	fmt.Fprintf(bw, "\nBad:\n%s\n", indent(r.Bad, "  "))
	fmt.Fprintf(bw, "\nGood:\n%s\n", indent(r.Good, "  "))
	fmt.Fprintf(bw, "\nSeen in: %s\n", r.Seed)
	if r.HelpURI != "" {
		fmt.Fprintf(bw, "More: %s\n", r.HelpURI)
	}
	return bw.Flush()
}

// ExplainBlind writes what a blind spot hides and what fixes it.
func ExplainBlind(w io.Writer, b check.BlindSpot) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s (blind spot): the recording cannot show %s\n\n", b.ID, b.Hides)
	wrap(bw, "A blind spot is about the trace, not the program: crashsim works it out from the trace itself and says it on stderr with the line where it was first seen. With no finding at or above --fail-on, check, states, explore and trace exit 6 instead of 0; --accept-blind "+b.ID+" accepts it.", "  ", explainWidth)
	fmt.Fprintf(bw, "\nFix:\n")
	wrap(bw, b.Fix+".", "  ", explainWidth)
	return bw.Flush()
}

// wrap writes text as lines of at most width columns (a longer word gets a
// line of its own), each starting with prefix.
func wrap(w io.Writer, text, prefix string, width int) {
	line := prefix
	for _, word := range strings.Fields(text) {
		if line != prefix && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line = prefix
		}
		if line != prefix {
			line += " "
		}
		line += word
	}
	if line != prefix {
		fmt.Fprintln(w, line)
	}
}

func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}
