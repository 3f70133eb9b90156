package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/internal/progress"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/report/wire"
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
	MaxJoint   int           `name:"max-joint" default:"256" help:"Build every joint crash state of a crash point while the model admits at most this many there; past that, build at most as many from families instead: the states check's findings predict, prefixes of the pending operations, each one dropped, each write torn, then --samples random ones. The report says which points were sampled."`
	Samples    int           `default:"16" help:"Random states built at each sampled crash point, after the families (0: none)."`
	Seed       uint64        `default:"1" help:"Seed of the random states; the report records it, and the same seed builds the same states."`
	EveryLine  bool          `name:"every-line" help:"Check each distinct state at every crash point that can leave it (CRASHSIM_CRASH_LINE each time), not only at the last."`
	Timeout    time.Duration `default:"10s" help:"Time limit of one checker run; past it the checker's process group is killed and the state fails."`
	Keep       bool          `help:"Keep the state directories (their path is printed on stderr)."`
	Shard      string        `placeholder:"I/N" help:"Run the checker only on distinct states I, I+N, I+2N, ... of the run (the order is the same on every machine); crashsim merge joins the N reports (json or sarif) into the report of the whole run."`
	WorkDir    string        `name:"work-dir" placeholder:"DIR" help:"Build the state directories in a new crashsim-explore-* directory under DIR (an existing directory outside --root and --initial). Default: /dev/shm, else $TMPDIR."`
	CopyStates bool          `name:"copy-states" help:"Give every state a private copy of every file, instead of hard links to one read-only copy of the files the trace leaves unchanged (for a checker that writes files in place)."`
	Args       []string      `arg:"" name:"trace" passthrough:"partial" help:"The strace log, or -- PROGRAM ARGS... to trace PROGRAM in the current directory first."`
}

// Help is the detail under `crashsim explore --help`.
func (c *exploreCmd) Help() string {
	return `Builds on disk the states a crash can leave while the traced program saves, and runs CHECKER on every distinct one with the state directory as its working directory. A state is joint: at a crash point, every file and name can differ from what the program saw at once, as the persistence model allows (the states crashsim states counts): a rename on disk while an earlier create is not, say. While the model admits at most --max-joint states at a point, every one is built; past that, states are built from families (those check's findings predict, prefixes of the pending operations, each one dropped, each write torn, then --samples random ones drawn with --seed), and the report says the point was sampled. Every state the checker rejects is a checker-failed finding.

States that leave the same files are checked once, at the last crash line that can leave them: the most demanding line for a checker that knows when the program's data is durable (the same files before a commit and after it are checked after it). The checker's environment: CRASHSIM_STATE_DIR (the state directory), CRASHSIM_CRASH_LINE (the crash comes right after this trace line), CRASHSIM_FIRST_LINE (the first crash line that leaves the same files), CRASHSIM_MODEL. --every-line checks each distinct state at every crash point that leaves it instead.

With CAP_SYS_ADMIN (as root) the checker is jailed: in the host's pid namespace, with no capabilities and a minimal /dev, every mount read-only but its state directory and the directories listed, colon separated, in CRASHSIM_CHECKER_WRITABLE. It runs as root of a user namespace that is an unused uid on the host, with a network of its own (loopback only): it cannot signal root's processes or reach root's files, sockets or the network (it may read the directories listed in CRASHSIM_CHECKER_READABLE); CRASHSIM_CHECKER_HOST_ROOT=1 runs it as the host's root, in the host's network, instead.

Trace paths below --root (exactly one) map into the state directory; other paths are out of scope, and nothing outside the state directories is ever written. States are built under one --model at a time. Flags go before TRACE (or before --). With -- PROGRAM ARGS..., the current directory is copied as the initial snapshot, PROGRAM runs there under strace, and the current directory is the root. With --progress (or on a terminal), explore says how far it has got on stderr.

Blind spots of the recording (see crashsim check --help) are said on stderr; a trace that lacks the bytes of a write in scope (strace -s 0, -e raw=write, as crashsim trace records) is blind spot blind-no-data, and nothing is explored.

Exit status: 0 every state accepted and no blind spot, 1 findings at or above --fail-on, 2 usage error, 3 input error (a write whose bytes the trace lacks once blind-no-data is accepted, strace missing), 5 PROGRAM failed, 6 no such finding but a blind spot that could hide a loss (accept a known one with --accept-blind ID), 130 interrupted by Ctrl-C or SIGTERM (what was explored is still reported).`
}

func (c *exploreCmd) Run(g *Globals) error {
	if err := (crashsim.Filter{Ignore: c.Ignore}).Validate(); err != nil {
		return err
	}
	if len(c.Model) != 1 {
		return withCode(exitUsage, errors.New("explore builds states under one --model at a time"))
	}
	p, err := model.ParsePersistence(c.Model[0])
	if err != nil {
		return withCode(exitUsage, err)
	}
	if err := crashsim.ValidateAccepted(c.AcceptBlind); err != nil {
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
	if c.Initial != "" {
		if fi, err := os.Stat(c.Initial); err != nil || !fi.IsDir() {
			return withCode(exitUsage, fmt.Errorf("--initial %s: not a directory", c.Initial))
		}
	}
	in := g.inputs(args[0])
	in.Listing = c.InitialList
	return c.explore(ctx, g, p, in, explore.Options{Root: root, Initial: c.Initial})
}

// program snapshots the current directory, traces PROGRAM there and
// explores the trace.
func (c *exploreCmd) program(ctx context.Context, g *Globals, p model.Persistence, cmd []string) error {
	if len(cmd) == 0 {
		return withCode(exitUsage, errors.New("no program to trace: crashsim explore --checker CMD -- PROGRAM ARGS..."))
	}
	if err := reportNotTrace(c.Output); err != nil {
		return err
	}
	if len(c.Root) > 0 || c.Initial != "" {
		return withCode(exitUsage, errors.New("with -- PROGRAM, the root is the current directory and its snapshot is taken before the run: leave out --root and --initial"))
	}
	// The trace outlives the run: the findings point at its lines.
	rec := crashsim.Record{Snapshot: true, Tracer: tracer.Options{Stdin: os.Stdin, Stdout: g.stderr, Stderr: g.stderr}}
	res, runErr := g.record(ctx, rec, cmd)
	if res == nil {
		return runErr
	}
	if c.Keep {
		fmt.Fprintf(g.stderr, "crashsim: snapshot kept in %s\n", res.Snapshot)
	} else {
		defer res.Close()
	}
	switch {
	case ctx.Err() != nil:
		return withCode(exitInterrupted, errors.New("interrupted while the program ran: nothing explored"))
	case res.Signal != "":
		return withCode(exitProgram, fmt.Errorf("the traced program was killed by %s: nothing explored", res.Signal))
	case res.ExitCode != 0:
		return withCode(exitProgram, fmt.Errorf("the traced program exited with %d: nothing explored", res.ExitCode))
	case runErr != nil:
		return withCode(exitInput, runErr)
	}
	in := g.reading(res.Inputs())
	return c.explore(ctx, g, p, in, explore.Options{Root: res.Start, Initial: res.Snapshot})
}

// explore explores one trace and reports it like check.
func (c *exploreCmd) explore(ctx context.Context, g *Globals, p model.Persistence, in crashsim.Inputs, opt explore.Options) error {
	opt.Persistence = p
	opt.Checker = c.Checker
	opt.Jobs = c.Jobs
	opt.MaxStates = c.MaxStates
	if c.MaxJoint < 1 {
		return withCode(exitUsage, fmt.Errorf("--max-joint %d: give at least 1", c.MaxJoint))
	}
	opt.MaxJoint, opt.Seed, opt.EveryLine = c.MaxJoint, c.Seed, c.EveryLine
	switch {
	case c.Samples < 0:
		return withCode(exitUsage, fmt.Errorf("--samples %d: give 0 or more", c.Samples))
	case c.Samples == 0:
		opt.Samples = -1
	default:
		opt.Samples = c.Samples
	}
	opt.Timeout = c.Timeout
	opt.Keep = c.Keep
	opt.CopyStates = c.CopyStates
	opt.WorkDir = c.WorkDir
	if c.Shard != "" {
		i, n, err := wire.ParseShard(c.Shard)
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("--shard: %w", err))
		}
		if c.Format == "text" {
			return withCode(exitUsage, errors.New("--shard needs --format json or sarif: crashsim merge joins those"))
		}
		opt.Shard, opt.Shards = i, n
	}
	var bar *progress.Line
	if live := isTerminal(g.stderr); live || g.Progress {
		// A short run says nothing in a log.
		delay := progress.LineEvery
		if live {
			delay = 0
		}
		bar = progress.New(g.stderr, live, delay)
		opt.Progress = func(pr explore.Progress) { bar.Update(func() string { return progressLine(pr) }) }
	}
	sc := c.scope(g, []string{opt.Root})
	e := crashsim.Explore{Inputs: in, Ignore: sc.Ignore, AcceptBlind: c.AcceptBlind, Options: opt}
	result, res, err := e.Run(ctx)
	if bar != nil {
		bar.Clear()
	}
	if err != nil {
		return err
	}
	defer result.Close()
	r := reporting{command: "explore", inputs: in, scope: sc, evaluated: 1, shard: c.Shard, run: c.runID(in, p, sc)}
	if res == nil {
		// No state could be built whole: say why instead of exploring.
		fmt.Fprintln(g.stderr, "crashsim: nothing explored: the trace lacks written bytes the crash states need")
		return c.report(g, result, r)
	}
	warnChanged(g, opt.Root, res.RootChanged)
	if res.Unconfined != "" {
		fmt.Fprintf(g.stderr, "crashsim: warning: %s\n", res.Unconfined)
	}
	fmt.Fprintln(g.stderr, summaryLine(res, c.Jobs))
	pointLines(g.stderr, res, g.Verbose)
	if res.WorkDir != "" {
		fmt.Fprintf(g.stderr, "crashsim: state directories kept in %s\n", filepath.Join(res.WorkDir, "states"))
	}
	r.explored = exploreJSON(res, opt)
	reportErr := c.report(g, result, r)
	if res.Interrupted {
		return withCode(exitInterrupted, errors.New("interrupted: the report covers only the states checked before"))
	}
	return reportErr
}

// runID is the identity of this run, which merge compares across shards:
// the trace's bytes, the checker and the options that decide which
// states are built and checked. A trace that is not a regular file has
// no digest, and the report no identity (merge refuses its shards).
func (c *exploreCmd) runID(in crashsim.Inputs, p model.Persistence, sc crashsim.Scope) *wire.RunID {
	if len(in.Traces) != 1 {
		return nil
	}
	digest, err := parser.Digest(in.Traces[0])
	if err != nil {
		return nil
	}
	opts := fmt.Sprintf("--model %s --max-states %d --max-joint %d --samples %d --seed %d", p, c.MaxStates, c.MaxJoint, c.Samples, c.Seed)
	if c.EveryLine {
		opts += " --every-line"
	}
	for _, g := range sc.Ignore {
		opts += " --ignore " + strconv.Quote(g)
	}
	return &wire.RunID{Trace: digest, Checker: fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(c.Checker))), Options: opts}
}

// warnChanged says that unjailed checkers changed the real files below
// root (explore.Result.RootChanged).
func warnChanged(g *Globals, root string, ch []string) {
	if len(ch) == 0 {
		return
	}
	shown := ch[:min(len(ch), 3)]
	entries := fmt.Sprintf("%d entries", len(ch))
	if len(ch) == 1 {
		entries = "1 entry"
	}
	fmt.Fprintf(g.stderr, "crashsim: warning: while the checkers ran, %s below %s changed, though each checker runs in a state directory elsewhere: a checker wrote the real files (an absolute path?): %s; run explore with CAP_SYS_ADMIN (as root) to jail checkers, or have the checker use relative paths or $CRASHSIM_STATE_DIR\n",
		entries, report.QuotePaths([]string{root})[0], strings.Join(report.QuotePaths(append([]string(nil), shown...)), ", "))
}

// summaryLine says what was explored, on stderr beside the report.
func summaryLine(res *explore.Result, jobs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "crashsim: explored %d crash points (%d exhaustively, %d sampled): the model admits %s crash states; %d built, %d distinct; the checker ran on %d and rejected %d",
		res.Points, res.Exhaustive, res.Sampled, admitted(res.Admitted, res.AdmittedExact), res.Candidates, res.Distinct, res.Checked, res.Failed)
	if res.Skipped > 0 {
		fmt.Fprintf(&b, "; %d more distinct states not checked (--max-states)", res.Skipped)
	}
	fmt.Fprintf(&b, " (%.1fs", res.Wall.Seconds())
	if res.Checked > 0 && res.Wall > 0 {
		fmt.Fprintf(&b, ", %.0f states/s", float64(res.Checked)/res.Wall.Seconds())
	}
	b.WriteString(")")
	if res.Sampled > 0 {
		f := res.Families
		fmt.Fprintf(&b, "\ncrashsim: sampled points built %d predicted, %d prefix, %d drop, %d torn and %d random states (seed %d)",
			f.Predicted, f.Prefix, f.Drop, f.Torn, f.Random, res.Seed)
	}
	return b.String()
}

func admitted(n int64, exact bool) string {
	if exact {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("at least %d", n)
}

// shownPoints is how many sampled crash points are listed on stderr
// (--verbose: every point).
const shownPoints = 10

// pointLines lists the sampled crash points (verbose: every point): how
// many states the model admits there, how many were built and checked.
func pointLines(w io.Writer, res *explore.Result, all bool) {
	shown := 0
	for _, p := range res.PointStats {
		if p.Exhaustive && !all {
			continue
		}
		if shown == shownPoints && !all {
			fmt.Fprintf(w, "crashsim:   and %d more sampled points (--verbose lists every point, --format json too)\n", res.Sampled-shown)
			break
		}
		shown++
		how := "all built"
		if !p.Exhaustive {
			how = fmt.Sprintf("%d built, sampled (%s)", p.Built, strings.Join(p.Families.Names(), ", "))
		}
		at := fmt.Sprintf("after line %d", p.Line)
		if p.Line == 0 {
			at = "before the first event"
		}
		fmt.Fprintf(w, "crashsim:   %s: %s states, %s, %d new, %d checked here\n", at, admitted(p.Admitted, p.Exact), how, p.New, p.Checked)
	}
}

// exploreJSON is the report's account of the exploration.
func exploreJSON(res *explore.Result, opt explore.Options) *wire.Explore {
	x := &wire.Explore{Points: res.Points, Exhaustive: res.Exhaustive, Sampled: res.Sampled, Admitted: res.Admitted,
		AdmittedExact: res.AdmittedExact, Built: res.Candidates, Distinct: res.Distinct, Checked: res.Checked, Rejected: res.Failed,
		NotChecked: res.Skipped, MaxJoint: opt.MaxJoint, Samples: max(opt.Samples, 0), Seed: opt.Seed, EveryLine: opt.EveryLine,
		Families:    wire.ExploreFamilies(res.Families),
		CrashPoints: make([]wire.ExplorePoint, 0, len(res.PointStats))}
	for _, p := range res.PointStats {
		fams := p.Families.Names()
		if fams == nil {
			fams = []string{}
		}
		x.CrashPoints = append(x.CrashPoints, wire.ExplorePoint{Line: p.Line, Admitted: p.Admitted, Exact: p.Exact,
			Exhaustive: p.Exhaustive, Families: fams, Built: p.Built, New: p.New, Checked: p.Checked})
	}
	return x
}

// progressLine says how far an exploration has got.
func progressLine(pr explore.Progress) string {
	if pr.Phase == "replay" {
		return fmt.Sprintf("crashsim: explore: replaying: %d crash points, %d states, %d distinct (%.0fs)", pr.Points, pr.Candidates, pr.Distinct, pr.Elapsed.Seconds())
	}
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Done) / s
	}
	return fmt.Sprintf("crashsim: explore: checking: %d of %d states, %d rejected, %.0f/s (%.0fs)", pr.Done, pr.Total, pr.Failed, rate, pr.Elapsed.Seconds())
}
