package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/replacefile"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/source"
	"github.com/crashsim/crashsim/tracer"
)

type traceCmd struct {
	checkFlags
	// Mountinfo is where the mounts are read from: a test stands in a
	// machine whose start directory is (or is not) on tmpfs.
	Mountinfo string        `hidden:"" env:"CRASHSIM_MOUNTINFO" default:"/proc/self/mountinfo"`
	Stack     bool          `help:"Record each call's stack (strace -k), so that findings name the line of the program that made the call. Slower: strace unwinds the stack at every traced call."`
	FDPaths   bool          `name:"fd-paths" help:"Record the path of every fd (strace -y), so that an fd the program got from another process over a Unix socket (Erlang programs, SCM_RIGHTS) is named rather than a blind spot. Slower: strace reads the path of every fd it prints (some 10-20% more CPU)."`
	Out       string        `placeholder:"TRACE" help:"Keep the trace in TRACE (strace's -o; crashsim's -o is the report) and the listing of what existed before in TRACE.initial. Default: a temp file crashsim-*.strace, its path printed on stderr."`
	Linger    time.Duration `default:"3s" placeholder:"TIME" help:"Once the command's first process has exited, let what it started run this long (seconds, or 500ms, 1m; ${default} by default), then kill it and list it (a daemon, a background child). 0 waits however long they run."`
	Command   []string      `arg:"" name:"command" passthrough:"partial" help:"The program to run and its arguments (after --)."`
}

// Help is the detail under `crashsim trace --help`.
func (c *traceCmd) Help() string {
	return `Runs CMD under strace (the whole process tree, into one trace), then checks the trace like crashsim check. Here --root defaults to the directory CMD starts in, and before CMD starts what exists below the roots is listed in TRACE.initial, so that check tells the files CMD creates from those it replaces.

The report goes to stderr, so that CMD's stdout stays CMD's (crashsim trace -- prog > out leaves in out what prog wrote); -o FILE writes it to FILE. With --format json or sarif and no -o, the report is stdout's alone and CMD's stdout goes to stderr.

--out TRACE keeps the trace (what strace's own -o names); -o FILE is the report, as in every command, so a report named like a trace (*.strace, *.trace) is refused before CMD runs.

Paths on tmpfs or ramfs (read from /proc/self/mountinfo) are out of scope with a note: nothing there survives a power cut. A --root on one is out of scope too.

Exit status: 5 when CMD failed (exited non-zero or was killed; findings are still printed), else check's: 0 clean, 1 problems at or above --fail-on, 6 no such problem but a blind spot that could hide a loss (accept a known one with --accept-blind ID). 3 when strace or CMD is not found. Ctrl-C and SIGTERM go to CMD; a second Ctrl-C kills every traced process; what was traced until then is checked. Nothing crashsim starts outlives it, even when crashsim is killed with SIGKILL (see docs/safety.md).`
}

func (c *traceCmd) Run(g *Globals) error {
	cmd := c.Command
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	if len(cmd) == 0 {
		return withCode(exitUsage, errors.New("no command to trace: crashsim trace [flags] -- CMD ARGS..."))
	}
	if c.Out == "" || c.Stack {
		// The trace's temp file, and the --stack shim's directory.
		if err := needTempDir(); err != nil {
			return err
		}
	}
	if err := c.beforeRun(); err != nil {
		return err
	}
	// A check needs no written bytes: record without them, at about the
	// cost of plain strace (explore records them). Python's own lines are
	// invisible to strace -k: with --stack, a shim marks them.
	rec := crashsim.Record{Roots: c.Root, NoListing: c.InitialList != "", Shim: c.Stack, Mountinfo: c.Mountinfo,
		Tracer: tracer.Options{Out: c.Out, Stdin: os.Stdin, Stdout: g.stdout, Stderr: g.stderr, NoData: true, FDPaths: c.FDPaths, Stack: c.Stack && !source.IsPython(cmd[0]), Linger: c.Linger}}
	if c.Linger == 0 {
		rec.Tracer.Linger = -1 // --linger 0: wait for them all
	}
	if c.Output == "" && c.Format != "text" {
		// Keep stdout a single JSON or SARIF document.
		rec.Tracer.Stdout = g.stderr
	}
	// The program's stdout is the program's: `crashsim trace -- prog >
	// out` must leave in out what prog wrote, nothing more. A text report
	// is for a person and goes to stderr, as strace's own output does; a
	// JSON or SARIF document without -o is for a pipe, and has stdout to
	// itself (above).
	report := g
	if c.Output == "" && c.Format == "text" {
		onStderr := *g
		onStderr.stdout = g.stderr
		report = &onStderr
	}
	res, runErr := g.record(context.Background(), rec, cmd)
	if res == nil {
		return runErr
	}
	programErr := res.ProgramError()

	// Findings are printed in every case, from the trace written so far.
	in := g.reading(res.Inputs())
	in.Listing = c.InitialList
	r := reporting{command: "trace", inputs: in, scope: c.scope(g, res.Roots)}
	if programErr != nil {
		r.exitAs = exitProgram
	}
	checkErr := c.run(report, r)
	if programErr == nil && runErr == nil {
		return checkErr
	}
	// The program's failure (or strace's) comes first; a problem with the
	// check is still said.
	var ee *exitError
	if checkErr != nil && (!errors.As(checkErr, &ee) || ee.err != nil) {
		fmt.Fprintf(g.stderr, "crashsim: %v\n", checkErr)
	}
	if programErr == nil {
		return withCode(exitInput, runErr)
	}
	if runErr != nil {
		fmt.Fprintf(g.stderr, "crashsim: %v\n", runErr)
	}
	return withCode(exitProgram, programErr)
}

// reportNotTrace refuses, before anything runs, a report path named like
// a trace (crashsim.ReportNamedLikeTrace).
func reportNotTrace(output string) error {
	if err := crashsim.ReportNamedLikeTrace(output); err != nil {
		return withCode(exitUsage, err)
	}
	return nil
}

// beforeRun refuses, before a program runs, a report -o could not write
// (a symbolic link, a missing directory), a --baseline that cannot be
// read and an --initial-list that cannot be opened: found only after the
// run, the program's side effects and a whole exploration were for
// nothing.
func (f *checkFlags) beforeRun() error {
	if err := reportNotTrace(f.Output); err != nil {
		return err
	}
	if f.Output != "" {
		if err := replacefile.Check(f.Output); err != nil {
			return &report.WriteError{Err: err}
		}
	}
	if f.InitialList != "" {
		if err := crashsim.CheckListing(f.InitialList); err != nil {
			return err
		}
	}
	_, err := f.readBaseline()
	return err
}

// record runs a command under strace (crashsim.Record) and says on stderr
// what the user should know of the run (Recording.Notes).
func (g *Globals) record(ctx context.Context, rec crashsim.Record, cmd []string) (*crashsim.Recording, error) {
	if g.Verbose {
		rec.Tracer.Log = prefixWriter{g.stderr}
	}
	res, err := rec.Run(ctx, cmd)
	if res == nil {
		return nil, err
	}
	for _, n := range res.Notes(g.Verbose) {
		fmt.Fprintf(g.stderr, "crashsim: %s\n", n)
	}
	return res, err
}

// prefixWriter prefixes the tracer's verbose notes with "crashsim: ".
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "crashsim: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}
