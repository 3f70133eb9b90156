package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

type statesCmd struct {
	Model       string   `enum:"posix,ext4,xfs,btrfs" default:"posix" help:"Persistence model: posix (the weakest promise), ext4 (data=ordered), xfs or btrfs."`
	Root        []string `placeholder:"DIR" help:"Only paths below DIR (repeatable). Default: every path but /proc, /sys, /dev, /acct, /run and /dev/shm (a root below /run puts it back)."`
	Ignore      []string `placeholder:"GLOB" help:"Leave out paths matching GLOB (repeatable): ** crosses directories; matched against the whole path, the path relative to its root (or the start directory), and a GLOB without / against the base name."`
	At          string   `placeholder:"[FILE:]LINE" help:"Show only the crash point after the event that ends on trace line LINE, with every state explored. In an strace -ff set, whose files each number their own lines, FILE:LINE picks one file's line as the timeline prints it (trace.14083:180)."`
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
	p, err := model.ParsePersistence(c.Model)
	if err != nil {
		return withCode(exitUsage, err)
	}
	in := g.inputs(c.Trace)
	in.Listing, in.Cwd = c.InitialList, c.Cwd
	rp := crashsim.Replay{Inputs: in, Scope: crashsim.Scope{Roots: c.Root, Ignore: c.Ignore}, Persistence: p, MaxStates: c.MaxStates, AcceptBlind: c.AcceptBlind}
	if c.Format == "html" {
		return c.runHTML(g, rp)
	}
	if c.Output != "" {
		return withCode(exitUsage, errors.New("-o is for --format html; text and json go to stdout"))
	}
	var at crashsim.At
	if c.At != "" {
		if at, err = crashsim.ParseAt(c.At); err != nil {
			return err
		}
	}
	sopt := report.StatesOptions{Trace: c.Trace, Model: p.String(), Roots: c.Root, At: at.Line, AtFile: at.File, AllPaths: c.AllPaths}
	done, err := rp.WriteTimeline(g.stdout, g.stderr, sopt, c.Format == "json")
	if err != nil {
		return err
	}
	if len(done.AtFiles) > 1 {
		names := make([]string, len(done.AtFiles))
		for i, f := range done.AtFiles {
			names[i] = textesc.Escape(filepath.Base(f)) // as the timeline prints it
		}
		fmt.Fprintf(g.stderr, "crashsim: --at %d matched line %d of %d files of the -ff set (%s), each with its own point above; --at %s:%d shows one\n", at.Line, at.Line, len(names), strings.Join(names, ", "), names[0], at.Line)
	}
	report.BlindSpots(g.stderr, done.Warnings)
	return blindExit(done.Warnings)
}

// runHTML is `crashsim states --format html`: the timeline with no
// findings computed. The blind spots are worked out in a reading of their
// own, so that the page says them at its top.
func (c *statesCmd) runHTML(g *Globals, rp crashsim.Replay) error {
	res, err := rp.StatesPage()
	if err != nil {
		return err
	}
	meta := report.HTMLMeta{Command: "states", Trace: c.Trace, Model: rp.Persistence.String(), Models: []string{rp.Persistence.String()}}
	if err := writeHTML(g, rp, meta, res, c.Output); err != nil {
		return err
	}
	report.BlindSpots(g.stderr, res.Warnings)
	return blindExit(res.Warnings)
}
