package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// htmlInput is what an HTML report is made from: one trace, how to read
// it (model options and scope) and the findings already computed.
type htmlInput struct {
	command   string
	trace     string
	model     model.Persistence
	models    []string
	opt       model.Options
	scope     *check.Options
	maxStates int
	res       *check.Result
	output    string
}

// writeHTML replays the trace through a timeline and streams the page to
// the output file (atomically) or stdout.
func writeHTML(g *Globals, in htmlInput) error {
	render := func(w io.Writer) error {
		stream, err := openTrace(in.trace, g)
		if err != nil {
			return err
		}
		defer stream.Close()
		return renderHTML(w, stream, in)
	}
	if in.output == "" {
		bw := bufio.NewWriter(g.stdout)
		if err := render(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	var inErr error
	err := report.WriteFileAtomic(in.output, func(file *os.File) error {
		if err := render(file); err != nil {
			inErr = err
			return err
		}
		return nil
	})
	if inErr != nil {
		return inErr
	}
	if err != nil {
		return withCode(exitInput, fmt.Errorf("write %s: %w", in.output, err))
	}
	return nil
}

// renderHTML is the replay loop behind every --format html.
func renderHTML(w io.Writer, stream parser.Stream, in htmlInput) error {
	var eff report.Effects
	opt := in.opt
	opt.Persistence = in.model
	opt.Observe = eff.Observe
	max := in.maxStates
	if max == 0 {
		max = 256
	}
	tl := model.NewTimeline(opt, in.scope.InScope, max)
	h := report.NewHTML(w, report.HTMLMeta{Command: in.command, Trace: in.trace, Model: in.model.String(), Models: in.models}, in.res, report.HTMLLimits{})
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return inputError(err)
		}
		if h.Full() {
			// The page holds as many crash points as a browser draws
			// well; it says where it stopped.
			h.Fold(ev.Pos.Line)
			break
		}
		eff.Reset()
		pt, ok := tl.Step(ev)
		if ok {
			h.Event(ev, &eff, pt)
		}
	}
	return h.Close()
}

// html renders the findings of check, trace and explore as a page.
func (f *checkFlags) html(g *Globals, res *check.Result) error {
	if len(f.traces) != 1 {
		return withCode(exitUsage, fmt.Errorf("--format html draws one trace; %d given", len(f.traces)))
	}
	trace := f.traces[0]
	p, err := model.ParsePersistence(f.Model[0])
	if err != nil {
		return withCode(exitUsage, err)
	}
	scope := &check.Options{Ignore: f.Ignore, Mounts: f.mounts, Cwd: f.cwd}
	if len(f.mounts) == 0 {
		scope.LikelyVolatile = check.LikelyVolatile
	}
	scope.Roots = absRoots(f.Root)
	opt := model.Options{Cwd: f.cwd}
	listing, err := f.initial(g, trace)
	if err != nil {
		return err
	}
	if listing != nil {
		opt.Existed, opt.FDs = listing.Existed, listing.FDs
		if listing.Cwd != "" && !f.cwdGiven {
			opt.Cwd = listing.Cwd
		}
	}
	scope.Cwd, scope.FDs = opt.Cwd, opt.FDs
	return writeHTML(g, htmlInput{command: f.command, trace: trace, model: p, models: f.Model, opt: opt, scope: scope, res: res, output: f.Output})
}

// runHTML is `crashsim states --format html`: the timeline with no
// findings computed.
func (c *statesCmd) runHTML(g *Globals) error {
	p, scope, opt, err := c.setup(g)
	if err != nil {
		return err
	}
	// The blind spots are worked out in a pass of their own, so that the
	// page says them at its top.
	watch := check.NewWatcher(scope)
	stream, err := openTrace(c.Trace, g)
	if err != nil {
		return err
	}
	// A model of its own tells the watcher which mmap maps a file shared
	// and writable.
	mopt := opt
	mopt.Observe = watch.ObserveEffect
	m := model.New(mopt)
	events := 0
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			stream.Close()
			return inputError(err)
		}
		events++
		watch.Observe(ev)
		m.Apply(ev)
	}
	stream.Close()
	warnings, notes := watch.Finish()
	markAccepted(warnings, c.AcceptBlind)
	res := &check.Result{Warnings: warnings, Notes: notes}
	res.Summary.Events = events
	if err := writeHTML(g, htmlInput{command: "states", trace: c.Trace, model: p, models: []string{p.String()}, opt: opt, scope: scope, maxStates: c.MaxStates, res: res, output: c.Output}); err != nil {
		return err
	}
	report.BlindSpots(g.stderr, warnings)
	return blindExit(warnings)
}
