package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// openTrace opens a trace and routes the parser's warnings to stderr.
func openTrace(path string, g *Globals) (parser.Stream, error) {
	opt := parser.Options{
		Warn: func(pos parser.Pos, msg string) { fmt.Fprintf(g.stderr, "%s: warning: %s\n", pos, msg) },
	}
	if g.Verbose {
		opt.Diag = func(pos parser.Pos, text string) { fmt.Fprintf(g.stderr, "%s: %s\n", pos, text) }
	}
	s, err := openParser(path, opt)
	if err != nil {
		return nil, inputError(err)
	}
	return s, nil
}

// openParser opens a trace for the parser; one recorded with stacks has its
// frame lines hidden from it (see stacks.go).
func openParser(path string, opt parser.Options) (parser.Stream, error) {
	if hasStacks(path) {
		return openStackTrace(path, opt)
	}
	return parser.Open(path, opt)
}

// inputError classifies a problem with the trace as exit status 3 and
// words it for a person.
func inputError(err error) error {
	var pe *parser.Error
	if errors.As(err, &pe) {
		return withCode(exitInput, errors.New(pe.Detail()))
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return withCode(exitInput, fmt.Errorf("cannot read trace %s: no such file", pathErr.Path))
		case errors.Is(err, fs.ErrPermission):
			return withCode(exitInput, fmt.Errorf("cannot read trace %s: permission denied", pathErr.Path))
		}
	}
	return withCode(exitInput, err)
}

// startProcs is the process model a trace starts from: the cwd the traced
// command started in and the files it had open, when a listing beside the
// trace (TRACE.initial, as crashsim trace writes it) says so. Traces
// recorded without -y need them to resolve paths.
func startProcs(trace string) *model.Procs {
	l, err := (&checkFlags{}).initial(trace)
	if err != nil || l == nil {
		return model.NewProcs()
	}
	p := model.NewProcsIn(l.Cwd)
	p.SetInitialFDs(l.FDs)
	return p
}
