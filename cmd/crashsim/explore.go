package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/tracer"
)

// exitInterrupted is explore's status when Ctrl-C or SIGTERM stopped it
// (128 + SIGINT, as a shell reports it).
const exitInterrupted = 130

type exploreCmd struct {
	checkFlags
	Checker    string        `required:"" placeholder:"CMD" help:"Shell command that accepts a state (exit 0) or rejects it; run with sh -c in each state directory."`
	Initial    string        `placeholder:"DIR" help:"The root's files as they were before the trace (a copy). Default: none, so every state starts empty."`
	Jobs       int           `short:"j" placeholder:"N" help:"Checkers run at once. Default: the number of CPUs."`
	MaxStates  int           `name:"max-states" default:"10000" placeholder:"N" help:"Run the checker on at most N distinct states (0: no bound); the report says how many were left out."`
	Timeout    time.Duration `default:"10s" help:"Time limit of one checker run; past it the checker's process group is killed and the state fails."`
	Keep       bool          `help:"Keep the state directories (their path is printed on stderr)."`
	Shard      string        `placeholder:"I/N" help:"Run the checker only on distinct states I, I+N, I+2N, ... of the run (the order is the same on every machine); crashsim merge joins the N reports (json or sarif) into the report of the whole run."`
	WorkDir    string        `name:"work-dir" placeholder:"DIR" help:"Build the state directories in a new crashsim-explore-* directory under DIR (an existing directory outside --root and --initial). Default: /dev/shm, else $TMPDIR."`
	CopyStates bool          `name:"copy-states" help:"Give every state a private copy of every file, instead of hard links to one read-only copy of the files the trace leaves unchanged (for a checker that writes files in place)."`
	Args       []string      `arg:"" name:"trace" passthrough:"partial" help:"The strace log, or -- PROGRAM ARGS... to trace PROGRAM in the current directory first."`
}

// Help is the detail under `crashsim explore --help`.
func (c *exploreCmd) Help() string {
	return `Builds on disk each state a crash can leave while the traced program saves (at each crash point, each changed file in each of its crash states, the other files as the program saw them), and runs CHECKER on every distinct one with the state directory as its working directory and CRASHSIM_STATE_DIR, CRASHSIM_CRASH_LINE and CRASHSIM_MODEL in its environment. Every state the checker rejects is a checker-failed finding.

Trace paths below --root (exactly one) map into the state directory; other paths are out of scope, and nothing outside the state directories is ever written. States are built under one --model at a time. Flags go before TRACE (or before --). With -- PROGRAM ARGS..., the current directory is copied as the initial snapshot, PROGRAM runs there under strace, and the current directory is the root.

Blind spots of the recording (see crashsim check --help) are said on stderr; a trace that lacks the bytes of a write in scope (strace -s 0, -e raw=write, as crashsim trace records) is blind spot blind-no-data, and nothing is explored.

Exit status: 0 every state accepted and no blind spot, 1 findings at or above --fail-on, 2 usage error, 3 input error (a write whose bytes the trace lacks once blind-no-data is accepted, strace missing), 5 PROGRAM failed, 6 no such finding but a blind spot that could hide a loss (accept a known one with --accept-blind ID), 130 interrupted by Ctrl-C or SIGTERM (what was explored is still reported).`
}

func (c *exploreCmd) Run(g *Globals) error {
	if err := c.checkIgnores(); err != nil {
		return err
	}
	if len(c.Model) != 1 {
		return withCode(exitUsage, errors.New("explore builds states under one --model at a time"))
	}
	p, err := model.ParsePersistence(c.Model[0])
	if err != nil {
		return withCode(exitUsage, err)
	}
	if err := checkAccepted(c.AcceptBlind); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	args := c.Args
	if len(args) > 0 && args[0] == "--" {
		return c.program(ctx, g, p, args[1:])
	}
	if len(args) > 1 && strings.HasPrefix(args[1], "-") {
		return withCode(exitUsage, fmt.Errorf("flags go before the trace: %s is taken as an argument after it", args[1]))
	}
	if len(args) != 1 {
		return withCode(exitUsage, errors.New("explore takes one trace, or -- PROGRAM ARGS..."))
	}
	if len(c.Root) != 1 {
		return withCode(exitUsage, errors.New("explore needs exactly one --root: the directory the program saved into, which each state directory stands for"))
	}
	root, err := filepath.Abs(c.Root[0])
	if err != nil {
		return withCode(exitUsage, err)
	}
	opt := explore.Options{Root: root, Initial: c.Initial}
	if c.Initial != "" {
		if fi, err := os.Stat(c.Initial); err != nil || !fi.IsDir() {
			return withCode(exitUsage, fmt.Errorf("--initial %s: not a directory", c.Initial))
		}
	} else {
		// Without a snapshot the listing still tells created files from
		// replaced ones; a replaced file's old bytes are then unknown.
		listing, err := c.initial(g, args[0])
		if err != nil {
			return err
		}
		if listing != nil {
			opt.Existed = listing.Existed
		}
	}
	return c.explore(ctx, g, p, args[0], opt)
}

// program snapshots the current directory, traces PROGRAM there and
// explores the trace.
func (c *exploreCmd) program(ctx context.Context, g *Globals, p model.Persistence, cmd []string) error {
	if len(cmd) == 0 {
		return withCode(exitUsage, errors.New("no program to trace: crashsim explore --checker CMD -- PROGRAM ARGS..."))
	}
	if len(c.Root) > 0 || c.Initial != "" {
		return withCode(exitUsage, errors.New("with -- PROGRAM, the root is the current directory and its snapshot is taken before the run: leave out --root and --initial"))
	}
	start, err := startDir()
	if err != nil {
		return withCode(exitInput, err)
	}
	if n, ok := countEntries(start, maxInitialEntries); !ok {
		return withCode(exitUsage, fmt.Errorf("%s holds more than %d entries (%d seen): too large to copy into every state; run in a smaller directory", start, maxInitialEntries, n))
	}
	work, err := os.MkdirTemp("", "crashsim-explore-run-")
	if err != nil {
		return withCode(exitInput, err)
	}
	if c.Keep {
		fmt.Fprintf(g.stderr, "crashsim: snapshot kept in %s\n", filepath.Join(work, "initial"))
	} else {
		defer os.RemoveAll(work)
	}
	snap := filepath.Join(work, "initial")
	if err := os.Mkdir(snap, 0o755); err != nil {
		return withCode(exitInput, err)
	}
	if err := explore.CopyTree(start, snap); err != nil {
		return withCode(exitInput, fmt.Errorf("snapshot of %s: %w", start, err))
	}
	// The trace outlives the run: the findings point at its lines.
	tf, err := os.CreateTemp("", "crashsim-*.strace")
	if err != nil {
		return withCode(exitInput, fmt.Errorf("trace file: %w", err))
	}
	trace := tf.Name()
	tf.Close()
	c.Root = []string{start}
	c.InitialList = trace + ".initial"
	if !(&traceCmd{}).writeInitial(g, []string{start}, c.InitialList, "") {
		c.InitialList = ""
	}
	topt := tracer.Options{Out: trace, Stdin: os.Stdin, Stdout: g.stderr, Stderr: g.stderr}
	if g.Verbose {
		topt.Log = prefixWriter{g.stderr}
	}
	res, runErr := tracer.Run(ctx, cmd, topt)
	if res == nil {
		os.Remove(trace)
		os.Remove(c.InitialList)
		var nf *tracer.CommandNotFoundError
		if errors.Is(runErr, tracer.ErrStraceNotFound) || errors.As(runErr, &nf) {
			return withCode(exitInput, runErr)
		}
		return withCode(exitInput, fmt.Errorf("trace: %w", runErr))
	}
	fmt.Fprintf(g.stderr, "crashsim: trace kept in %s\n", trace)
	if ctx.Err() != nil {
		return withCode(exitInterrupted, errors.New("interrupted while the program ran: nothing explored"))
	}
	switch {
	case res.Signal != "":
		return withCode(exitProgram, fmt.Errorf("the traced program was killed by %s: nothing explored", res.Signal))
	case res.ExitCode != 0:
		return withCode(exitProgram, fmt.Errorf("the traced program exited with %d: nothing explored", res.ExitCode))
	case runErr != nil:
		return withCode(exitInput, runErr)
	}
	return c.explore(ctx, g, p, trace, explore.Options{Root: start, Initial: snap})
}

// explore runs the exploration of one trace and reports it like check.
func (c *exploreCmd) explore(ctx context.Context, g *Globals, p model.Persistence, trace string, opt explore.Options) error {
	opt.Trace = trace
	opt.Persistence = p
	opt.Checker = c.Checker
	opt.Jobs = c.Jobs
	opt.MaxStates = c.MaxStates
	opt.Timeout = c.Timeout
	opt.Keep = c.Keep
	opt.CopyStates = c.CopyStates
	if c.WorkDir != "" {
		dir, err := workDir(c.WorkDir, opt.Root, opt.Initial)
		if err != nil {
			return withCode(exitUsage, err)
		}
		opt.WorkDir = dir
	}
	if c.Shard != "" {
		i, n, err := report.ParseShard(c.Shard)
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("--shard: %w", err))
		}
		if c.Format == "text" {
			return withCode(exitUsage, errors.New("--shard needs --format json or sarif: crashsim merge joins those"))
		}
		opt.Shard, opt.Shards = i, n
		c.checkFlags.shard = c.Shard
	}
	scope := check.Options{Ignore: c.Ignore}
	opt.Scope = scope.InScope

	// check's findings on the same trace, under the same model and with
	// the same knowledge of what existed, name the rule behind a failure.
	copt := check.Options{Roots: []string{opt.Root}, Ignore: c.Ignore, Models: []model.Persistence{p}, Existed: opt.Existed,
		LikelyVolatile: check.LikelyVolatile, NeedData: true}
	if copt.Existed == nil && opt.Initial != "" {
		copt.Existed = explore.ExistedIn(opt.Root, opt.Initial)
	}
	cs, err := openParser(trace, parser.Options{MaxLine: int(g.MaxLine)}, nil) // warnings: once, from the exploration
	if err != nil {
		return inputError(err)
	}
	predicted, err := check.Run(cs, copt)
	cs.Close()
	if err != nil {
		return inputError(err)
	}
	opt.Predict = predicted.Findings
	markAccepted(predicted.Warnings, c.AcceptBlind)
	c.checkFlags.evaluated = 1 // explore runs one model
	c.checkFlags.command, c.checkFlags.traces = "explore", []string{trace}
	for _, w := range predicted.Warnings {
		if w.ID == check.BlindNoData && !w.Accepted {
			// No state could be built whole: say why instead of exploring.
			fmt.Fprintln(g.stderr, "crashsim: nothing explored: the trace lacks written bytes the crash states need")
			blind := &check.Result{Warnings: predicted.Warnings, Notes: predicted.Notes}
			blind.Summary.Events = predicted.Summary.Events
			blind.Summary.Files = predicted.Summary.Files
			return c.checkFlags.report(g, blind)
		}
	}

	var bar *progressBar
	if isTerminal(g.stderr) {
		bar = &progressBar{w: g.stderr}
		opt.Progress = bar.update
	}
	stream, err := openTrace(trace, g)
	if err != nil {
		return err
	}
	// Unjailed, a checker can write the real files: say so if one did.
	var before rootStamps
	if !explore.Jailed() {
		before, _ = stampsOf(opt.Root)
	}
	res, err := explore.Run(ctx, stream, opt)
	stream.Close()
	if before != nil {
		warnChanged(g, opt.Root, changedSince(opt.Root, before))
	}
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		if pe := (*parser.Error)(nil); errors.As(err, &pe) {
			return inputError(err)
		}
		// A state that cannot be built: the error names the trace line.
		return withCode(exitInput, fmt.Errorf("%s: %w", trace, err))
	}
	result := &check.Result{Findings: res.Findings, Warnings: predicted.Warnings, Notes: predicted.Notes}
	result.Summary.Events = res.Events
	result.Summary.Files = res.Files
	result.Summary.Errors = len(res.Findings)
	fmt.Fprintln(g.stderr, summaryLine(res, c.Jobs))
	if res.WorkDir != "" {
		fmt.Fprintf(g.stderr, "crashsim: state directories kept in %s\n", filepath.Join(res.WorkDir, "states"))
	}
	reportErr := c.checkFlags.report(g, result)
	if res.Interrupted {
		return withCode(exitInterrupted, errors.New("interrupted: the report covers only the states checked before"))
	}
	return reportErr
}

// summaryLine says what was explored, on stderr beside the report.
func summaryLine(res *explore.Result, jobs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "crashsim: explored %d crash points: %d crash states, %d distinct; the checker ran on %d and rejected %d",
		res.Points, res.Candidates, res.Distinct, res.Checked, res.Failed)
	if res.Skipped > 0 {
		fmt.Fprintf(&b, "; %d more states not built (--max-states)", res.Skipped)
	}
	fmt.Fprintf(&b, " (%.1fs", res.Wall.Seconds())
	if res.Checked > 0 && res.Wall > 0 {
		fmt.Fprintf(&b, ", %.0f states/s", float64(res.Checked)/res.Wall.Seconds())
	}
	b.WriteString(")")
	return b.String()
}

// progressBar redraws one line on a terminal.
type progressBar struct {
	w    interface{ Write([]byte) (int, error) }
	last time.Time
}

func (p *progressBar) update(pr explore.Progress) {
	if time.Since(p.last) < 100*time.Millisecond && pr.Done < pr.Total {
		return
	}
	p.last = time.Now()
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Done) / s
	}
	bw := bufio.NewWriter(p.w)
	fmt.Fprintf(bw, "\r\x1b[Kcrashsim: explore: %d/%d states, %d failed, %.0f/s", pr.Done, pr.Total, pr.Failed, rate)
	bw.Flush()
}

func (p *progressBar) clear() { fmt.Fprint(p.w, "\r\x1b[K") }

// workDir checks --work-dir: an existing directory, not at or below the
// root the states stand for or the initial snapshot, which explore reads
// and never writes.
func workDir(dir, root, initial string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--work-dir %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--work-dir %s: not a directory", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("--work-dir %s: %w", dir, err)
	}
	for _, p := range []string{root, initial} {
		if p == "" {
			continue
		}
		rp, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if r, err := filepath.EvalSymlinks(rp); err == nil {
			rp = r
		}
		if within(real, rp) {
			return "", fmt.Errorf("--work-dir %s: inside %s, which explore reads and never writes: give a directory elsewhere", dir, p)
		}
	}
	return real, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
