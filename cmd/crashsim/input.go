package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// openTrace opens a trace and routes the parser's warnings to stderr.
// Reading a large trace shows progress on stderr when it is a terminal
// (or with --progress). Every call's arguments are decoded. The trace is
// parsed on a goroutine of its own (parser.Pipeline); warnings still come
// out on the caller's goroutine, at the point of the trace they belong to.
func openTrace(path string, g *Globals) (parser.Stream, error) {
	return openTraceArgs(path, g, nil)
}

// openParseOnly opens a trace for a caller that only counts its events:
// every call's arguments are scanned past (no call is decoded, but every
// line is still read, and a line that does not read is still an error),
// and there is no second goroutine, as the caller does nothing to overlap.
// parser.Skip passes most lines without building an event.
func openParseOnly(path string, g *Globals) (parser.Stream, error) {
	return openTraceWith(path, g, parser.Options{DecodeNone: true}, false)
}

// modelArgs says which argument positions of each call a command that
// only models the trace (check, states) needs decoded; the others are
// scanned past. A variable so that a test can compare with decoding
// everything.
var modelArgs = model.ArgPositions

// openModelTrace opens a trace for a command whose output comes from the
// model and the checks alone, decoding only the arguments they read.
func openModelTrace(path string, g *Globals) (parser.Stream, error) {
	return openTraceArgs(path, g, modelArgs)
}

// openTraceArgs is openTrace decoding the argument positions decode keeps
// (all when nil).
func openTraceArgs(path string, g *Globals, decode func(string) parser.ArgSet) (parser.Stream, error) {
	return openTraceWith(path, g, parser.Options{DecodePositions: decode}, true)
}

// pipelined says whether commands parse on a goroutine of their own; a
// variable so that a test can compare with reading on one.
var pipelined = true

// openTraceWith is openTraceArgs decoding what opt says, on a parsing
// goroutine of its own when pipe is set.
func openTraceWith(path string, g *Globals, opt parser.Options, pipe bool) (parser.Stream, error) {
	opt.Warn = func(pos parser.Pos, msg string) { fmt.Fprintf(g.stderr, "%s: warning: %s\n", pos, msg) }
	opt.MaxLine = int(g.MaxLine)
	if g.Verbose {
		opt.Diag = func(pos parser.Pos, text string) { fmt.Fprintf(g.stderr, "%s: %s\n", pos, text) }
	}
	var progress *progressTo
	if live := isTerminal(g.stderr); live || g.Progress {
		progress = &progressTo{g.stderr, live}
	}
	open := func(opt parser.Options) (parser.Stream, error) { return openParser(path, opt, progress) }
	var s parser.Stream
	var err error
	if pipe && pipelined {
		s, err = parser.Pipeline(opt, open)
	} else {
		s, err = open(opt)
	}
	if err != nil {
		return nil, inputError(err)
	}
	if p, ok := progressOf(s); ok {
		// Progress is shown from the caller's goroutine, between events,
		// never from the one that reads the file.
		s = &progressStream{Stream: s, p: p}
	}
	return s, nil
}

// progressTo is where reading shows progress, and whether it is a
// terminal.
type progressTo struct {
	w    io.Writer
	live bool
}

// openParser opens a trace for the parser; with progress not nil, reading
// a single file shows how far it has got there.
func openParser(path string, opt parser.Options, progress *progressTo) (parser.Stream, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || progress == nil {
		return parser.Open(path, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p := newProgress(f, fi.Size(), progress.w, progress.live, "crashsim: reading "+filepath.Base(path))
	return progressSource{parser.NewReader(readCloser{p, f}, path, opt), p}, nil
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

// inputFlags are the flags of every command that reads a trace.
type inputFlags struct {
	MaxLine lineLimit `name:"max-line" default:"64MiB" help:"Refuse a trace line longer than this (bytes, or with a K, M or G suffix): it bounds the memory a trace can take. Raise it for traces recorded with a very large -s."`
}

// lineLimit is a size in bytes written as 1048576, 512K, 64M, 64MiB or 1G.
type lineLimit int

func (l *lineLimit) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	num := strings.TrimRight(s, "KMGiBkmgb")
	unit := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(s[len(num):], "B"), "i"))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("--max-line %q: want a positive size such as 64M or 1G", s)
	}
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30}[unit]
	if _, ok := map[string]bool{"": true, "K": true, "M": true, "G": true}[unit]; !ok {
		return fmt.Errorf("--max-line %q: the unit must be K, M or G", s)
	}
	if n > (1<<40)>>shift {
		return fmt.Errorf("--max-line %q: at most 1T", s)
	}
	*l = lineLimit(n << shift)
	return nil
}
