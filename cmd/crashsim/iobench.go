package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/crashsim/crashsim/iobench"
)

// iobenchCmd times what each level of durability costs. The workloads live
// in package iobench; this struct only maps flags and errors.
type iobenchCmd struct {
	Mode      string `default:"buffered" placeholder:"MODE" help:"Workload, one of the modes listed above."`
	SizeMB    int64  `name:"size-mb" default:"64" placeholder:"N" help:"MiB to write (buffered, fsync-every, direct)."`
	Every     int64  `default:"8" placeholder:"N" help:"fsync-every: fdatasync after every N blocks."`
	Count     int64  `default:"200" placeholder:"N" help:"replace-*: saves; create-*: new files (4 KiB each)."`
	BlockSize int64  `name:"block-size" default:"65536" placeholder:"BYTES" help:"Bytes per write(2) (stream modes)."`
	Offset    int64  `default:"0" placeholder:"BYTES" help:"File offset of the first write; not a multiple of 4096 makes every write unaligned (stream modes)."`
	Overwrite bool   `help:"Lay the file down, sync it and drop it from the page cache first, so partly overwritten pages are read back (read-modify-write)."`
	Fill      string `default:"pattern" placeholder:"pattern|random" help:"Bytes written: a repeated 0..255 pattern, or seeded pseudo-random data a compressing filesystem cannot skip."`
	Seed      uint64 `default:"1" placeholder:"N" help:"Seed of --fill random (printed, so a run can be repeated)."`
	Observe   bool   `help:"Also print Dirty: from /proc/meminfo and wchar/write_bytes from /proc/self/io before and after."`
	Force     bool   `help:"Write over FILE even though iobench did not write it (it marks its files with the xattr user.crashsim.iobench). Never through a symbolic link."`

	File string `arg:"" optional:"" default:"bench.bin" help:"File to write (the create modes use FILE.d/)."`
}

// Help lists the modes from iobench's own registry, so the two cannot drift.
func (c *iobenchCmd) Help() string {
	var b strings.Builder
	b.WriteString("Modes:\n")
	for _, m := range iobench.Modes() {
		fmt.Fprintf(&b, "  %-16s %s\n", m, m.Doc())
	}
	b.WriteString("\nExit status: 0 done, 1 I/O error, 2 usage error, or FILE is not iobench's or not a regular file (nothing created), 4 O_DIRECT refused by the filesystem, 130 interrupted by Ctrl-C or SIGTERM. A run that fails or is interrupted removes the files it made.")
	return b.String()
}

func (c *iobenchCmd) Run(g *Globals) error {
	cfg := iobench.Config{
		Mode:      iobench.Mode(c.Mode),
		Path:      c.File,
		SizeMB:    c.SizeMB,
		Every:     c.Every,
		Count:     c.Count,
		BlockSize: c.BlockSize,
		Offset:    c.Offset,
		Overwrite: c.Overwrite,
		Fill:      iobench.Fill(c.Fill),
		Seed:      c.Seed,
		Observe:   c.Observe,
		Force:     c.Force,
	}
	// Ctrl-C and SIGTERM stop the workload, which removes what it made.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err := iobench.RunContext(ctx, cfg, g.stdout, func(msg string) {
		fmt.Fprintf(g.stderr, "crashsim: warning: %s\n", msg)
	})
	var usage *iobench.UsageError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &usage):
		return withCode(exitUsage, fmt.Errorf("iobench: %w", err))
	case errors.Is(err, iobench.ErrDirectUnsupported):
		return withCode(exitDirect, err)
	case errors.Is(err, iobench.ErrInterrupted):
		return withCode(exitInterrupted, errors.New("iobench: interrupted: the files this run made are removed"))
	default:
		return withCode(exitFindings, err) // status 1, which for iobench means an I/O error
	}
}
