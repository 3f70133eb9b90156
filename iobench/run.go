package iobench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Run validates cfg, runs it and writes its key=value lines to out. Warnings
// (a target with no device behind it, a figure no device reaches) go to
// warn, one sentence per call.
//
// The error is a *UsageError when cfg cannot run (nothing has touched the
// disk then), ErrDirectUnsupported when the filesystem refuses O_DIRECT, and
// otherwise an I/O error naming the path and the errno text. A run that
// fails leaves no file it made.
func Run(cfg Config, out io.Writer, warn func(msg string)) error {
	return RunContext(context.Background(), cfg, out, warn)
}

// RunContext is Run, stopped when ctx is done (Ctrl-C, SIGTERM): the
// workload stops at its next block, file or save, the files the run made
// are removed, and the error wraps ErrInterrupted.
func RunContext(ctx context.Context, cfg Config, out io.Writer, warn func(msg string)) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	r := &runner{cfg: cfg, out: out, warn: warn, open: unix.Open}
	stop := context.AfterFunc(ctx, func() { r.stopped.Store(true) })
	defer stop()
	return r.run()
}

// ErrInterrupted is a run stopped before its end by its context.
var ErrInterrupted = errors.New("interrupted")

type runner struct {
	cfg  Config
	out  io.Writer
	warn func(string)
	open openFunc
	tgt  target // what was at FILE before the run (stream and replace modes)
	made bool   // the run opened or renamed a file at FILE

	// stopped is set when the run's context is done. The loops read it
	// once per block, file or save: an atomic load, cheap enough to sit
	// in the timed region.
	stopped atomic.Bool

	observations []observation
	observeOff   bool
}

// interrupted is the error of a loop that saw stopped.
func (r *runner) interrupted() error {
	if r.stopped.Load() {
		return ErrInterrupted
	}
	return nil
}

func (r *runner) run() error {
	fam, _ := familyOf(r.cfg.Mode)
	// Before anything is created: the file at Path must be iobench's own,
	// and a regular file.
	var err error
	if fam == familyCreate {
		err = claimDir(createDir(r.cfg.Path))
	} else {
		r.tgt, err = claim(r.cfg.Path, r.cfg.Force)
	}
	if err != nil {
		return err
	}
	dir := filepath.Dir(r.cfg.Path)
	if fs := memoryFS(dir); fs != "" {
		r.warnf("%s is on %s: no device is behind it, so every figure measures memory and fdatasync does nothing", shown(dir), fs)
	}
	switch fam {
	case familyStream:
		err = r.stream()
	case familyReplace:
		err = r.replace()
	case familyCreate:
		err = r.create()
	}
	if err != nil {
		// A failed run leaves nothing it made: on a full disk, the
		// files it wrote would keep the disk full.
		if fam != familyCreate && r.tgt.ours && r.made {
			os.Remove(r.cfg.Path)
		}
		return err
	}
	r.observe("after")
	if r.cfg.Fill == FillRandom {
		r.printf("fill=%s seed=%d\n", r.cfg.Fill, r.cfg.Seed)
	}
	for _, o := range r.observations {
		r.printf("observe=%s dirty_kb=%d wchar=%d write_bytes=%d\n", o.when, o.dirtyKB, o.wchar, o.writeBytes)
	}
	return nil
}

func (r *runner) printf(format string, args ...any) { fmt.Fprintf(r.out, format, args...) }

func (r *runner) warnf(format string, args ...any) {
	if r.warn != nil {
		r.warn(fmt.Sprintf(format, args...))
	}
}

// The thresholds doc.go explains.
const (
	maxDeviceMiBps = 16 << 10 // 16 GiB/s
	minDurableSync = 5 * time.Microsecond
)

// checkRate warns when what is a write rate to a device exceeds any one
// device's bandwidth.
func (r *runner) checkRate(what string, mibps float64) {
	if mibps > maxDeviceMiBps {
		r.warnf("%s %.1f MiB/s is more than one device can take (%d MiB/s): it measures the page cache, not the device", what, mibps, maxDeviceMiBps)
	}
}

// checkSyncs warns when syncs that had data to write took less than a
// device round trip in the median.
func (r *runner) checkSyncs(what string, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	if p50 := percentile(d, 50); p50 < minDurableSync {
		r.warnf("%s took %.1f µs in the median, faster than any device writes (%v): nothing reached a device", what, micros(p50), minDurableSync)
	}
}

// percentile is the nearest-rank percentile p (0..100] of d.
func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	if rank < 1 {
		rank = 1
	}
	return s[rank-1]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func mibPerSec(bytes int64, d time.Duration) float64 {
	return float64(bytes) / (1 << 20) / d.Seconds()
}
