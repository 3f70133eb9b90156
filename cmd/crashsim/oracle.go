package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/oracle"
	"github.com/crashsim/crashsim/report"
)

type oracleCmd struct {
	FS      string        `name:"fs" enum:"ext4,xfs,btrfs" default:"ext4" help:"Filesystem to run on: ext4, xfs or btrfs."`
	SizeMB  int           `name:"size-mb" placeholder:"N" help:"Image size in MiB (default: 64 ext4, 128 btrfs, 320 xfs; at least 8 ext4, 109 btrfs, 300 xfs; sparse)."`
	Model   []string      `enum:"posix,ext4,xfs,btrfs" default:"posix" sep:"," help:"Persistence model(s) to compare with: posix, ext4, xfs, btrfs, or several as posix,ext4 (one report each; the runs are shared)."`
	Format  string        `enum:"text,json" default:"text" help:"Output format: text, or json (one document per model)."`
	Setup   string        `placeholder:"CMD" help:"Shell command run (untraced, with sh -c) in the work directory before the initial image is kept: the files CMD expects."`
	User    string        `placeholder:"NAME" help:"Run CMD as user NAME (strace -u), for a program that refuses to run as root (PostgreSQL's server). The work directory is NAME's; --setup still runs as root."`
	Timeout time.Duration `default:"30s" placeholder:"TIME" help:"Time limit of one run of the program, in seconds (60) or with a unit (90s, 2m), ${default} by default."`
	Keep    bool          `help:"Keep the temporary directory (images, traces); its path is printed on stderr."`
	Args    []string      `arg:"" optional:"" name:"cmd" passthrough:"partial" help:"-- CMD ARGS...: the program, run in the work directory of the image."`
	blockFlags
}

// Help is the detail under `crashsim oracle --help`.
func (c *oracleCmd) Help() string {
	return `Checks the persistence model against a real filesystem. Makes a filesystem image, mounts it through a loop device (ext4 and btrfs with commit=600, so only the program's own barriers flush), runs --setup and then CMD in a work directory inside it, and learns the crash points from CMD's trace. Then for each crash point it runs CMD again on a fresh copy of the image, stops it with strace right after that call (-e inject=SYSCALL:signal=SIGSTOP:when=N), copies the image while it is frozen, mounts the copy and compares what is there, path by path, with the outcomes the model predicts at that point.

Needs root, loop devices, strace and mkfs.FS. Everything it mounts or attaches is undone on every exit path, Ctrl-C included.

Exit status: 0 every observed state is predicted, 1 some mismatch, 2 usage error, 3 cannot run here (not root, no loop devices, mkfs or strace missing), 5 the program failed in its first run, 130 interrupted.`
}

func (c *oracleCmd) Run(g *Globals) error {
	args := c.Args
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return withCode(exitUsage, errors.New("no program: crashsim oracle [flags] -- CMD ARGS..."))
	}
	args = oracle.ProgramHere(args)
	models, err := parseModels(c.Model)
	if err != nil {
		return err
	}
	if c.Timeout == 0 {
		return withCode(exitUsage, errors.New("--timeout 0: one run of the program needs a time limit, or a program that hangs would hold its mount; give a longer one, such as 5m"))
	}
	// Too small, mkfs failed or made an image that did not mount (exit
	// 3, once the image was made); too large, the image could not be
	// made (oracle.CheckSize).
	if err := oracle.CheckSize(c.FS, c.SizeMB); err != nil {
		return withCode(exitUsage, err)
	}
	if err := needTempDir(); err != nil { // the images, mounts and traces go there
		return err
	}
	// Signals stay caught until cleanup is done: a second Ctrl-C must not
	// leave mounts behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if c.User != "" {
		if _, _, err := oracle.UserIDs(c.User); err != nil {
			return withCode(exitUsage, err)
		}
	}
	opt := oracle.Options{FS: c.FS, SizeMB: c.SizeMB, Models: models, Cmd: args, Setup: c.Setup, User: c.User, Timeout: c.Timeout, Keep: c.Keep,
		Notes: prefixWriter{g.stderr}}
	if g.Verbose {
		opt.Log = prefixWriter{g.stderr}
		opt.Output = g.stderr
	}
	kept := "images and traces"
	if c.Blocks {
		if err := c.blocks(&opt); err != nil {
			return err
		}
		kept = "images, traces and the block log"
	}
	results, err := oracle.Run(ctx, opt)
	if err != nil {
		return oracleError(ctx, err)
	}
	write := report.OracleText
	if c.Format == "json" {
		write = report.OracleJSON
	}
	mismatches := 0
	for i, r := range results {
		if c.Keep && r.Dir != "" && i == 0 {
			fmt.Fprintf(g.stderr, "crashsim: %s kept in %s\n", kept, r.Dir)
		}
		if err := write(g.stdout, r); err != nil {
			return withCode(exitInput, err)
		}
		mismatches += r.Summary.Mismatches
	}
	if mismatches > 0 {
		return withCode(exitFindings, nil)
	}
	return nil
}

// oracleError gives a failed oracle run (plain or --blocks) its exit
// status: the machine cannot run it, the program failed (as in trace and
// explore), or the user interrupted it.
func oracleError(ctx context.Context, err error) error {
	var env *oracle.EnvError
	var prog *oracle.ProgramError
	switch {
	case errors.As(err, &env):
		return withCode(exitInput, err)
	case errors.As(err, &prog):
		return withCode(exitProgram, err)
	case ctx.Err() != nil:
		return withCode(exitInterrupted, fmt.Errorf("interrupted: %w", err))
	}
	return withCode(exitInput, err)
}
