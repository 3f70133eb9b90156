// Command crashsim tells what a power cut could leave on disk while a
// program saves its data. See README.md, docs/ and `crashsim --help`.
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/alecthomas/kong"
	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/doctor"
	"github.com/crashsim/crashsim/internal/phases"
)

// Exit statuses, the stable interface CI scripts rely on.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
	exitInput    = 3
	exitDirect   = 4 // iobench: O_DIRECT refused by the filesystem
	exitProgram  = 5 // trace: the traced program itself failed
	// exitBlind: no finding at or above --fail-on, but the recording could
	// not show what a verdict needs (a blind spot not accepted with
	// --accept-blind). check, states, explore and trace all use it.
	exitBlind = 6
)

// exitError carries an exit status out of a command's Run method. Its
// message, when not empty, is printed on stderr as "crashsim: MSG".
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode attaches an exit status to err; a nil err gives a silent exit.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// Globals are bound into every command's Run.
type Globals struct {
	Verbose  bool        `short:"v" help:"Say more about what crashsim does (strace flags, skipped lines), and list every consequence of a problem in text reports, not the first 50."`
	Version  versionFlag `help:"Print crashsim's version and VCS revision, and exit."`
	Progress bool        `help:"Show progress on stderr while a large trace is read, even when stderr is not a terminal (on a terminal it shows by default)."`
	Config   string      `placeholder:"FILE" help:"Read settings from FILE instead of .crashsim.toml in the current directory or the nearest one above it (check, trace, explore)."`
	inputFlags

	cfg     *crashsim.Config // the config that applies, nil when none
	cfgName string           // how it is named to the user, in messages and reports

	stdout io.Writer
	stderr io.Writer
}

type cli struct {
	Globals

	Trace   traceCmd   `cmd:"" help:"Run a program under strace and report what a crash can lose (crashsim trace -- CMD ARGS...)."`
	Check   checkCmd   `cmd:"" help:"Report what a crash can lose in a traced run (findings: exit 1; a recording too blind to judge: exit 6)."`
	Events  eventsCmd  `cmd:"" help:"Print the events crashsim reads from an strace log."`
	States  statesCmd  `cmd:"" help:"Show, crash point by crash point, what a crash can leave at each file."`
	Explore exploreCmd `cmd:"" help:"Build each crash state on disk and run your checker on it (findings for the states it rejects)."`
	Merge   mergeCmd   `cmd:"" help:"Join the JSON or SARIF reports of every explore --shard I/N into the report of the whole run."`
	Stats   statsCmd   `cmd:"" help:"Count writes, bytes, fsyncs and renames per file in a trace (a cross-check of strace -c)."`
	Oracle  oracleCmd  `cmd:"" help:"Check the persistence model against a real filesystem (ext4, xfs, btrfs on a loop device; needs root)."`
	Iobench iobenchCmd `cmd:"" help:"Time writes at each level of durability (buffered, fsync every N blocks, O_DIRECT, ...)."`
	Rules   rulesCmd   `cmd:"" help:"List the rules: ID, severity and title of each kind of finding."`
	Explain explainCmd `cmd:"" help:"Explain one rule: what a crash can leave, why, and the fix."`
	Doctor  doctorCmd  `cmd:"" help:"Say what works on this machine (strace and its features, root, loop devices, FUSE, mkfs tools, what the tests use) and how to get what is missing."`

	Completion completionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
	Man        manCmd        `cmd:"" help:"Print the crashsim(1) man page, generated from the help."`
}

func main() {
	setMemoryLimit()
	stop := startProfile(os.Getenv(profileEnv), os.Stderr)
	if os.Getenv(phases.Env) != "" {
		phases.Start(os.Stderr, time.Millisecond)
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// memoryRatio is the share of the memory crashsim may have (its cgroup's
// limit, else the machine's) that the collector aims to stay under.
const memoryRatio = 0.8

// memoryLimit is what setMemoryLimit set, for crashsim doctor.
var memoryLimit doctor.MemoryLimit

// setMemoryLimit tells the Go collector how much memory crashsim may
// use. Left alone, it lets the heap grow to twice what is live before it
// collects: a trace of millions of unsynced files, whose state is all
// live, would be killed by the kernel at half the memory it needs. Near
// the limit the collector runs more often instead (and never takes more
// than half the CPU for it). A limit the user gave in GOMEMLIMIT stands,
// AUTOMEMLIMIT sets another share, and AUTOMEMLIMIT=off leaves the
// collector as Go sets it.
func setMemoryLimit() {
	switch {
	case os.Getenv("GOMEMLIMIT") != "":
		memoryLimit = doctor.MemoryLimit{Limit: debug.SetMemoryLimit(-1), From: "GOMEMLIMIT"}
		return
	case os.Getenv("AUTOMEMLIMIT") == "off":
		memoryLimit = doctor.MemoryLimit{From: "none: AUTOMEMLIMIT=off"}
		return
	}
	// The smaller of the two: a cgroup may allow more than the machine
	// has.
	of, from := int64(0), ""
	if n, err := memlimit.FromSystem(); err == nil && n > 0 && n < 1<<62 {
		of, from = int64(n), "the machine's memory"
	}
	if n, err := memlimit.FromCgroup(); err == nil && n > 0 && n < 1<<62 && (of == 0 || int64(n) < of) {
		of, from = int64(n), "the cgroup's limit"
	}
	if of == 0 {
		memoryLimit = doctor.MemoryLimit{From: "none: neither the cgroup's limit nor the machine's memory could be read"}
		return
	}
	// An error leaves the collector as it was: a limit is an aid, not a
	// condition of running.
	limit, err := memlimit.Set(memlimit.WithRatio(memoryRatio), memlimit.WithProvider(memlimit.Limit(uint64(of))))
	switch {
	case err != nil:
		memoryLimit = doctor.MemoryLimit{From: "none: " + err.Error()}
		return
	case limit <= 0 || limit == math.MaxInt64:
		memoryLimit = doctor.MemoryLimit{From: fmt.Sprintf("none: the limit came to %d bytes", limit)}
		return
	}
	memoryLimit = doctor.MemoryLimit{Limit: limit, Of: of, From: from}
}

// run parses args, runs the command and maps its error to an exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var c cli
	c.stdout, c.stderr = stdout, stderr
	parser, err := newParser(&c)
	if err != nil {
		fmt.Fprintf(stderr, "crashsim: %v\n", err)
		return exitUsage
	}
	return parseArgs(parser, &c.Globals, args, stderr)
}

// newParser is crashsim's kong parser, filling c.
func newParser(c *cli) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("crashsim"),
		kong.Description("crashsim reads what a program did (an strace log) and tells what a power cut at any moment could leave on disk."),
		kong.Writers(c.stdout, c.stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Resolvers(configResolver(&c.Globals)),
		kong.Help(helpWithExits),
		durationMapper(),
	)
}

// kongExit is how kong's --help and usage errors leave parseArgs without
// terminating the process (tests call run in-process).
type kongExit int

func parseArgs(parser *kong.Kong, g *Globals, args []string, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			k, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(k)
			if code != 0 {
				code = exitUsage
			}
		}
	}()
	ctx, err := parse(parser, args)
	if err != nil {
		usageError(stderr, err)
		return exitUsage
	}
	err = ctx.Run(g)
	return exitCodeFor(err, stderr)
}

// programArgs is a command that runs a program given after "--" (trace,
// explore): where its arguments go.
type programArgs interface{ programArgs() *[]string }

func (c *traceCmd) programArgs() *[]string   { return &c.Command }
func (c *exploreCmd) programArgs() *[]string { return &c.Args }

// parse parses args with kong, except the arguments of a program that
// trace or explore runs: those after the command's first bare "--" go to
// the command directly. Kong scans a passthrough argument by pushing
// every remaining token back onto the front of a slice, one copy each,
// which is quadratic: a program with 100,000 arguments took over a minute
// to parse. Past that "--" kong would only have collected them as they
// are (a flag there is the program's, --help too), so the command gets
// the same slice either way.
func parse(p *kong.Kong, args []string) (*kong.Context, error) {
	head, rest := splitProgram(p, args)
	ctx, err := p.Parse(head)
	if err != nil || rest == nil {
		return ctx, err
	}
	pa := ctx.Selected().Target.Addr().Interface().(programArgs).programArgs()
	*pa = append(*pa, rest...)
	return ctx, nil
}

// splitProgram cuts args after their first bare "--" when that "--" is
// trace's or explore's, and so is everything after it: kong's trace of
// the words up to it (which applies nothing, runs no hook and reads no
// config) has then selected one of them. Anywhere else (no "--", or one
// before the command, or check's) args stay whole, for kong to parse as
// it always did; rest is nil then.
func splitProgram(p *kong.Kong, args []string) (head, rest []string) {
	cut := slices.Index(args, "--")
	if cut < 0 {
		return args, nil
	}
	head = args[:cut+1]
	t, err := kong.Trace(p, head)
	if err != nil || t.Selected() == nil {
		return args, nil
	}
	if _, ok := t.Selected().Target.Addr().Interface().(programArgs); !ok {
		return args, nil
	}
	return head, args[cut+1:]
}

// usageError prints a parse error as one line and where to read more, not
// the whole help: in a CI log the line that matters should be the last.
func usageError(w io.Writer, err error) {
	var ue *crashsim.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(w, "crashsim: %v\n", ue) // a config's mistake, said as it is
		return
	}
	fmt.Fprintf(w, "crashsim: %v\n", err)
	cmd := ""
	if pe := (*kong.ParseError)(nil); errors.As(err, &pe) && pe.Context != nil {
		if sel := pe.Context.Selected(); sel != nil {
			cmd = sel.Path() + " "
		}
	}
	fmt.Fprintf(w, "see crashsim %s--help\n", cmd)
}

// exitCodeFor prints err (if any) and returns the process exit status:
// the library's usage errors exit 2, every other error 3.
func exitCodeFor(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "crashsim: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "crashsim: %v\n", err)
	if ue := (*crashsim.UsageError)(nil); errors.As(err, &ue) {
		return exitUsage
	}
	return exitInput
}
