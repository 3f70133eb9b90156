package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// inputs are the library's inputs for traces this run reads (see reading).
func (g *Globals) inputs(traces ...string) crashsim.Inputs {
	return g.reading(crashsim.Inputs{Traces: traces})
}

// reading gives inputs how this run reads traces: the parser's warnings
// (and with -v its diagnostics) on stderr, --max-line, and g.open.
func (g *Globals) reading(in crashsim.Inputs) crashsim.Inputs {
	in.Open = g.open
	in.Arch = parser.Arch(g.Arch)
	in.Parse.Warn = func(pos parser.Pos, msg string) { fmt.Fprintf(g.stderr, "%s: warning: %s\n", pos, msg) }
	in.Parse.MaxLine = int(g.MaxLine)
	if g.Verbose {
		in.Parse.Diag = func(pos parser.Pos, text string) { fmt.Fprintf(g.stderr, "%s: %s\n", pos, text) }
	}
	return in
}

// modelArgs says which argument positions a reading for the model alone
// (check, states) decodes; a variable so that a test can compare with
// decoding everything (nil).
var modelArgs = model.ArgPositions

// pipelined says whether traces are parsed on a goroutine of their own; a
// variable so that a test can compare with reading on one.
var pipelined = true

// open opens a trace for the library. It is parsed on a goroutine of its
// own (parser.Pipeline), unless nothing is decoded and so nothing
// overlaps; warnings still come out on the caller's goroutine, at the
// point of the trace they belong to. Reading a large trace shows progress
// on stderr when it is a terminal (or with --progress).
func (g *Globals) open(path string, opt parser.Options) (parser.Stream, error) {
	if opt.DecodePositions != nil {
		opt.DecodePositions = modelArgs
	}
	var progress *progressTo
	if live := isTerminal(g.stderr); live || g.Progress {
		progress = &progressTo{g.stderr, live}
	}
	open := func(opt parser.Options) (parser.Stream, error) { return openParser(path, opt, progress) }
	var s parser.Stream
	var err error
	if pipelined && !opt.DecodeNone {
		s, err = parser.Pipeline(opt, open)
	} else {
		s, err = open(opt)
	}
	if err != nil {
		return nil, err
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
	f, err := inputfile.Open(path, inputfile.Named)
	if err != nil {
		return nil, err
	}
	p := newProgress(f, fi.Size(), progress.w, progress.live, "crashsim: reading "+filepath.Base(path))
	return progressSource{parser.NewReader(readCloser{p, f}, path, opt), p}, nil
}

// inputFlags are the flags of every command that reads a trace.
type inputFlags struct {
	MaxLine lineLimit `name:"max-line" default:"64MiB" help:"Refuse a trace line longer than this (bytes, or with a K, M or G suffix): it bounds the memory a trace can take. Raise it for traces recorded with a very large -s."`
	Arch    archFlag  `name:"arch" placeholder:"ARCH" help:"The architecture the trace was recorded on: amd64, arm64 or 386. It decides what flags printed as numbers mean (-X raw, -e raw=: 0x4000 is O_DIRECT on amd64, O_DIRECTORY on arm64). Default: what TRACE.initial says (crashsim trace writes it), else what the trace shows (calls only x86 has, such as arch_prctl), else amd64's values, and a blind-unknown-arch warning where that guess decides something."`
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
