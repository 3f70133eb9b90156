package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/progress"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// inputs are the library's inputs for traces this run reads (see reading).
func (g *Globals) inputs(traces ...string) crashsim.Inputs {
	return g.reading(crashsim.Inputs{Traces: crashsim.JoinSets(traces)})
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

// pipelined says whether traces are parsed on a goroutine of their own
// (crashsim.Reading); a variable so that a test can compare with reading
// on one.
var pipelined = true

// progressDelay is how long reading a trace runs before progress shows.
var progressDelay = time.Second

// open opens a trace for the library: the positions a reading for the
// model decodes are modelArgs, and reading a large trace shows progress
// on stderr when it is a terminal (or with --progress).
func (g *Globals) open(path string, opt parser.Options) (parser.Stream, error) {
	if opt.DecodePositions != nil {
		opt.DecodePositions = modelArgs
	}
	r := crashsim.Reading{Pipeline: pipelined, Delay: progressDelay}
	if live := progress.Terminal(g.stderr); live || g.Progress {
		r.Progress, r.Live = g.stderr, live
	}
	st, err := r.Open(path, opt)
	if err != nil && !strings.ContainsRune(path, '/') {
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			if _, lerr := exec.LookPath(path); lerr == nil {
				// check -- sed -i ... : a program named where a trace goes.
				err = fmt.Errorf("%w; %s is a program: crashsim trace -- %s ... records and checks it, crashsim explore -- %s ... runs it for a checker", err, path, path, path)
			}
		}
	}
	return st, err
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
	n, err := parser.ParseMaxLine(string(b))
	if err != nil {
		return fmt.Errorf("--max-line %w", err)
	}
	*l = lineLimit(n)
	return nil
}
