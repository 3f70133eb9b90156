package main

import (
	"fmt"
	"io"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// writeHTML replays a trace and writes the page of it, with the findings
// and blind spots of res, to output or stdout (see writeOutput).
func writeHTML(g *Globals, rp crashsim.Replay, meta report.HTMLMeta, res *check.Result, output string) error {
	return writeOutput(g, output, func(w io.Writer, _ bool) error { return renderHTML(w, rp, meta, res) })
}

// renderHTML draws the page of one replay. It holds as many crash points
// as a browser draws well, and says where it stopped.
func renderHTML(w io.Writer, rp crashsim.Replay, meta report.HTMLMeta, res *check.Result) error {
	var eff report.Effects
	rp.Calls, rp.Observe = true, eff.Observe
	h := report.NewHTML(w, meta, res, report.HTMLLimits{})
	done, err := rp.Run(func(ev *parser.Event, pt model.Point, ok bool) bool {
		if ev != nil && ok {
			h.Event(ev, &eff, pt)
		}
		eff.Reset()
		return !h.Full()
	})
	if err != nil {
		return err
	}
	if done.Next > 0 {
		h.Fold(done.Next)
	}
	return h.Close()
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
