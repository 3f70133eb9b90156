package main

import (
	"fmt"
	"io"
	"os"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/phases"
	"github.com/crashsim/crashsim/internal/progress"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/report/wire"
)

// spillAt is how many findings a check keeps in memory before the rest
// go to a temp file (check.Options.SpillAt); tests make it tiny.
var spillAt = check.DefaultSpillAt

// checkFlags are shared by every command that reports findings.
type checkFlags struct {
	Format      string   `enum:"text,json,sarif,html" default:"text" help:"Output format: text, json, sarif or html (one self-contained page: a timeline of the trace, its crash points and findings; give -o FILE)."`
	Model       []string `enum:"posix,ext4,xfs,btrfs" default:"posix" help:"Persistence model(s) to report: posix (the weakest promise, default), ext4 (data=ordered), xfs or btrfs. Repeat for several."`
	Root        []string `placeholder:"DIR" help:"Only files below DIR are in scope (repeatable). Default: for trace, the directory the command starts in; for a trace crashsim trace recorded, the roots it used (the scope lines of TRACE.initial); else every file but /proc, /sys, /dev, /acct and tmpfs (/run and /dev/shm in a saved trace; a root below /run puts it back)."`
	Ignore      []string `placeholder:"GLOB" help:"Leave out paths matching GLOB (repeatable): ** crosses directories; matched against the whole path, the path relative to its root (or the start directory), and a GLOB without / against the base name."`
	FailOn      string   `enum:"error,warning,info,never" default:"warning" help:"Exit 1 when a problem is at least this severe (a problem is as severe as its worst finding): error, warning, info or never."`
	Output      string   `short:"o" placeholder:"FILE" help:"Write the report to FILE instead of stdout, atomically: an interrupted run leaves FILE as it was (an unnamed file, fsync, linked or renamed into place, directory fsync)."`
	Baseline    string   `placeholder:"REPORT" help:"A JSON or SARIF report of an earlier run: report, and fail on, only problems not in it."`
	InitialList string   `name:"initial-list" placeholder:"FILE" help:"A listing of what existed before the trace (see docs/check.md). Default: TRACE.initial when it exists, as crashsim trace writes it."`
	AcceptBlind []string `name:"accept-blind" placeholder:"ID" help:"Accept a known blind spot (blind-raw-args, blind-unfollowed-children, ...; repeatable): it is still reported, but no longer makes the run exit 6."`

	// baseline is --baseline, read (beforeRun, or report when a trace
	// is checked), so that it is read once.
	baseline crashsim.Baseline
}

// readBaseline reads --baseline once, keeping it.
func (f *checkFlags) readBaseline() (crashsim.Baseline, error) {
	if f.Baseline == "" || f.baseline != nil {
		return f.baseline, nil
	}
	b, err := crashsim.ReadBaseline(f.Baseline)
	f.baseline = b
	return b, err
}

// reporting is what a command that reports findings read, and how it
// reports them beyond its flags.
type reporting struct {
	command string          // names the command on the HTML page
	inputs  crashsim.Inputs // the traces and where they began (the HTML page replays them)
	scope   crashsim.Scope  // roots, and ignore globs of flags and config
	// evaluated is how many persistence models the findings were computed
	// under when fewer than all (explore: 1): a finding under fewer says
	// which.
	evaluated int
	// exitAs, when not 0, is the status crashsim exits with whatever the
	// findings (trace: the program failed), for SARIF's invocation.
	exitAs int
	shard  string // "I/N" for the report of one explore --shard
	// run is an explore run's identity, which its shards share.
	run *wire.RunID
	// explored is explore's account of the states it built, for the JSON
	// report.
	explored *wire.Explore
}

type checkCmd struct {
	checkFlags
	Cwd    string   `placeholder:"DIR" help:"The directory the traced program started in, for relative paths in a trace recorded without -y (and without a listing that says it)."`
	Traces []string `arg:"" name:"trace" help:"strace logs (or PREFIXes of strace -ff sets)."`
}

// Help is the detail under `crashsim check --help`.
func (c *checkCmd) Help() string {
	return `Reads each trace, replays it through the page-cache model under every persistence model, and reports what a crash at any moment could lose. It also works out from the trace what the recording could not show (blind spots: -e raw=, -Z, -z, a syscall filter, no -f, relative paths with no known start directory, a --root that matched nothing) and says each on stderr with the flag that fixes it.

` + exitStatusHelp
}

// exitStatusHelp is the exit status of the commands that judge a trace.
const exitStatusHelp = `Exit status: 0 nothing at or above --fail-on and no blind spot; 1 problems at or above --fail-on; 2 usage error; 3 input error (unreadable or unparseable trace); 6 no such problem, but the recording has a blind spot that could hide a loss (accept a known one with --accept-blind ID).`

func (c *checkCmd) Run(g *Globals) error {
	in := g.inputs(c.Traces...)
	in.Listing, in.Cwd = c.InitialList, c.Cwd
	return c.checkFlags.run(g, reporting{command: "check", inputs: in, scope: c.scope(g, c.Root)})
}

// scope is the scope of the flags and the config: roots, and the ignore
// globs of both.
func (f *checkFlags) scope(g *Globals, roots []string) crashsim.Scope {
	sc := crashsim.Scope{Roots: roots, Ignore: f.Ignore}
	if g.cfg != nil {
		sc.Ignore = append(append([]string{}, f.Ignore...), g.cfg.Ignore...)
	}
	return sc
}

// run checks the traces and reports the result.
func (f *checkFlags) run(g *Globals, r reporting) error {
	models, err := parseModels(f.Model)
	if err != nil {
		return err
	}
	if err := (crashsim.Filter{Ignore: f.Ignore}).Validate(); err != nil {
		return err
	}
	// A --baseline that cannot be read is said before the traces are
	// read, not after a check of every byte of them and its warnings.
	if _, err := f.readBaseline(); err != nil {
		return err
	}
	// Ignored paths stay in scope and their findings are counted, then
	// left out (Result.Filter).
	c := crashsim.Check{Inputs: r.inputs, Scope: crashsim.Scope{Roots: r.scope.Roots}, Models: models, AcceptBlind: f.AcceptBlind, SpillAt: spillAt}
	if g.Verbose {
		c.Recording = func(trace, what string) {
			fmt.Fprintf(g.stderr, "crashsim: %s: recording: %s\n", textesc.Escape(trace), what)
		}
	}
	res, err := c.Run()
	if err != nil {
		return err
	}
	defer res.Close()
	return f.report(g, res, r)
}

func parseModels(names []string) ([]model.Persistence, error) {
	var out []model.Persistence
	for _, m := range names {
		p, err := model.ParsePersistence(m)
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// report names and filters the result's findings, groups them into
// problems, renders them and maps them to the exit status: problems at or
// above --fail-on, else a blind spot not accepted, unless r.exitAs says
// otherwise.
func (f *checkFlags) report(g *Globals, res *crashsim.Result, r reporting) error {
	all := len(res.Models)
	if r.evaluated > 0 {
		all = r.evaluated
	}
	report.BlindSpots(g.stderr, res.Warnings)
	threshold, err := check.ParseSeverity(f.FailOn)
	if err != nil {
		return withCode(exitUsage, err)
	}
	filter := crashsim.Filter{Ignore: r.scope.Ignore}
	if g.cfg != nil {
		filter.Suppress = g.cfg.Suppress
	}
	if filter.Baseline, err = f.readBaseline(); err != nil {
		return err
	}
	wd, _ := os.Getwd()
	opt, err := res.Report(filter, wd, r.scope.Roots, g.warn)
	if err != nil {
		return err
	}
	opt.Models, opt.AllModels, opt.Tool, opt.Shard, opt.Explore, opt.Config, opt.Run = f.Model, all, crashsim.Tool(), r.shard, r.explored, g.cfgName, r.run
	opt.AllConsequences = g.Verbose
	// The exit status, --fail-on and every renderer count problems: the
	// findings are grouped once, after the filter.
	phases.Mark("the report's options")
	if opt.Problems, err = check.Group(res.Result); err != nil {
		return err
	}
	phases.Mark("group the findings into problems")
	code := exitOK
	switch {
	case opt.Problems.AtLeast(threshold):
		code = exitFindings
	case crashsim.Blind(res.Warnings):
		code = exitBlind
	}
	if r.exitAs != 0 {
		code = r.exitAs
	}
	opt.ExitCode = code
	if f.Format == "html" {
		err = f.html(g, res.Result, r)
	} else {
		err = writeOutput(g, f.Output, func(w io.Writer, color bool) error {
			opt.Color = color
			return report.Render(w, f.Format, res.Result, opt)
		})
	}
	if err != nil {
		return err
	}
	phases.Mark("write the report")
	return reportExit(code, res.Result)
}

// writeOutput writes a report to the file name or, when name is "", to
// stdout (report.Output). A failure to write the file (report.WriteError,
// which names it) exits 3 as every error without a code does; render's
// own error comes back as it is.
func writeOutput(g *Globals, name string, render func(w io.Writer, color bool) error) error {
	return report.Output(g.stdout, progress.Terminal(g.stdout), name, render)
}

// warn says a problem that does not stop the run.
func (g *Globals) warn(err error) { fmt.Fprintf(g.stderr, "crashsim: warning: %v\n", err) }

// reportExit is the error that gives a report's exit status: findings,
// else its blind spots. A program's failure (trace) is returned by the
// caller.
func reportExit(code int, res *check.Result) error {
	if code == exitFindings {
		return withCode(exitFindings, nil)
	}
	return blindExit(res.Warnings)
}

// blindExit is the exit status for blind spots left once findings did not
// fail the run: exitBlind when one is not accepted.
func blindExit(ws []check.BlindWarning) error {
	if crashsim.Blind(ws) {
		return withCode(exitBlind, nil)
	}
	return nil
}
