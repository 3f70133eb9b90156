package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/crashsim/crashsim/check"
)

// rulesCmd lists the rules of package check's registry.
type rulesCmd struct {
	Format string `enum:"text,json" default:"text" help:"Output format: text (one line per rule: ID, severity, title); json (every rule with its docs)."`
}

// ruleJSON is one element of `rules --format json`; its field names are a
// stable interface.
type ruleJSON struct {
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

func (c *rulesCmd) Run(g *Globals) error {
	rules := check.Rules()
	if c.Format == "json" {
		out := make([]ruleJSON, 0, len(rules))
		for _, r := range rules {
			out = append(out, ruleJSON{
				ID: r.ID, Title: r.Title, Severity: r.Severity,
				Doc: r.Doc, Fix: r.Fix, Bad: r.Bad, Good: r.Good,
				Seed: r.Seed, HelpURI: r.HelpURI,
			})
		}
		enc := json.NewEncoder(g.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 8, 2, ' ', 0)
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Title)
	}
	return tw.Flush()
}

// explainCmd prints everything the registry says about one rule.
type explainCmd struct {
	Rule string `arg:"" placeholder:"ID" help:"Rule ID, as crashsim rules lists them."`
}

func (c *explainCmd) Run(g *Globals) error {
	r, ok := check.Lookup(c.Rule)
	if !ok {
		if ok, err := explainBlind(g, c.Rule); ok {
			return err
		}
		msg := fmt.Sprintf("unknown rule %q: crashsim rules lists them", c.Rule)
		if near := nearRules(c.Rule); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return withCode(exitUsage, fmt.Errorf("%s", msg))
	}
	w := bufio.NewWriter(g.stdout)
	fmt.Fprintf(w, "%s (%s): %s\n\n", r.ID, r.Severity, r.Title)
	wrap(w, r.Doc, "  ", explainWidth)
	fmt.Fprintf(w, "\nFix:\n")
	wrap(w, r.Fix, "  ", explainWidth)
	fmt.Fprintf(w, "\nBad:\n%s\n", indent(r.Bad, "  "))
	fmt.Fprintf(w, "\nGood:\n%s\n", indent(r.Good, "  "))
	fmt.Fprintf(w, "\nSeen in: %s\n", r.Seed)
	if r.HelpURI != "" {
		fmt.Fprintf(w, "More: %s\n", r.HelpURI)
	}
	return w.Flush()
}

// explainWidth is where explain wraps its paragraphs: a terminal's 80
// columns less a margin.
const explainWidth = 76

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

// nearRules suggests rule IDs for a mistyped one: those it is a prefix of
// or, failing that, the closest within an edit distance of 3.
func nearRules(id string) []string {
	id = strings.ToLower(id)
	if id == "" {
		return nil
	}
	var prefixed, closest []string
	best := 4
	for _, r := range check.Rules() {
		if strings.HasPrefix(r.ID, id) {
			prefixed = append(prefixed, r.ID)
		}
		switch d := editDistance(id, r.ID); {
		case d < best:
			best, closest = d, []string{r.ID}
		case d == best:
			closest = append(closest, r.ID)
		}
	}
	if len(prefixed) > 0 {
		return prefixed
	}
	return closest
}

// editDistance is the Levenshtein distance between a and b, in bytes (rule
// IDs are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
