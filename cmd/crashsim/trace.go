package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/replacefile"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/source"
	"github.com/crashsim/crashsim/tracer"
)

type traceCmd struct {
	checkFlags
	// Mountinfo is where the mounts are read from: a test stands in a
	// machine whose start directory is (or is not) on tmpfs.
	Mountinfo string        `hidden:"" env:"CRASHSIM_MOUNTINFO" default:"/proc/self/mountinfo"`
	Stack     bool          `help:"Record each call's stack (strace -k), so that findings name the line of the program that made the call. Slower: strace unwinds the stack at every traced call."`
	Out       string        `placeholder:"TRACE" help:"Keep the trace in TRACE (and the listing of what existed before in TRACE.initial). Default: a temp file crashsim-*.strace, its path printed on stderr."`
	Linger    time.Duration `default:"3s" placeholder:"DUR" help:"Once the command's first process has exited, let what it started run this long, then kill it and list it (a daemon, a background child). 0 waits however long they run."`
	Command   []string      `arg:"" name:"command" passthrough:"partial" help:"The program to run and its arguments (after --)."`
}

// Help is the detail under `crashsim trace --help`.
func (c *traceCmd) Help() string {
	return `Runs CMD under strace (the whole process tree, into one trace), then checks the trace like crashsim check. Here --root defaults to the directory CMD starts in, and before CMD starts what exists below the roots is listed in TRACE.initial, so that check tells the files CMD creates from those it replaces.

Paths on tmpfs or ramfs (read from /proc/self/mountinfo) are out of scope with a note: nothing there survives a power cut. A --root on one is out of scope too.

Exit status: 5 when CMD failed (exited non-zero or was killed; findings are still printed), else check's: 0 clean, 1 findings at or above --fail-on, 6 no such finding but a blind spot that could hide a loss (accept a known one with --accept-blind ID). 3 when strace or CMD is not found. Ctrl-C and SIGTERM go to CMD; a second Ctrl-C kills every traced process; what was traced until then is checked. Nothing crashsim starts outlives it, even when crashsim is killed with SIGKILL (see README, Safety).`
}

func (c *traceCmd) Run(g *Globals) error {
	cmd := c.Command
	if len(cmd) > 0 && cmd[0] == "--" {
		cmd = cmd[1:]
	}
	if len(cmd) == 0 {
		return withCode(exitUsage, errors.New("no command to trace: crashsim trace [flags] -- CMD ARGS..."))
	}
	start, err := startDir()
	if err != nil {
		return withCode(exitInput, err)
	}
	roots := c.Root
	if len(roots) == 0 {
		roots = []string{start}
	}
	var mounts []check.Mount
	if ms, err := tracer.ReadMounts(c.Mountinfo); err == nil {
		for _, m := range ms {
			mounts = append(mounts, check.Mount{Dir: m.Dir, FSType: m.FSType})
		}
	} else if g.Verbose {
		fmt.Fprintf(g.stderr, "crashsim: cannot read the mounts (%v): /run and /dev/shm are taken as tmpfs\n", err)
	}

	out, madeTemp := c.Out, false
	if out != "" {
		// Refused before anything runs: the program is not run for a
		// trace that cannot be kept.
		for _, name := range []string{out, out + ".initial"} {
			if err := replacefile.Check(name); err != nil {
				return withCode(exitInput, err)
			}
		}
	}
	if out == "" {
		f, err := os.CreateTemp("", "crashsim-*.strace")
		if err != nil {
			return withCode(exitInput, fmt.Errorf("trace file: %w", err))
		}
		out, madeTemp = f.Name(), true
		f.Close()
	}
	// A check needs no written bytes: record without them, at about the
	// cost of plain strace (explore records them).
	opt := tracer.Options{Out: out, Stdin: os.Stdin, Stdout: g.stdout, Stderr: g.stderr, NoData: true, Stack: c.Stack && !source.IsPython(cmd[0]), Linger: c.Linger}
	if c.Linger == 0 {
		opt.Linger = -1 // --linger 0: wait for them all
	}
	if c.Output == "" && c.Format != "text" {
		// Keep stdout a single JSON or SARIF document.
		opt.Stdout = g.stderr
	}
	if g.Verbose {
		opt.Log = prefixWriter{g.stderr}
	}
	if c.Stack {
		// Python's own lines are invisible to strace -k: a shim marks them.
		shim, err := source.WritePythonShim()
		if err != nil {
			return withCode(exitInput, fmt.Errorf("python shim: %w", err))
		}
		defer os.RemoveAll(shim)
		opt.Env = source.WithShim(os.Environ(), shim)
	}

	// The listing is taken now, before the program runs, and written beside
	// the trace once it has: files written before the run would share the
	// first journal commits of an fsync-heavy program, and a rename over
	// the last run's listing starts writeback (ext4's auto_da_alloc). A
	// listing left from an earlier run goes now, so that it cannot be read
	// as this run's if crashsim dies.
	var listing *crashsim.Listing
	if c.InitialList == "" {
		l := takeListing(g, roots, start, crashsim.InheritedFiles(opt.Stdin, opt.Stdout, opt.Stderr))
		listing = &l
		if err := os.Remove(out + ".initial"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(g.stderr, "crashsim: warning: cannot remove the listing of an earlier run: %v\n", err)
		}
	}
	res, runErr := tracer.Run(context.Background(), cmd, opt)
	if res == nil {
		// strace never ran: nothing to keep.
		if madeTemp {
			os.Remove(out)
		}
		var nf *tracer.CommandNotFoundError
		switch {
		case errors.Is(runErr, tracer.ErrStraceNotFound):
			return withCode(exitInput, runErr)
		case errors.As(runErr, &nf):
			return withCode(exitInput, runErr)
		}
		return withCode(exitInput, fmt.Errorf("trace: %w", runErr))
	}
	if madeTemp {
		fmt.Fprintf(g.stderr, "crashsim: trace kept in %s\n", res.Trace)
	}
	if len(res.Leftovers) > 0 {
		procs := make([]string, len(res.Leftovers))
		for i, p := range res.Leftovers {
			procs[i] = fmt.Sprintf("%d (%s)", p.PID, textesc.Escape(p.Comm))
		}
		fmt.Fprintf(g.stderr, "crashsim: warning: the command exited, but %d processes it started still ran %v later and were killed: %s; what they would have written next is not in the trace (--linger to wait longer)\n",
			len(procs), c.Linger, strings.Join(procs, ", "))
	}
	if listing != nil {
		writeListing(g, out+".initial", *listing, traceMode(out))
	}
	var programErr error
	switch {
	case res.Signal != "":
		core := ""
		if res.CoreDumped {
			core = " (core dumped)"
		}
		programErr = fmt.Errorf("the traced program was killed by %s%s", res.Signal, core)
	case res.ExitCode != 0:
		programErr = fmt.Errorf("the traced program exited with %d", res.ExitCode)
	}

	// Findings are printed in every case, from the trace written so far.
	in := g.inputs(res.Trace)
	in.Listing, in.Cwd, in.Mounts = c.InitialList, start, mounts
	r := reporting{command: "trace", inputs: in, scope: c.scope(g, roots)}
	if programErr != nil {
		r.exitAs = exitProgram
	}
	checkErr := c.run(g, r)
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

// startDir is the directory the program starts in, as the kernel names it
// (strace's -y paths have no symlinks), so that it works as a root.
func startDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("current directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	return wd, nil
}

// takeListing lists what exists below dirs before the program runs
// (crashsim.TakeListing), and with -v says what it listed and what was too
// large to.
func takeListing(g *Globals, dirs []string, cwd string, fds []model.InitialFD) crashsim.Listing {
	l := crashsim.TakeListing(dirs, cwd, fds, crashsim.MaxListed)
	if g.Verbose {
		for _, d := range l.TooLarge {
			fmt.Fprintf(g.stderr, "crashsim: %s holds more than %d entries: not listed, so check cannot tell the files the program creates there from those it replaces\n", d, crashsim.MaxListed)
		}
		for _, d := range l.Listed {
			fmt.Fprintf(g.stderr, "crashsim: listed what exists below %s\n", d)
		}
	}
	return l
}

// traceMode is the mode of the trace file, which its listing gets too: the
// listing names what is in the user's directories.
func traceMode(trace string) fs.FileMode {
	if fi, err := os.Stat(trace); err == nil {
		return fi.Mode().Perm()
	}
	return tracer.TraceMode
}

// writeListing writes a listing beside the trace with mode perm,
// reporting whether it could.
func writeListing(g *Globals, name string, l crashsim.Listing, perm fs.FileMode) bool {
	if err := l.Write(name, perm); err != nil {
		fmt.Fprintf(g.stderr, "crashsim: warning: cannot write the initial listing: %v\n", err)
		return false
	}
	return true
}

// prefixWriter prefixes the tracer's verbose notes with "crashsim: ".
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "crashsim: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}
