package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/replacefile"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
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

// maxInitialEntries bounds the listing of what existed before the run: a
// start directory larger than this (a home directory, /) is not listed, and
// check then cannot tell a file the program created from one it replaced.
var maxInitialEntries = 100_000

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
	if len(c.Root) == 0 {
		c.Root = []string{start}
	}
	listRoots := c.Root
	if mounts, err := tracer.ReadMounts(c.Mountinfo); err == nil {
		for _, m := range mounts {
			c.checkFlags.mounts = append(c.checkFlags.mounts, check.Mount{Dir: m.Dir, FSType: m.FSType})
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
	opt := tracer.Options{Out: out, Stdin: os.Stdin, Stdout: g.stdout, Stderr: g.stderr, NoData: true, Stack: c.Stack && !isPython(cmd[0]), Linger: c.Linger}
	if c.Linger == 0 {
		opt.Linger = -1 // --linger 0: wait for them all
	}
	c.checkFlags.cwd = start
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
		opt.Env = withPythonPath(os.Environ(), shim)
	}

	// The listing is taken now, before the program runs, and written beside
	// the trace once it has: files written before the run would share the
	// first journal commits of an fsync-heavy program, and a rename over
	// the last run's listing starts writeback (ext4's auto_da_alloc). A
	// listing left from an earlier run goes now, so that it cannot be read
	// as this run's if crashsim dies.
	var listing []byte
	if c.InitialList == "" {
		fds := inheritedFiles(opt.Stdin, opt.Stdout, opt.Stderr)
		listing, _ = c.takeListing(g, listRoots, start, fds)
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
		c.writeListing(g, out+".initial", listing, traceMode(out))
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

	if programErr != nil {
		c.checkFlags.exitAs = exitProgram
	}
	// Findings are printed in every case, from the trace written so far.
	checkErr := c.check(g, res.Trace)
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

func (c *traceCmd) check(g *Globals, trace string) error {
	c.checkFlags.command = "trace"
	res, err := c.checkFlags.run(g, []string{trace})
	if res != nil {
		defer res.Close()
	}
	if err != nil {
		return err
	}
	return c.checkFlags.report(g, res)
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

// writeInitial lists what exists below the roots before the program runs,
// so that check can tell the files it creates from those it replaces
// (strace shows O_CREAT|O_TRUNC either way). It reports whether it listed
// something. A root too large to list is left out, and -v says so.
func (c *traceCmd) writeInitial(g *Globals, dirs []string, name, cwd string) bool {
	listing, roots := c.takeListing(g, dirs, cwd, nil)
	return c.writeListing(g, name, listing, tracer.TraceMode) && roots > 0
}

// takeListing lists what exists below dirs, after a "cwd" line when cwd is
// not "" and the files the command starts with open, in the format of
// model.ReadInitial. It also says how many of dirs it listed.
func (c *traceCmd) takeListing(g *Globals, dirs []string, cwd string, fds []model.InitialFD) (listing []byte, roots int) {
	var buf bytes.Buffer
	if cwd != "" {
		model.WriteCwd(&buf, cwd)
	}
	if a, err := parser.ParseArch(runtime.GOARCH); err == nil {
		// The trace is this machine's: what its numbers mean.
		model.WriteArch(&buf, a)
	}
	for _, f := range fds {
		model.WriteFD(&buf, f)
	}
	budget := maxInitialEntries
	for _, r := range dirs {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			continue
		}
		mark := buf.Len()
		n, err := model.WriteInitialLimit(&buf, abs, budget)
		if err != nil {
			buf.Truncate(mark)
			if g.Verbose && errors.Is(err, model.ErrTooManyEntries) {
				fmt.Fprintf(g.stderr, "crashsim: %s holds more than %d entries: not listed, so check cannot tell the files the program creates there from those it replaces\n", abs, maxInitialEntries)
			}
			continue
		}
		budget -= n
		roots++
		if g.Verbose {
			fmt.Fprintf(g.stderr, "crashsim: listed what exists below %s\n", abs)
		}
	}
	// Always kept, even with no root listed: it also says where the
	// command started, which a trace recorded without -y does not.
	return buf.Bytes(), roots
}

// inheritedFiles says which of the command's standard fds (in, out, err)
// are regular files, and where and how they are open: `crashsim trace --
// prog > out.json` has prog write out.json through fd 1, which a trace
// recorded without -y shows only as a number. Pipes, terminals and
// /dev/null are left out.
func inheritedFiles(std ...any) []model.InitialFD {
	var fds []model.InitialFD
	for i, x := range std {
		f, ok := x.(*os.File)
		if !ok {
			continue
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		n := strconv.Itoa(int(f.Fd()))
		p, err := os.Readlink("/proc/self/fd/" + n)
		if err != nil || !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + n)
		if err != nil {
			continue
		}
		fd := model.InitialFD{FD: i, Path: p}
		for _, line := range strings.Split(string(info), "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "pos":
				fd.Offset, _ = strconv.ParseInt(v, 10, 64)
			case "flags":
				fd.Flags, _ = strconv.ParseUint(v, 8, 64)
			}
		}
		fds = append(fds, fd)
	}
	return fds
}

// traceMode is the mode of the trace file, which its listing gets too: the
// listing names what is in the user's directories.
func traceMode(trace string) fs.FileMode {
	if fi, err := os.Stat(trace); err == nil {
		return fi.Mode().Perm()
	}
	return tracer.TraceMode
}

// writeListing writes a listing to name with mode perm, reporting whether
// it could.
func (c *traceCmd) writeListing(g *Globals, name string, listing []byte, perm fs.FileMode) bool {
	if err := writeSidecar(name, listing, perm); err != nil {
		fmt.Fprintf(g.stderr, "crashsim: warning: cannot write the initial listing: %v\n", err)
		return false
	}
	return true
}

// writeSidecar writes a file that goes with the trace: whole or not at all
// (a temp file renamed over the name), but without fsync. It is as durable
// as the trace, which strace does not fsync either, and an fsync here
// would be paid on every run.
func writeSidecar(name string, data []byte, perm fs.FileMode) error {
	return replacefile.Write(name, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}, replacefile.Options{Perm: perm})
}

// countEntries counts the entries below root, giving up past limit.
func countEntries(root string, limit int) (int, bool) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		n++
		if n > limit {
			return fs.SkipAll
		}
		return nil
	})
	return n, err == nil && n <= limit
}

// prefixWriter prefixes the tracer's verbose notes with "crashsim: ".
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "crashsim: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}
