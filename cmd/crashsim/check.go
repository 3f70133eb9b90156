package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
	"golang.org/x/sys/unix"
)

// checkFlags are shared by every command that reports findings.
type checkFlags struct {
	Format      string   `enum:"text,json,sarif" default:"text" help:"Output format: text, json or sarif."`
	Model       []string `enum:"posix,ext4" default:"posix" help:"Persistence model(s) to report: posix (the weakest promise, default) or ext4 (data=ordered). Repeat for both."`
	Root        []string `placeholder:"DIR" help:"Only files below DIR are in scope (repeatable). Default: every file but /proc, /sys and /dev."`
	Ignore      []string `placeholder:"GLOB" help:"Leave out paths matching GLOB, matched against the whole path and the base name (repeatable)."`
	FailOn      string   `enum:"error,warning,info,never" default:"warning" help:"Exit 1 when a finding is at least this severe: error, warning, info or never."`
	Output      string   `short:"o" placeholder:"FILE" help:"Write the report to FILE (atomically: temp file, fsync, rename, directory fsync) instead of stdout."`
	InitialList string   `name:"initial-list" placeholder:"FILE" help:"A listing of what existed before the trace (see README). Default: TRACE.initial when it exists, as crashsim trace writes it."`

	// cwd is where a traced command started, for traces without -y whose
	// listing does not say it (see model.Options.Cwd).
	cwd string
	// evaluated is how many persistence models the findings were computed
	// under, when a command evaluates fewer than all (explore): a finding
	// under fewer models than that says which.
	evaluated int
	// shard marks the report of one explore --shard I/N ("I/N").
	shard string
}

type checkCmd struct {
	checkFlags
	Traces []string `arg:"" name:"trace" help:"strace logs (or PREFIXes of strace -ff sets)."`
}

func (c *checkCmd) Run(g *Globals) error {
	res, err := c.checkFlags.run(g, c.Traces)
	if err != nil {
		return err
	}
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
	opt := check.Options{Ignore: f.Ignore, Models: models}
	for _, r := range f.Root {
		opt.Roots = append(opt.Roots, r)
		if abs, err := filepath.Abs(r); err == nil && abs != r {
			opt.Roots = append(opt.Roots, abs)
		}
	}
	total := &check.Result{}
	for _, t := range traces {
		o := opt
		initial, err := f.initial(t)
		if err != nil {
			return nil, err
		}
		o.Cwd = f.cwd
		if initial != nil {
			o.Existed = initial.Existed
			if initial.Cwd != "" {
				o.Cwd = initial.Cwd
			}
			o.FDs = initial.FDs
		}
		stream, err := openTrace(t, g)
		if err != nil {
			return nil, err
		}
		res, err := check.Run(stream, o)
		stream.Close()
		if err != nil {
			return nil, inputError(err)
		}
		total.Findings = append(total.Findings, res.Findings...)
		total.Summary.Events += res.Summary.Events
		total.Summary.Files += res.Summary.Files
		total.Summary.Errors += res.Summary.Errors
		total.Summary.Warnings += res.Summary.Warnings
		total.Summary.Infos += res.Summary.Infos
	}
	return total, nil
}

// initial reads the listing of what existed before the trace: the one
// --initial-list names, or TRACE.initial beside the trace.
func (f *checkFlags) initial(trace string) (*model.Listing, error) {
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
	return in, nil
}

// report renders the result and maps findings to the exit status.
func (f *checkFlags) report(g *Globals, res *check.Result) error {
	all := len(model.Persistences)
	if f.evaluated > 0 {
		all = f.evaluated
	}
	opt := report.Options{Models: f.Model, AllModels: all, Shard: f.shard}
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
	threshold, err := check.ParseSeverity(f.FailOn)
	if err != nil {
		return withCode(exitUsage, err)
	}
	for _, fd := range res.Findings {
		if fd.Rule.Severity >= threshold {
			return withCode(exitFindings, nil)
		}
	}
	return nil
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
