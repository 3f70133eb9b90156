package main

import (
	"fmt"
	"io"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

// writeHTML replays a trace and writes the page of it, with the findings
// and blind spots of res, to output or stdout (see writeOutput).
func writeHTML(g *Globals, rp crashsim.Replay, meta report.HTMLMeta, res *check.Result, output string) error {
	return writeOutput(g, output, func(w io.Writer, _ bool) error { return rp.HTML(w, meta, res) })
}

// html renders the findings of check, trace and explore as a page.
func (f *checkFlags) html(g *Globals, res *check.Result, r reporting) error {
	if len(r.inputs.Traces) != 1 {
		return withCode(exitUsage, fmt.Errorf("--format html draws one trace; %d given", len(r.inputs.Traces)))
	}
	p, err := model.ParsePersistence(f.Model[0])
	if err != nil {
		return withCode(exitUsage, err)
	}
	rp := crashsim.Replay{Inputs: r.inputs, Scope: r.scope, Persistence: p}
	meta := report.HTMLMeta{Command: r.command, Trace: r.inputs.Traces[0], Model: p.String(), Models: f.Model}
	return writeHTML(g, rp, meta, res, f.Output)
}
