package crashsim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/internal/replacefile"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/source"
	"github.com/crashsim/crashsim/tracer"
)

// Record runs a command under strace in the current directory (package
// tracer) and keeps, beside the trace, what a check of it needs that the
// trace cannot say: what existed below the roots before the run, where
// the command started and which files it had open (TRACE.initial).
type Record struct {
	// Tracer are tracer's options. Out "" is a new temp file
	// crashsim-*.strace (Recording.Temp). Env gains the Python shim with
	// Shim.
	Tracer tracer.Options
	// Roots are listed before the run; none is the start directory.
	Roots []string
	// NoListing takes no listing: the caller has one of its own.
	NoListing bool
	// Shim puts crashsim's Python shim on PYTHONPATH, so that the trace
	// marks the .py line of each file operation (source.PythonShim).
	Shim bool
	// Mountinfo is where the machine's mounts are read from (tracer.
	// ReadMounts): a check leaves tmpfs and ramfs out. "" reads none.
	Mountinfo string
	// Snapshot copies the start directory before the run (explore's
	// initial state); one of more than MaxListed entries is refused.
	Snapshot bool
}

// Recording is a recorded run.
type Recording struct {
	*tracer.Result
	// Start is the directory the command started in, as the kernel names
	// it (a -y trace's paths have no symlinks), and Roots what was
	// listed below (Record.Roots, or Start).
	Start string
	Roots []string
	// Temp says the trace is a temp file Record made.
	Temp bool
	// listed says the listing was written beside the trace, as
	// TRACE.initial: a temp trace keeps it too.
	listed bool
	// Listing is what was listed before the run; nil with NoListing.
	Listing *Listing
	// Mounts are the machine's filesystems, and MountsErr why they could
	// not be read.
	Mounts    []check.Mount
	MountsErr error
	// Warnings are what went wrong beside the run (a listing that could
	// not be written): the trace is still checked.
	Warnings []error
	// Snapshot is the copy of Start taken before the run (Record.Snapshot),
	// in a temp directory of its own: Close removes it.
	Snapshot string
	// linger is how long what the command started was let run after it.
	linger time.Duration
}

// Notes are what the user should know of the run beside its findings:
// where a temp trace is kept, processes killed after the linger, what
// went wrong beside the run (Warnings); with verbose, what was listed
// and mounts that could not be read. A warning starts "warning: ".
func (r *Recording) Notes(verbose bool) []string {
	var out []string
	if verbose && r.MountsErr != nil {
		out = append(out, fmt.Sprintf("cannot read the mounts (%v): /run and /dev/shm are taken as tmpfs", r.MountsErr))
	}
	if verbose && r.Listing != nil {
		for _, d := range r.Listing.TooLarge {
			out = append(out, fmt.Sprintf("%s holds more than %d entries: not listed, so check cannot tell the files the program creates there from those it replaces", textesc.Escape(d), MaxListed))
		}
		for _, d := range r.Listing.Listed {
			out = append(out, fmt.Sprintf("listed what exists below %s", textesc.Escape(d)))
		}
	}
	switch {
	case r.Temp && r.listed:
		out = append(out, fmt.Sprintf("trace kept in %s, and what existed before the run in %s.initial", textesc.Escape(r.Trace), textesc.Escape(r.Trace)))
	case r.Temp:
		out = append(out, fmt.Sprintf("trace kept in %s", textesc.Escape(r.Trace)))
	}
	if len(r.Leftovers) > 0 {
		procs := make([]string, len(r.Leftovers))
		for i, p := range r.Leftovers {
			procs[i] = fmt.Sprintf("%d (%s)", p.PID, textesc.Escape(p.Comm))
		}
		out = append(out, fmt.Sprintf("warning: the command exited, but %d processes it started still ran %v later and were killed: %s; what they would have written next is not in the trace (--linger to wait longer)",
			len(procs), r.linger, strings.Join(procs, ", ")))
	}
	for _, w := range r.Warnings {
		out = append(out, fmt.Sprintf("warning: %v", w))
	}
	return out
}

// ProgramError says how the traced program failed: killed by a signal,
// or a non-zero exit status; nil when it did not.
func (r *Recording) ProgramError() error {
	switch {
	case r.Signal != "":
		core := ""
		if r.CoreDumped {
			core = " (core dumped)"
		}
		return fmt.Errorf("the traced program was killed by %s%s", r.Signal, core)
	case r.ExitCode != 0:
		return fmt.Errorf("the traced program exited with %d", r.ExitCode)
	}
	return nil
}

// Close removes the snapshot, if one was taken.
func (r *Recording) Close() error {
	if r.Snapshot == "" {
		return nil
	}
	return os.RemoveAll(filepath.Dir(r.Snapshot))
}

// copyTree is explore.CopyTree; a variable so that a test can make the
// copy fail.
var copyTree = explore.CopyTree

// snapshot copies dir into a new temp directory, refusing one too large
// to copy into every state.
func snapshot(dir string) (string, error) {
	if n, ok := CountEntries(dir, MaxListed); !ok {
		return "", usageErrorf("%s holds more than %d entries (%d seen): too large to copy into every state; run in a smaller directory", dir, MaxListed, n)
	}
	tmp := os.TempDir()
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	if within(tmp, dir) {
		// The snapshot would be copied into itself, over and over.
		return "", usageErrorf("the temp directory %s (TMPDIR) is inside %s, which explore copies as the files before the run: set TMPDIR to a directory outside it", tmp, dir)
	}
	work, err := explore.NewRunDir()
	if err != nil {
		return "", &InputError{err}
	}
	snap := filepath.Join(work, "initial")
	err = os.Mkdir(snap, 0o755)
	if err == nil {
		err = copyTree(dir, snap)
	}
	if err != nil {
		os.RemoveAll(work)
		return "", &InputError{fmt.Errorf("snapshot of %s: %w", dir, err)}
	}
	return snap, nil
}

// Inputs are the inputs of a check of the recording: its trace, where it
// started, the machine's mounts, and the listing beside it.
func (r *Recording) Inputs() Inputs {
	return Inputs{Traces: []string{r.Trace}, Cwd: r.Start, Mounts: r.Mounts}
}

// StartDir is the current directory as the kernel names it (strace's -y
// paths have no symlinks), so that it works as a root.
func StartDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("current directory: %w", err)
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	return wd, nil
}

// Run runs cmd. It returns a Recording whenever strace ran, even with an
// error (the command was interrupted): the trace written so far can be
// checked. An error without a Recording is an *InputError: strace or the
// command not found, a trace file that cannot be made.
func (r *Record) Run(ctx context.Context, cmd []string) (*Recording, error) {
	start, err := StartDir()
	if err != nil {
		return nil, &InputError{err}
	}
	rec := &Recording{Start: start, Roots: r.Roots, linger: r.Tracer.Linger}
	if rec.linger == 0 {
		rec.linger = tracer.DefaultLinger
	}
	if len(rec.Roots) == 0 {
		rec.Roots = []string{start}
	}
	if r.Snapshot {
		if rec.Snapshot, err = snapshot(start); err != nil {
			return nil, err
		}
	}
	ok := false
	defer func() {
		if !ok {
			rec.Close()
		}
	}()
	if r.Mountinfo != "" {
		ms, err := tracer.ReadMounts(r.Mountinfo)
		for _, m := range ms {
			rec.Mounts = append(rec.Mounts, check.Mount{Dir: m.Dir, FSType: m.FSType})
		}
		rec.MountsErr = err
	}
	opt := r.Tracer
	if opt.Out != "" {
		// Refused before anything runs: the program is not run for a
		// trace that cannot be kept.
		for _, name := range []string{opt.Out, opt.Out + ".initial"} {
			if err := replacefile.Check(name); err != nil {
				return nil, &InputError{err}
			}
		}
	} else {
		f, err := os.CreateTemp("", "crashsim-*.strace")
		if err != nil {
			return nil, &InputError{fmt.Errorf("trace file: %w", err)}
		}
		opt.Out, rec.Temp = f.Name(), true
		f.Close()
	}
	if r.Shim {
		shim, err := source.WritePythonShim()
		if err != nil {
			return nil, &InputError{fmt.Errorf("python shim: %w", err)}
		}
		defer os.RemoveAll(shim)
		env := opt.Env
		if env == nil {
			env = os.Environ()
		}
		opt.Env = source.WithShim(env, shim)
	}
	// The listing is taken now, before the program runs, and written
	// beside the trace once it has: files written before the run would
	// share the first journal commits of an fsync-heavy program, and a
	// rename over the last run's listing starts writeback (ext4's
	// auto_da_alloc). A listing left from an earlier run goes now, so
	// that it cannot be read as this run's if crashsim dies.
	if !r.NoListing {
		l := TakeListing(rec.Roots, start, append(InheritedFiles(opt.Stdin, opt.Stdout, opt.Stderr), PassedFiles()...), MaxListed)
		rec.Listing = &l
		if err := os.Remove(opt.Out + ".initial"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			rec.Warnings = append(rec.Warnings, fmt.Errorf("cannot remove the listing of an earlier run: %w", err))
		}
	}
	res, runErr := tracer.Run(ctx, cmd, opt)
	if res == nil {
		// strace never ran: nothing to keep.
		if rec.Temp {
			os.Remove(opt.Out)
		}
		var nf *tracer.CommandNotFoundError
		if errors.Is(runErr, tracer.ErrStraceNotFound) || errors.As(runErr, &nf) {
			return nil, &InputError{runErr}
		}
		return nil, &InputError{fmt.Errorf("trace: %w", runErr)}
	}
	rec.Result = res
	ok = true
	if rec.Listing != nil {
		perm := fs.FileMode(tracer.TraceMode)
		if fi, err := os.Stat(res.Trace); err == nil {
			// The listing names what is in the user's directories: it
			// gets the trace's permissions.
			perm = fi.Mode().Perm()
		}
		if err := rec.Listing.Write(res.Trace+".initial", perm); err != nil {
			rec.Warnings = append(rec.Warnings, fmt.Errorf("cannot write the initial listing: %w", err))
		} else {
			rec.listed = true
		}
	}
	return rec, runErr
}

// traceSuffixes are the endings of a file name that says "a trace".
var traceSuffixes = []string{".strace", ".trace"}

// ReportNamedLikeTrace refuses a report path named like a trace. strace's
// -o names the trace, so `crashsim trace -o my.strace -- prog` means "keep
// the trace in my.strace" to anyone who knows strace; crashsim's -o is the
// report, and honouring it would leave a report where a trace is
// expected, which check then fails to parse. Refusing is safer than
// reinterpreting -o: -o means the report in every other command.
func ReportNamedLikeTrace(output string) error {
	base := strings.ToLower(filepath.Base(output))
	for _, suf := range traceSuffixes {
		if output != "" && strings.HasSuffix(base, suf) {
			return fmt.Errorf("-o %s names the report, not the trace (strace's -o is the trace; crashsim's is --out): use --out %s to keep the trace, and -o with another name (report.txt, report.sarif) for the report", output, output)
		}
	}
	return nil
}
