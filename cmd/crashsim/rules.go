package main

import (
	"fmt"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report"
)

// rulesCmd lists the rules of package check's registry.
type rulesCmd struct {
	Format string `enum:"text,json,markdown" default:"text" help:"Output format: text (one line per rule: ID, severity, title); json (every rule with its docs); markdown (the page docs/rules.md: every rule and blind spot with its docs)."`
}

func (c *rulesCmd) Run(g *Globals) error {
	switch c.Format {
	case "json":
		return report.RulesJSON(g.stdout, check.Rules())
	case "markdown":
		return report.RulesMarkdown(g.stdout, check.Rules(), check.BlindSpots())
	}
	return report.RulesTable(g.stdout, check.Rules())
}

// explainCmd prints everything the registry says about one rule or blind
// spot.
type explainCmd struct {
	Rule string `arg:"" placeholder:"ID" help:"Rule ID, as crashsim rules lists them."`
}

func (c *explainCmd) Run(g *Globals) error {
	if r, ok := check.Lookup(c.Rule); ok {
		return report.Explain(g.stdout, r)
	}
	if b, ok := check.LookupBlind(c.Rule); ok {
		return report.ExplainBlind(g.stdout, b)
	}
	msg := fmt.Sprintf("unknown rule %q: crashsim rules lists them", c.Rule)
	if near := check.Suggest(c.Rule); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return withCode(exitUsage, fmt.Errorf("%s", msg))
}
