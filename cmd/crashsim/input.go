package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// openTrace opens a trace and routes the parser's warnings to stderr.
// Reading a large trace shows progress on stderr when it is a terminal
// (or with --progress).
func openTrace(path string, g *Globals) (parser.Stream, error) {
	opt := parser.Options{
		Warn: func(pos parser.Pos, msg string) { fmt.Fprintf(g.stderr, "%s: warning: %s\n", pos, msg) },
	}
	if g.Verbose {
		opt.Diag = func(pos parser.Pos, text string) { fmt.Fprintf(g.stderr, "%s: %s\n", pos, text) }
	}
	var progress io.Writer
	if g.Progress || isTerminal(g.stderr) {
		progress = g.stderr
	}
	s, err := openParser(path, opt, progress)
	if err != nil {
		return nil, inputError(err)
	}
	return s, nil
}

// openParser opens a trace for the parser. A trace recorded with stacks
// has its frame lines hidden from it (see stacks.go); with progress not
// nil, reading a single file shows a bar there.
func openParser(path string, opt parser.Options, progress io.Writer) (parser.Stream, error) {
	stacked := hasStacks(path)
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || !stacked && progress == nil {
		return parser.Open(path, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var r io.Reader = f
	if stacked {
		r = &stackBlanker{r: r, start: true}
	}
	var p *progressReader
	if progress != nil {
		p = newProgress(r, fi.Size(), progress, "crashsim: reading "+filepath.Base(path))
		r = p
	}
	s := parser.NewReader(readCloser{r, f}, path, opt)
	if p != nil {
		return progressStream{s, p}, nil
	}
	return s, nil
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
