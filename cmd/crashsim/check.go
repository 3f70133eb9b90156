package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
	"golang.org/x/sys/unix"
)

// spillAt is how many findings a check keeps in memory before the rest
// go to a temp file (check.Options.SpillAt); tests make it tiny.
var spillAt = check.DefaultSpillAt

// checkFlags are shared by every command that reports findings.
type checkFlags struct {
	Format      string   `enum:"text,json,sarif,html" default:"text" help:"Output format: text, json, sarif or html (one self-contained page: a timeline of the trace, its crash points and findings; give -o FILE)."`
	Model       []string `enum:"posix,ext4,xfs,btrfs" default:"posix" help:"Persistence model(s) to report: posix (the weakest promise, default), ext4 (data=ordered), xfs or btrfs. Repeat for several."`
	Root        []string `placeholder:"DIR" help:"Only files below DIR are in scope (repeatable). Default: for trace, the directory the command starts in; for check, every file but /proc, /sys, /dev and tmpfs (/run and /dev/shm in a saved trace; a root below /run puts it back)."`
	Ignore      []string `placeholder:"GLOB" help:"Leave out paths matching GLOB, matched against the whole path and the base name (repeatable)."`
	FailOn      string   `enum:"error,warning,info,never" default:"warning" help:"Exit 1 when a finding is at least this severe: error, warning, info or never."`
	Output      string   `short:"o" placeholder:"FILE" help:"Write the report to FILE (atomically: temp file, fsync, rename, directory fsync) instead of stdout."`
	Baseline    string   `placeholder:"REPORT" help:"A JSON or SARIF report of an earlier run: report, and fail on, only findings not in it."`
	InitialList string   `name:"initial-list" placeholder:"FILE" help:"A listing of what existed before the trace (see README). Default: TRACE.initial when it exists, as crashsim trace writes it."`
	AcceptBlind []string `name:"accept-blind" placeholder:"ID" help:"Accept a known blind spot (blind-raw-args, blind-unfollowed-children, ...; repeatable): it is still reported, but no longer makes the run exit 6."`

	// cwd is where a traced command started, for traces without -y whose
	// listing does not say it (see model.Options.Cwd).
	cwd string
	// cwdGiven is set when the user gave --cwd: it wins over a listing's.
	cwdGiven bool
	// mounts are the filesystems of this machine, for trace (paths on
	// tmpfs and ramfs are out of scope); nil for saved traces.
	mounts []check.Mount
	// evaluated is how many persistence models the findings were computed
	// under, when a command evaluates fewer than all (explore): a finding
	// under fewer models than that says which.
	evaluated int
	// bases are the directories traced paths are named relative to in
	// fingerprints: the roots, then each trace's start directory.
	bases []string
	// exitAs, when not 0, is the status crashsim exits with whatever the
	// findings (trace: the program failed), for SARIF's invocation.
	exitAs int
	// shard marks the report of one explore --shard I/N ("I/N").
	shard string
	// traces and command are what an HTML report draws and names.
	traces  []string
	command string
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
const exitStatusHelp = `Exit status: 0 nothing at or above --fail-on and no blind spot; 1 findings at or above --fail-on; 2 usage error; 3 input error (unreadable or unparseable trace); 6 no such finding, but the recording has a blind spot that could hide a loss (accept a known one with --accept-blind ID).`

func (c *checkCmd) Run(g *Globals) error {
	if c.Cwd != "" {
		abs, err := filepath.Abs(c.Cwd)
		if err != nil {
			return withCode(exitUsage, err)
		}
		c.checkFlags.cwd, c.checkFlags.cwdGiven = abs, true
	}
	c.checkFlags.command = "check"
	res, err := c.checkFlags.run(g, c.Traces)
	if err != nil {
		return err
	}
	defer res.Close()
	return c.checkFlags.report(g, res)
}

// run checks each trace and joins the results.
func (f *checkFlags) run(g *Globals, traces []string) (*check.Result, error) {
	var models []model.Persistence
	for _, m := range f.Model {
		p, err := model.ParsePersistence(m)
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		models = append(models, p)
	}
	if err := checkAccepted(f.AcceptBlind); err != nil {
		return nil, err
	}
	if err := f.checkIgnores(); err != nil {
		return nil, err
	}
	// Ignored paths stay in scope and their findings are counted, then
	// left out (filter.go).
	opt := check.Options{Models: models, Mounts: f.mounts, SpillAt: spillAt}
	if len(f.mounts) == 0 {
		opt.LikelyVolatile = check.LikelyVolatile
	}
	for _, r := range f.Root {
		opt.Roots = append(opt.Roots, r)
		if abs, err := filepath.Abs(r); err == nil && abs != r {
			opt.Roots = append(opt.Roots, abs)
		}
	}
	total := &check.Result{Models: check.Evaluated(models)}
	f.traces = traces
	ok := false
	defer func() {
		if !ok {
			total.Close()
		}
	}()
	for _, t := range traces {
		o := opt
		initial, err := f.initial(g, t)
		if err != nil {
			return nil, err
		}
		o.Cwd = f.cwd
		if initial != nil {
			o.Existed = initial.Existed
			if initial.Cwd != "" && !f.cwdGiven {
				o.Cwd = initial.Cwd
			}
			o.FDs = initial.FDs
		}
		f.addBase(o.Cwd)
		stream, err := openModelTrace(t, g)
		if err != nil {
			return nil, err
		}
		res, err := check.Run(stream, o)
		stream.Close()
		if err != nil {
			return nil, inputError(err)
		}
		total.Append(res)
		total.Summary.Events += res.Summary.Events
		total.Summary.Files += res.Summary.Files
		total.Summary.Errors += res.Summary.Errors
		total.Summary.Warnings += res.Summary.Warnings
		total.Summary.Infos += res.Summary.Infos
		if g.Verbose {
			fmt.Fprintf(g.stderr, "crashsim: %s: recording: %s\n", t, res.Recording)
		}
		total.Warnings = append(total.Warnings, res.Warnings...)
		total.Notes = append(total.Notes, res.Notes...)
	}
	markAccepted(total.Warnings, f.AcceptBlind)
	if total.Spilled() {
		// The models are garbage now, but the heap goal was set while
		// they were live: without a collection here, reading a million
		// findings back lets the heap grow to twice the models' size.
		runtime.GC()
	}
	ok = true
	return total, nil
}

// checkAccepted rejects an --accept-blind ID that names no blind spot.
func checkAccepted(ids []string) error {
	for _, id := range ids {
		if _, ok := check.LookupBlind(id); !ok {
			var all []string
			for _, b := range check.BlindSpots() {
				all = append(all, b.ID)
			}
			return withCode(exitUsage, fmt.Errorf("--accept-blind %s: no such blind spot (%s)", id, strings.Join(all, ", ")))
		}
	}
	return nil
}

// markAccepted marks the blind spots the user accepted with --accept-blind.
func markAccepted(ws []check.BlindWarning, ids []string) {
	for i := range ws {
		for _, id := range ids {
			if ws[i].ID == id {
				ws[i].Accepted = true
			}
		}
	}
}

// blindExit is the exit status for blind spots left once findings did not
// fail the run: exitBlind when one is not accepted.
func blindExit(ws []check.BlindWarning) error {
	for _, w := range ws {
		if !w.Accepted {
			return withCode(exitBlind, nil)
		}
	}
	return nil
}

// initial reads the listing of what existed before the trace: the one
// --initial-list names, or TRACE.initial beside the trace. The
// architecture it names is kept for the parser of that trace (see
// Globals.archOf).
func (f *checkFlags) initial(g *Globals, trace string) (*model.Listing, error) {
	name := f.InitialList
	if name == "" {
		name = trace + ".initial"
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, withCode(exitInput, fmt.Errorf("cannot read the initial listing: %w", err))
	}
	defer file.Close()
	in, err := model.ReadInitial(bufio.NewReader(file), name)
	if err != nil {
		return nil, withCode(exitInput, err)
	}
	g.noteArch(trace, in.Arch)
	return in, nil
}

// report renders the result and maps findings to the exit status.
func (f *checkFlags) report(g *Globals, res *check.Result) error {
	all := len(res.Models)
	if f.evaluated > 0 {
		all = f.evaluated
	}
	report.BlindSpots(g.stderr, res.Warnings)
	threshold, err := check.ParseSeverity(f.FailOn)
	if err != nil {
		return withCode(exitUsage, err)
	}
	opt := report.Options{Models: f.Model, AllModels: all, Tool: buildTool(), Shard: f.shard}
	if err := f.identify(g, res, &opt); err != nil {
		return err
	}
	if err := f.filter(g, res, &opt); err != nil {
		return err
	}
	code := exitOK
	if res.AtLeast(threshold) {
		code = exitFindings
	}
	if code == exitOK && blindExit(res.Warnings) != nil {
		code = exitBlind
	}
	if f.exitAs != 0 {
		code = f.exitAs
	}
	opt.ExitCode = code
	if f.Format == "html" {
		if err := f.html(g, res); err != nil {
			return err
		}
		return reportExit(code, res)
	}
	render := func(w io.Writer, color bool) error {
		opt.Color = color
		switch f.Format {
		case "json":
			return report.JSON(w, res, opt)
		case "sarif":
			return report.SARIF(w, res, opt)
		}
		return report.Text(w, res, opt)
	}
	if f.Output != "" {
		err := report.WriteFileAtomic(f.Output, func(file *os.File) error {
			bw := bufio.NewWriter(file)
			if err := render(bw, false); err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return withCode(exitInput, fmt.Errorf("write %s: %w", f.Output, err))
		}
	} else {
		bw := bufio.NewWriter(g.stdout)
		if err := render(bw, isTerminal(g.stdout)); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return reportExit(code, res)
}

// reportExit is the error that gives a report's exit status: findings,
// else its blind spots. A program's failure (trace) is returned by the
// caller.
func reportExit(code int, res *check.Result) error {
	if code == exitFindings {
		return withCode(exitFindings, nil)
	}
	return blindExit(res.Warnings)
}

// isTerminal reports whether w is a terminal that wants colour.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
