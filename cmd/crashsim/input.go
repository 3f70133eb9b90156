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
	opt.Arch = g.archOf(path)
	opt.Warn = func(pos parser.Pos, msg string) { fmt.Fprintf(g.stderr, "%s: warning: %s\n", pos, msg) }
	opt.MaxLine = int(g.MaxLine)
	if g.Verbose {
		opt.Diag = func(pos parser.Pos, text string) { fmt.Fprintf(g.stderr, "%s: %s\n", pos, text) }
	}
	var progress io.Writer
	if g.Progress || isTerminal(g.stderr) {
		progress = g.stderr
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
		// The bar is drawn from the caller's goroutine, between events,
		// never from the one that reads the file.
		s = &progressStream{Stream: s, p: p}
	}
	return s, nil
}

// openParser opens a trace for the parser; with progress not nil, reading
// a single file shows a bar there.
func openParser(path string, opt parser.Options, progress io.Writer) (parser.Stream, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || progress == nil {
		return parser.Open(path, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p := newProgress(f, fi.Size(), progress, "crashsim: reading "+filepath.Base(path))
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
func startProcs(g *Globals, trace string) *model.Procs {
	l, err := (&checkFlags{}).initial(g, trace)
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
	Arch    archFlag  `name:"arch" placeholder:"ARCH" help:"The architecture the trace was recorded on: amd64, arm64 or 386. It decides what flags printed as numbers mean (-X raw, -e raw=: 0x4000 is O_DIRECT on amd64, O_DIRECTORY on arm64). Default: what TRACE.initial says (crashsim trace writes it), else what the trace shows (calls only x86 has, such as arch_prctl), else amd64's values, and a blind-unknown-arch warning where that guess decides something."`

	// listingArch is the architecture each trace's listing names (see
	// checkFlags.initial).
	listingArch map[string]parser.Arch
}

// archFlag is --arch: an architecture by its Go or uname -m name.
type archFlag parser.Arch

func (a *archFlag) UnmarshalText(b []byte) error {
	arch, err := parser.ParseArch(string(b))
	if err != nil {
		return err // kong names the flag
	}
	*a = archFlag(arch)
	return nil
}

// noteArch keeps the architecture a trace's listing names.
func (f *inputFlags) noteArch(trace string, a parser.Arch) {
	if f.listingArch == nil {
		f.listingArch = map[string]parser.Arch{}
	}
	f.listingArch[trace] = a
}

// archOf is the architecture to read a trace with: --arch, else what its
// listing names, else Unknown (the trace may tell; see parser.Options.Arch).
func (f *inputFlags) archOf(trace string) parser.Arch {
	if f.Arch != 0 {
		return parser.Arch(f.Arch)
	}
	return f.listingArch[trace]
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
