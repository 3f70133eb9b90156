package crashsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/internal/textesc"
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
	// Options are explore's; Run sets Trace, Existed, Scope, Predict and
	// Reopen, and refuses a WorkDir at or below Root or Initial.
	Options explore.Options
}

// Validate rejects, before any work is done (a program traced first),
// what Run would: a bad ignore glob, a blind spot that does not exist, an
// Initial that is not a directory.
func (e *Explore) Validate() error {
	if err := (Scope{Ignore: e.Ignore}).Validate(); err != nil {
		return err
	}
	if err := ValidateAccepted(e.AcceptBlind); err != nil {
		return err
	}
	if in := e.Options.Initial; in != "" {
		if fi, err := os.Stat(in); err != nil || !fi.IsDir() {
			return usageErrorf("--initial %s: not a directory", in)
		}
	}
	return nil
}

// Run explores the trace. The Result holds the findings of the states the
// checker rejected and the trace's blind spots; the explore.Result says
// what was explored. When neither the trace nor the snapshot holds bytes
// a state needs (blind spot blind-no-data, not accepted) nothing is explored: the
// explore.Result is nil and the Result holds the blind spots.
func (e *Explore) Run(ctx context.Context) (*Result, *explore.Result, error) {
	if err := e.Validate(); err != nil {
		return nil, nil, err
	}
	opt := e.Options
	if opt.WorkDir != "" {
		dir, err := workDir(opt.WorkDir, opt.Root, opt.Initial)
		if err != nil {
			return nil, nil, &UsageError{err}
		}
		opt.WorkDir = dir
	}
	if len(e.Traces) != 1 {
		return nil, nil, usageErrorf("an exploration reads one trace; %d given", len(e.Traces))
	}
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
	opt.Cwd, opt.FDs, opt.NameFiles = st.Cwd, st.FDs, st.Set
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
	if opt.Predict, err = predicted.List(); err != nil {
		return nil, nil, err
	}
	out := &Result{Result: &check.Result{Warnings: predicted.Warnings, Notes: predicted.Notes}, Starts: predicted.Starts, marks: predicted.marks}
	for _, w := range predicted.Warnings {
		if w.ID == check.BlindNoData && !w.Accepted {
			out.Summary.Events = predicted.Summary.Events
			out.Summary.Files = predicted.Summary.Files
			return out, nil, nil
		}
	}
	stream, err := in.open(trace, forAll, st.Arch)
	if err != nil {
		return nil, nil, err
	}
	// explore reads the trace a second time to check each state at the
	// last line that leaves it; the warnings were said the first time.
	opt.Reopen = func() (parser.Stream, error) { return quiet.open(trace, forAll, st.Arch) }
	res, err := explore.Run(ctx, stream, opt)
	stream.Close()
	if err != nil {
		if pe := (*parser.Error)(nil); errors.As(err, &pe) {
			return nil, nil, inputError(err)
		}
		// A state that cannot be built: the error names the trace line.
		return nil, nil, &InputError{fmt.Errorf("%s: %w", textesc.Escape(trace), err)}
	}
	out.Summary.Events = res.Events
	// The files as check counts them, by the name a user knows (a file
	// and the temp name it was renamed from are one): explore's own count
	// is of every path a state held.
	out.Summary.Files = predicted.Summary.Files
	out.Add(res.Findings...)
	if w, ok := statesUnchecked(res, opt.MaxStates, opt.EveryLine, trace); ok {
		out.Warnings = append(out.Warnings, w)
		markAccepted(out.Warnings, e.AcceptBlind)
	}
	return out, res, nil
}

// workDir checks Options.WorkDir (--work-dir): an existing directory, not at or below the
// root the states stand for or the initial snapshot, which explore reads
// and never writes.
func workDir(dir, root, initial string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--work-dir %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--work-dir %s: not a directory", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("--work-dir %s: %w", dir, err)
	}
	for _, p := range []string{root, initial} {
		if p == "" {
			continue
		}
		rp, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if r, err := filepath.EvalSymlinks(rp); err == nil {
			rp = r
		}
		if within(real, rp) {
			return "", fmt.Errorf("--work-dir %s: inside %s, which explore reads and never writes: give a directory elsewhere", dir, p)
		}
	}
	return real, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
