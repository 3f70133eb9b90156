package crashsim

import (
	"context"
	"errors"
	"fmt"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// Explore is an exploration of one trace (package explore): each crash
// state built on disk and a checker run on it, with check's findings on
// the same trace, under the same model and scope, naming the rule behind
// a state the checker rejects.
type Explore struct {
	// Inputs name one trace (Traces[0]) and where it began.
	Inputs
	// Ignore leaves paths below the root out of the exploration, as
	// Scope.Ignore does.
	Ignore []string
	// AcceptBlind are blind spots the caller accepts (see Check).
	AcceptBlind []string
	// Options are explore's; Run sets Trace, Existed, Scope and Predict.
	Options explore.Options
}

// Run explores the trace. The Result holds the findings of the states the
// checker rejected and the trace's blind spots; the explore.Result says
// what was explored. When the trace lacks written bytes a state needs
// (blind spot blind-no-data, not accepted) nothing is explored: the
// explore.Result is nil and the Result holds the blind spots.
func (e *Explore) Run(ctx context.Context) (*Result, *explore.Result, error) {
	opt := e.Options
	trace := e.Traces[0]
	opt.Trace = trace
	in := e.Inputs
	if opt.Initial != "" {
		in.Existed = explore.ExistedIn(opt.Root, opt.Initial)
	}
	st, err := in.Start(trace)
	if err != nil {
		return nil, nil, err
	}
	if opt.Initial == "" {
		// Without a snapshot the listing still tells created files from
		// replaced ones; a replaced file's old bytes are then unknown.
		opt.Existed = st.Existed
	}
	sc := Scope{Roots: []string{opt.Root}, Ignore: e.Ignore}
	scope := in.options(sc, st)
	opt.Scope = scope.InScope

	// The parser's warnings are said once, from the exploration.
	quiet := in
	quiet.Parse.Warn, quiet.Parse.Diag = nil, nil
	c := Check{Inputs: quiet, Scope: sc, Models: []model.Persistence{opt.Persistence}, AcceptBlind: e.AcceptBlind, NeedData: true}
	c.Traces = []string{trace}
	predicted, err := c.Run()
	if err != nil {
		return nil, nil, err
	}
	opt.Predict = predicted.Findings
	out := &Result{Result: &check.Result{Warnings: predicted.Warnings, Notes: predicted.Notes}, Starts: predicted.Starts, marks: predicted.marks}
	for _, w := range predicted.Warnings {
		if w.ID == check.BlindNoData && !w.Accepted {
			out.Summary.Events = predicted.Summary.Events
			out.Summary.Files = predicted.Summary.Files
			return out, nil, nil
		}
	}
	stream, err := in.open(trace, forAll)
	if err != nil {
		return nil, nil, err
	}
	res, err := explore.Run(ctx, stream, opt)
	stream.Close()
	if err != nil {
		if pe := (*parser.Error)(nil); errors.As(err, &pe) {
			return nil, nil, inputError(err)
		}
		// A state that cannot be built: the error names the trace line.
		return nil, nil, &InputError{fmt.Errorf("%s: %w", trace, err)}
	}
	out.Findings = res.Findings
	out.Summary.Events = res.Events
	out.Summary.Files = res.Files
	out.Summary.Errors = len(res.Findings)
	return out, res, nil
}
