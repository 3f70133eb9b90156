package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/internal/progress"
	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/model"
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
	Cwd        string        `placeholder:"DIR" help:"The directory the traced program started in, for relative paths in a trace recorded without -y (and without a listing that says it)."`
	Jobs       int           `short:"j" placeholder:"N" help:"Checkers run at once. Default: the number of CPUs."`
	MaxStates  int           `name:"max-states" default:"10000" placeholder:"N" help:"Run the checker on at most N distinct states (0: no bound), spread evenly over the order in which they are found, the last among them (and the first, for N above 1); with --every-line, the first N checks. States it leaves out are blind spot blind-states-unchecked: the summary says how many, and explore exits 6, not 0, unless something else fails it or --accept-blind blind-states-unchecked accepts them."`
	MaxJoint   int           `name:"max-joint" default:"256" help:"Build every joint crash state of a crash point while the model admits at most this many there; past that, build at most as many from families instead: the states check's findings predict, prefixes of the pending operations, each one dropped, each write torn, each write's size without its data, then --samples random ones. The report says which points were sampled."`
	Samples    int           `default:"16" help:"Random states built at each sampled crash point, after the families (0: none)."`
	Seed       uint64        `default:"1" help:"Seed of the random states; the report records it, and the same seed builds the same states."`
	EveryLine  bool          `name:"every-line" help:"Check each distinct state at every crash point that can leave it (CRASHSIM_CRASH_LINE each time), not only at the last."`
	Timeout    time.Duration `default:"10s" placeholder:"TIME" help:"Time limit of one checker run, in seconds (60) or with a unit (90s, 2m), ${default} by default; past it the checker's process group is killed and the state fails."`
	Keep       bool          `help:"Keep the state directories (their path is printed on stderr)."`
	Shard      string        `placeholder:"I/N" help:"Run the checker only on distinct states I, I+N, I+2N, ... of the run (the order is the same on every machine); crashsim merge joins the N reports (json or sarif) into the report of the whole run."`
	WorkDir    string        `name:"work-dir" placeholder:"DIR" help:"Build the state directories in a new crashsim-explore-* directory under DIR (an existing directory outside --root and --initial). Default: /dev/shm, else $TMPDIR."`
	CopyStates bool          `name:"copy-states" help:"Give every state a private copy of every file, instead of hard links to one read-only copy of the files the trace leaves unchanged (for a checker that writes files in place)."`
	Args       []string      `arg:"" name:"trace" passthrough:"partial" help:"The strace log, or -- PROGRAM ARGS... to trace PROGRAM in the current directory first."`
}

// Help is the detail under `crashsim explore --help`.
func (c *exploreCmd) Help() string {
	return `Builds on disk the states a crash can leave while the traced program saves, and runs CHECKER on every distinct one with the state directory as its working directory. A state is joint: at a crash point, every file and name can differ from what the program saw at once, as the persistence model allows (the states crashsim states counts): a rename on disk while an earlier create is not, say. While the model admits at most --max-joint states at a point, every one is built; past that, states are built from families (those check's findings predict, prefixes of the pending operations, each one dropped, each write torn, each write's size without its data, then --samples random ones drawn with --seed), and the report says the point was sampled. Every state the checker rejects is a checker-failed finding; the rejected states of one file (the path the state changes that check reports a loss at, else the first) are one problem.

States that leave the same files are checked once, at the last crash line that can leave them: the most demanding line for a checker that knows when the program's data is durable (the same files before a commit and after it are checked after it). The checker's environment: CRASHSIM_STATE_DIR (the state directory), CRASHSIM_CRASH_LINE (the crash comes right after this trace line), CRASHSIM_FIRST_LINE (the first crash line that leaves the same files), CRASHSIM_CRASH_TRACE and CRASHSIM_FIRST_TRACE (the trace file each line is in: its process's own in an -ff set), CRASHSIM_MODEL. --every-line checks each distinct state at every crash point that leaves it instead.

With CAP_SYS_ADMIN (as root) the checker is jailed: in the host's pid namespace, with no capabilities and a minimal /dev, every mount read-only but its state directory and the directories listed, colon separated, in CRASHSIM_CHECKER_WRITABLE. It runs as root of a user namespace that is an unused uid on the host, with a network of its own (loopback only): it cannot signal root's processes or reach root's files, sockets or the network (it may read the directories listed in CRASHSIM_CHECKER_READABLE); CRASHSIM_CHECKER_HOST_ROOT=1 runs it as the host's root, in the host's network, instead.

Trace paths below --root (exactly one) map into the state directory; other paths are out of scope, and nothing outside the state directories is ever written. States are built under one --model at a time. Flags go before TRACE (or before --). With -- PROGRAM ARGS..., the current directory is copied as the initial snapshot, PROGRAM runs there under strace, and the current directory is the root. With --progress (or on a terminal), explore says how far it has got on stderr.

Blind spots of the recording (see crashsim check --help) are said on stderr; a trace that lacks the bytes of a write in scope (strace -s 0, -e raw=write, as crashsim trace records) is blind spot blind-no-data, and nothing is explored. A copy made in the kernel (copy_file_range, sendfile) shows no bytes: those of a copy from a file below the root that the trace had not changed are read from the --initial snapshot; any other is blind-no-data. So is a file from before the trace that a hard link or a rename names below the root from outside it, whose bytes no snapshot of the root holds. Writes no trace shows stop the exploration too: stores into a file mapped shared and writable (blind-shared-mmap), operations submitted through an io_uring (blind-io-uring) or queued with io_submit (blind-linux-aio), and a reflink (FICLONE) or an fallocate that moves data (blind-no-data); accepted with --accept-blind, explore goes on with the states the trace shows, which lack them. Distinct states left unchecked by --max-states are blind spot blind-states-unchecked, said after the summary. Crash points sampled past --max-joint are not a blind spot: the families are built there on purpose, and the summary and --format json say which points were sampled.

Exit status: 0 every state accepted and no blind spot, 1 findings at or above --fail-on, 2 usage error, 3 input error (a write whose bytes the trace lacks once blind-no-data is accepted, a copy whose source the snapshot lacks, strace missing), 5 PROGRAM failed, 6 no such finding but a blind spot that could hide a loss, distinct states --max-states left unchecked among them (accept a known one with --accept-blind ID), 130 interrupted by Ctrl-C or SIGTERM (what was explored is still reported).`
}

func (c *exploreCmd) Run(g *Globals) error {
	if c.Timeout == 0 {
		return withCode(exitUsage, errors.New("--timeout 0: one checker run needs a time limit, or a checker that hangs would stop the exploration; give a longer one, such as 5m"))
	}
	e, err := c.exploration()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// What earlier runs killed with their watchdog left: this run's own
	// directories and cgroups are not made yet.
	explore.Sweep(c.WorkDir, func(msg string) { fmt.Fprintf(g.stderr, "crashsim: %s\n", msg) })

	args := c.Args
	if len(args) > 0 && args[0] == "--" {
		if err := c.beforeRun(); err != nil {
			return err
		}
		if c.Cwd != "" {
			return withCode(exitUsage, errors.New("--cwd is for a trace: with -- PROGRAM, the program starts in the current directory"))
		}
		return c.program(ctx, g, e, args[1:])
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
	if e.Options.Root, err = filepath.Abs(c.Root[0]); err != nil {
		return withCode(exitUsage, err)
	}
	e.Options.Initial = c.Initial
	if err := e.Validate(); err != nil {
		return err
	}
	e.Inputs = g.inputs(args[0])
	e.Inputs.Listing, e.Inputs.Cwd = c.InitialList, c.Cwd
	return c.explore(ctx, g, e)
}

// exploration is the exploration the flags ask for, its trace and root
// still to come.
func (c *exploreCmd) exploration() (crashsim.Explore, error) {
	e := crashsim.Explore{Ignore: c.Ignore, AcceptBlind: c.AcceptBlind, Options: explore.Options{Checker: c.Checker,
		Jobs: c.Jobs, MaxStates: c.MaxStates, MaxJoint: c.MaxJoint, Samples: c.Samples, Seed: c.Seed, EveryLine: c.EveryLine,
		Timeout: c.Timeout, Keep: c.Keep, CopyStates: c.CopyStates, WorkDir: c.WorkDir}}
	if err := e.Validate(); err != nil {
		return e, err
	}
	if len(c.Model) != 1 {
		return e, withCode(exitUsage, errors.New("explore builds states under one --model at a time"))
	}
	p, err := model.ParsePersistence(c.Model[0])
	if err != nil {
		return e, withCode(exitUsage, err)
	}
	e.Options.Persistence = p
	switch {
	case strings.TrimSpace(c.Checker) == "":
		return e, withCode(exitUsage, errors.New("--checker is empty: every state would pass; give the command that tells a state the program can start from"))
	case c.MaxStates < 0:
		return e, withCode(exitUsage, fmt.Errorf("--max-states %d: give 0 (no bound) or more", c.MaxStates))
	case c.Jobs < 0:
		return e, withCode(exitUsage, fmt.Errorf("--jobs %d: give 1 or more (or leave it out: one per CPU)", c.Jobs))
	case c.MaxJoint < 1:
		return e, withCode(exitUsage, fmt.Errorf("--max-joint %d: give at least 1", c.MaxJoint))
	case c.Samples < 0:
		return e, withCode(exitUsage, fmt.Errorf("--samples %d: give 0 or more", c.Samples))
	case c.Samples == 0:
		e.Options.Samples = -1 // explore's none
	}
	if c.Shard != "" {
		i, n, err := wire.ParseShard(c.Shard)
		if err != nil {
			return e, withCode(exitUsage, fmt.Errorf("--shard: %w", err))
		}
		if c.Format == "text" {
			return e, withCode(exitUsage, errors.New("--shard needs --format json or sarif: crashsim merge joins those"))
		}
		e.Options.Shard, e.Options.Shards = i, n
	}
	return e, nil
}

// program snapshots the current directory, traces PROGRAM there and
// explores the trace.
func (c *exploreCmd) program(ctx context.Context, g *Globals, e crashsim.Explore, cmd []string) error {
	if len(cmd) == 0 {
		return withCode(exitUsage, errors.New("no program to trace: crashsim explore --checker CMD -- PROGRAM ARGS..."))
	}
	if err := reportNotTrace(c.Output); err != nil {
		return err
	}
	if len(c.Root) > 0 || c.Initial != "" {
		return withCode(exitUsage, errors.New("with -- PROGRAM, the root is the current directory and its snapshot is taken before the run: leave out --root and --initial"))
	}
	if err := needTempDir(); err != nil { // the snapshot and the trace go there
		return err
	}
	// The trace outlives the run: the findings point at its lines.
	rec := crashsim.Record{Snapshot: true, Tracer: tracer.Options{Stdin: os.Stdin, Stdout: g.stderr, Stderr: g.stderr}}
	res, runErr := g.record(ctx, rec, cmd)
	if res == nil {
		return runErr
	}
	if c.Keep {
		fmt.Fprintf(g.stderr, "crashsim: snapshot kept in %s\n", res.Snapshot)
		// Said to be kept: the user's, not a later run's to sweep.
		if err := reap.Disown(filepath.Dir(res.Snapshot)); err != nil {
			fmt.Fprintf(g.stderr, "crashsim: warning: %v\n", err)
		}
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
	e.Inputs = g.reading(res.Inputs())
	e.Options.Root, e.Options.Initial = res.Start, res.Snapshot
	return c.explore(ctx, g, e)
}

// explore explores one trace and reports it like check.
func (c *exploreCmd) explore(ctx context.Context, g *Globals, e crashsim.Explore) error {
	var bar *progress.Line
	if live := progress.Terminal(g.stderr); live || g.Progress {
		// A short run says nothing in a log.
		delay := progress.LineEvery
		if live {
			delay = 0
		}
		bar = progress.New(g.stderr, live, delay)
		e.Options.Progress = func(pr explore.Progress) { bar.Update(func() string { return crashsim.ExploreProgress(pr) }) }
	}
	sc := c.scope(g, []string{e.Options.Root})
	e.Ignore = sc.Ignore
	// A --baseline that cannot be read is said before the checker runs
	// on every state, not after (with -- PROGRAM, beforeRun read it).
	if _, err := c.readBaseline(); err != nil {
		return err
	}
	result, res, err := e.Run(ctx)
	if bar != nil {
		bar.Clear()
	}
	if err != nil {
		return err
	}
	defer result.Close()
	opt := e.Options
	r := reporting{command: "explore", inputs: e.Inputs, scope: sc, evaluated: 1, shard: c.Shard, run: crashsim.ExploreRunID(e.Inputs, opt, sc.Ignore)}
	if res == nil {
		// No state could be built whole: say why instead of exploring.
		fmt.Fprintln(g.stderr, "crashsim: "+crashsim.NothingExplored(result))
		return c.report(g, result, r)
	}
	if msg := crashsim.RootChanged(opt.Root, res.RootChanged); msg != "" {
		g.warn(errors.New(msg))
	}
	if res.Unconfined != "" {
		g.warn(errors.New(res.Unconfined))
	}
	fmt.Fprintln(g.stderr, crashsim.ExploreSummary(res, opt.EveryLine))
	crashsim.ExplorePoints(g.stderr, res, g.Verbose)
	if res.WorkDir != "" {
		fmt.Fprintf(g.stderr, "crashsim: state directories kept in %s\n", filepath.Join(res.WorkDir, "states"))
	}
	r.explored = crashsim.ExploreReport(res, opt)
	reportErr := c.report(g, result, r)
	if res.Interrupted {
		return withCode(exitInterrupted, errors.New("interrupted: the report covers only the states checked before"))
	}
	return reportErr
}
