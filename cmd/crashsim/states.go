package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

type statesCmd struct {
	Model       string   `enum:"posix,ext4,xfs,btrfs" default:"posix" help:"Persistence model: posix (the weakest promise), ext4 (data=ordered), xfs or btrfs."`
	Root        []string `placeholder:"DIR" help:"Only paths below DIR (repeatable). Default: every path but /proc, /sys, /dev, /run and /dev/shm (a root below /run puts it back)."`
	Ignore      []string `placeholder:"GLOB" help:"Leave out paths matching GLOB (repeatable)."`
	At          int      `placeholder:"LINE" help:"Show only the crash point after the event on trace line LINE, with every state explored."`
	MaxStates   int      `name:"max-states" default:"65536" help:"Explore at most this many states per path and crash point (files with more than 16 pending operations are sampled: prefixes, one operation omitted, torn writes)."`
	Format      string   `enum:"text,json,html" default:"text" help:"Output format: text (a timeline), json, or html (one self-contained page; give -o FILE)."`
	Output      string   `short:"o" placeholder:"FILE" help:"Write the html report to FILE (atomically) instead of stdout."`
	AllPaths    bool     `name:"all-paths" help:"With --format json: list every path in scope at every crash point, not only the paths each event changed (output grows with files times points)."`
	InitialList string   `name:"initial-list" placeholder:"FILE" help:"A listing of what existed before the trace. Default: TRACE.initial when it exists."`
	Cwd         string   `placeholder:"DIR" help:"The directory the traced program started in, for relative paths in a trace recorded without -y."`
	AcceptBlind []string `name:"accept-blind" placeholder:"ID" help:"Accept a known blind spot (repeatable): it is still reported, but no longer makes the run exit 6."`
	Trace       string   `arg:"" help:"strace log, or the PREFIX of an strace -ff set."`
}

// Help is the detail under `crashsim states --help`.
func (c *statesCmd) Help() string {
	return `Replays the trace and prints, after each event that changes what a crash could leave, the outcomes the paths it changed can have (missing, initial, latest, earlier, empty, torn, zeros), and how many other paths in scope keep theirs. --format json --all-paths lists every path at every crash point. Blind spots of the recording (see crashsim check --help) are said on stderr.

Exit status: 0 the timeline was printed and the trace has no blind spot; 2 usage error; 3 input error; 6 the trace has a blind spot that could hide a loss (accept a known one with --accept-blind ID).`
}

func (c *statesCmd) Run(g *Globals) error {
	if c.AllPaths && c.Format != "json" {
		return withCode(exitUsage, errors.New("--all-paths is for --format json; the text timeline prints the paths that change and counts the others"))
	}
	if c.Format == "html" {
		return c.runHTML(g)
	}
	if c.Output != "" {
		return withCode(exitUsage, errors.New("-o is for --format html; text and json go to stdout"))
	}
	p, scope, opt, err := c.setup(g)
	if err != nil {
		return err
	}
	watch := check.NewWatcher(scope)
	stream, err := openModelTrace(c.Trace, g)
	if err != nil {
		return err
	}
	defer stream.Close()
	opt.Observe = watch.ObserveEffect // a shared writable mapping is a blind spot
	tl := model.NewTimeline(opt, scope.InScope, c.MaxStates)

	// Nothing reaches stdout before the first event has been read, and
	// what is still buffered when the trace turns out bad is dropped: a
	// bad trace gives an error, not a header and then an error.
	sent := &countingWriter{w: g.stdout}
	w := bufio.NewWriterSize(sent, 64<<10)
	sopt := report.StatesOptions{Trace: c.Trace, Model: p.String(), Roots: c.Root, At: c.At, AllPaths: c.AllPaths}
	out := report.StatesText(w, sopt)
	if c.Format == "json" {
		out = report.StatesJSON(w, sopt)
	}
	begun := false
	atFound, lastLine := false, 0
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if sent.n > 0 {
				// The output was too long to hold: say where it stops.
				w.Flush()
				fmt.Fprintln(g.stderr, "crashsim: the crash states printed above stop before the bad line")
			}
			return inputError(err)
		}
		watch.Observe(ev)
		lastLine = max(lastLine, ev.EndLine)
		if !begun {
			begun = true
			out.Begin()
			if c.At == 0 {
				out.Point(tl.Start())
			}
		}
		pt, ok := tl.Step(ev)
		if !ok {
			out.Skip(ev)
			continue
		}
		if c.At == 0 || ev.Pos.Line == c.At || ev.EndLine == c.At {
			atFound = true
			out.Point(pt)
		}
	}
	if !begun {
		out.Begin()
		if c.At == 0 {
			out.Point(tl.Start())
		}
	}
	warnings, notes := watch.Finish()
	markAccepted(warnings, c.AcceptBlind)
	out.End(warnings, notes)
	if err := w.Flush(); err != nil {
		return err
	}
	if c.At > 0 && !atFound {
		if c.At > lastLine {
			return withCode(exitUsage, fmt.Errorf("--at %d: past the end of the trace (its last event ends on line %d)", c.At, lastLine))
		}
		return withCode(exitUsage, fmt.Errorf("--at %d: no call crashsim models ends on that line, so no crash point follows it", c.At))
	}
	report.BlindSpots(g.stderr, warnings)
	return blindExit(warnings)
}

// countingWriter counts the bytes that went through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func absRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		out = append(out, r)
		if abs, err := filepath.Abs(r); err == nil && abs != r {
			out = append(out, abs)
		}
	}
	return out
}

// setup reads what a states run needs from its flags: the model, the
// scope, and the model's options from the listing and --cwd.
func (c *statesCmd) setup(g *Globals) (model.Persistence, *check.Options, model.Options, error) {
	p, err := model.ParsePersistence(c.Model)
	if err != nil {
		return p, nil, model.Options{}, withCode(exitUsage, err)
	}
	flags := checkFlags{InitialList: c.InitialList}
	listing, err := flags.initial(g, c.Trace)
	if err != nil {
		return p, nil, model.Options{}, err
	}
	if err := checkAccepted(c.AcceptBlind); err != nil {
		return p, nil, model.Options{}, err
	}
	scope := &check.Options{Roots: absRoots(c.Root), Ignore: c.Ignore, LikelyVolatile: check.LikelyVolatile}
	opt := model.Options{Persistence: p}
	if listing != nil {
		opt.Existed, opt.Cwd, opt.FDs = listing.Existed, listing.Cwd, listing.FDs
	}
	if c.Cwd != "" {
		abs, err := filepath.Abs(c.Cwd)
		if err != nil {
			return p, nil, model.Options{}, withCode(exitUsage, err)
		}
		opt.Cwd = abs
	}
	scope.Cwd, scope.FDs = opt.Cwd, opt.FDs
	return p, scope, opt, nil
}
