package crashsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// Explore is an exploration of one trace (package explore): each crash
// state built on disk and a checker run on it, with check's findings on
// the same trace, under the same model and scope, naming the rule behind
// a state the checker rejects.
type Explore struct {
	// Inputs name one trace (Traces[0]) and where it began.
	Inputs
	// Ignore leaves paths below the root out of the exploration, as
	// Scope.Ignore does.
	Ignore []string
	// AcceptBlind are blind spots the caller accepts (see Check).
	AcceptBlind []string
	// Options are explore's; Run sets Trace, Existed, Scope, Predict and
	// Reopen, and refuses a WorkDir at or below Root or Initial.
	Options explore.Options
}

// Validate rejects, before any work is done (a program traced first),
// what Run would: a bad ignore glob, a blind spot that does not exist, an
// Initial that is not a directory.
func (e *Explore) Validate() error {
	if err := (Scope{Ignore: e.Ignore}).Validate(); err != nil {
		return err
	}
	if err := ValidateAccepted(e.AcceptBlind); err != nil {
		return err
	}
	if in := e.Options.Initial; in != "" {
		if fi, err := os.Stat(in); err != nil || !fi.IsDir() {
			return usageErrorf("--initial %s: not a directory", in)
		}
	}
	return nil
}

// Run explores the trace. The Result holds the findings of the states the
// checker rejected and the trace's blind spots; the explore.Result says
// what was explored. When the trace leaves out changes no state can be
// built with (a blind spot of unbuilt, not accepted: bytes neither the
// trace nor the snapshot holds, stores into a shared mapping, io_uring,
// Linux AIO) nothing is explored: the explore.Result is nil and the Result
// holds the blind spots.
func (e *Explore) Run(ctx context.Context) (*Result, *explore.Result, error) {
	if err := e.Validate(); err != nil {
		return nil, nil, err
	}
	opt := e.Options
	if opt.WorkDir != "" {
		dir, err := workDir(opt.WorkDir, opt.Root, opt.Initial)
		if err != nil {
			return nil, nil, &UsageError{err}
		}
		opt.WorkDir = dir
	}
	if len(e.Traces) != 1 {
		return nil, nil, usageErrorf("an exploration reads one trace; %d given", len(e.Traces))
	}
	trace := e.Traces[0]
	opt.Trace = trace
	in := e.Inputs
	if opt.Initial != "" {
		in.Existed = explore.ExistedIn(opt.Root, opt.Initial)
		in.InitialSize = explore.SizeIn(opt.Root, opt.Initial)
	}
	st, err := in.Start(trace)
	if err != nil {
		return nil, nil, err
	}
	opt.Cwd, opt.FDs, opt.NameFiles = st.Cwd, st.FDs, st.Set
	if opt.Initial == "" {
		// Without a snapshot the listing still tells created files from
		// replaced ones; a replaced file's old bytes are then unknown.
		opt.Existed, opt.InitialSize = st.Existed, st.InitialSize
	}
	sc := Scope{Roots: []string{opt.Root}, Ignore: e.Ignore}
	scope := in.options(sc, st)
	opt.Scope = scope.InScope

	// The parser's warnings are said once, from the exploration.
	quiet := in
	quiet.Parse.Warn, quiet.Parse.Diag = nil, nil
	c := Check{Inputs: quiet, Scope: sc, Models: []model.Persistence{opt.Persistence}, AcceptBlind: e.AcceptBlind, NeedData: true}
	c.Traces = []string{trace}
	predicted, err := c.Run()
	if err != nil {
		return nil, nil, err
	}
	if opt.Predict, err = predicted.List(); err != nil {
		return nil, nil, err
	}
	out := &Result{Result: &check.Result{Warnings: predicted.Warnings, Notes: predicted.Notes}, Starts: predicted.Starts, marks: predicted.marks}
	if w, ok := unmodeledData(opt.Predict, e.AcceptBlind); ok {
		out.Warnings = append(out.Warnings, w)
	}
	if Unbuilt(out.Warnings) != nil {
		out.Summary.Events = predicted.Summary.Events
		out.Summary.Files = predicted.Summary.Files
		return out, nil, nil
	}
	for i, w := range out.Warnings {
		if u, ok := unbuilt[w.ID]; ok && w.Accepted && u.accepted != "" {
			out.Warnings[i].Message += "; " + u.accepted
		}
	}
	stream, err := in.open(trace, forAll, st.Arch)
	if err != nil {
		return nil, nil, err
	}
	// explore reads the trace a second time to check each state at the
	// last line that leaves it; the warnings were said the first time.
	opt.Reopen = func() (parser.Stream, error) { return quiet.open(trace, forAll, st.Arch) }
	res, err := explore.Run(ctx, stream, opt)
	stream.Close()
	if err != nil {
		if pe := (*parser.Error)(nil); errors.As(err, &pe) {
			return nil, nil, inputError(err)
		}
		// A state that cannot be built: the error names the trace line.
		return nil, nil, &InputError{fmt.Errorf("%s: %w", textesc.Escape(trace), err)}
	}
	out.Summary.Events = res.Events
	// The files as check counts them, by the name a user knows (a file
	// and the temp name it was renamed from are one): explore's own count
	// is of every path a state held.
	out.Summary.Files = predicted.Summary.Files
	out.Add(res.Findings...)
	if w, ok := statesUnchecked(res, opt.MaxStates, opt.EveryLine, trace); ok {
		out.Warnings = append(out.Warnings, w)
		markAccepted(out.Warnings, e.AcceptBlind)
	}
	if w, ok := tornInCall(opt.Predict); ok {
		out.Warnings = append(out.Warnings, w)
		markAccepted(out.Warnings, e.AcceptBlind)
	}
	return out, res, nil
}

// tornInCall is blind spot blind-states-unchecked when check found a write
// durable on return (O_DSYNC) that a crash can tear while the call runs:
// crash points fall between calls, so explore built no such state, and
// the checker never judged one. Without it a run whose checker accepted
// every state it built exited 0 beside check's warning.
func tornInCall(fs []*check.Finding) (check.BlindWarning, bool) {
	var first *check.Finding
	n := 0
	for _, f := range fs {
		if check.TornInsideCall(f) {
			if first == nil {
				first = f
			}
			n++
		}
	}
	if first == nil {
		return check.BlindWarning{}, false
	}
	msg := fmt.Sprintf("%s: the write durable on return (O_SYNC, O_DSYNC or RWF_DSYNC) at line %d went over data on disk, and a crash while the call runs can leave it torn (check's overwrite-in-place); crash points fall between calls, so explore built no such state and the checker never judged one",
		report.QuotePaths([]string{first.Path})[0], first.Line)
	if n > 1 {
		msg += fmt.Sprintf(" (and %d more such writes)", n-1)
	}
	return check.BlindWarning{ID: check.BlindStatesUnchecked, Message: msg, Trace: first.Trace, Line: first.Line,
		Fix: "no explore option builds a state inside a call: make the change durable in a journal (or a new file renamed over this one) before overwriting in place, or check that the program recovers from a torn record by other means"}, true
}

// unbuilt are the blind spots that leave out changes to files in scope
// which no state explore builds can hold, so that its checker would judge
// states no crash leaves: the bytes of a write or a reflink (blind-no-data,
// from check or unmodeledData), the stores
// into a shared writable mapping, the operations of an io_uring, the writes
// Linux AIO completes. Any of them not accepted stops the exploration
// before a state is built (Run): a blind spot, never a pass, and never a
// checker failure that is the trace's gap and not the program's. Accepted,
// explore goes on: blind-no-data then fails at the first write whose bytes
// it lacks; the others build their states from what the trace shows, and
// accepted says so in the warning.
var unbuilt = map[string]struct{ why, accepted string }{
	check.BlindNoData: {why: "the crash states need bytes that neither the trace nor the initial snapshot holds"},
	check.BlindSharedMmap: {why: "the program changed a file by storing into a shared mapping, which no trace line shows, so no crash state of it can be built",
		accepted: "explore built that file's states from the writes the trace shows, without the stores through the mapping: a state the checker rejects can be one no crash leaves"},
	check.BlindIOUring: {why: "the program submitted file operations through an io_uring, which no trace line shows, so no crash state with them can be built",
		accepted: "explore built its states from the calls the trace shows, without the operations submitted through the ring: a state the checker rejects can be one no crash leaves"},
	check.BlindLinuxAIO: {why: "the program queued writes with io_submit (Linux AIO), which crashsim does not model, so no crash state with them can be built",
		accepted: "explore built its states from the calls the trace shows, without the writes queued with io_submit: a state the checker rejects can be one no crash leaves"},
}

// unmodeledData is blind spot blind-no-data for the first file check's
// rule unmodeled-write names (a reflink, an fallocate that moves data):
// the trace shows the call, never the data the file holds after it, which
// every later crash state of the file needs. check says so with a finding,
// as its verdict on the other files stands; explore would build the file
// without the change, and its checker judge that. Accepted, the warning
// says so.
func unmodeledData(fs []*check.Finding, accept []string) (check.BlindWarning, bool) {
	var first *check.Finding
	n := 0
	for _, f := range fs {
		if f.Rule != nil && f.Rule.ID == check.UnmodeledWrite {
			if first == nil {
				first = f
			}
			n++
		}
	}
	if first == nil {
		return check.BlindWarning{}, false
	}
	what := "its data was changed in a way the trace cannot show"
	if len(first.Related) > 0 {
		what = first.Related[0].What
	}
	msg := fmt.Sprintf("%s: %s, so no crash state with its data after that call can be built", report.QuotePaths([]string{first.Path})[0], what)
	if n > 1 {
		msg += fmt.Sprintf(" (and %d more such changes)", n-1)
	}
	w := check.BlindWarning{ID: check.BlindNoData, Message: msg, Trace: first.Trace, Line: first.Line,
		Fix: "no strace flag shows it: explore a build of the program that writes the file with write, pwrite or copy_file_range (cp --reflink=never), or check the file by other means"}
	for _, id := range accept {
		if id == w.ID {
			w.Accepted = true
			w.Message += "; explore built the file's states without that change: a state the checker rejects can be one no crash leaves"
			break
		}
	}
	return w, true
}

// Unbuilt returns the first blind spot of ws, not accepted, that stops an
// exploration (see unbuilt), and nil when none does.
func Unbuilt(ws []check.BlindWarning) *check.BlindWarning {
	for i, w := range ws {
		if _, ok := unbuilt[w.ID]; ok && !w.Accepted {
			return &ws[i]
		}
	}
	return nil
}

// NothingExplored says why Run explored nothing (its explore.Result nil):
// the blind spot that stopped it.
func NothingExplored(r *Result) string {
	why := unbuilt[check.BlindNoData].why
	if w := Unbuilt(r.Warnings); w != nil {
		why = unbuilt[w.ID].why
	}
	return "nothing explored: " + why
}

// workDir checks Options.WorkDir (--work-dir): an existing directory, not at or below the
// root the states stand for or the initial snapshot, which explore reads
// and never writes.
func workDir(dir, root, initial string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--work-dir %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--work-dir %s: not a directory", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("--work-dir %s: %w", dir, err)
	}
	for _, p := range []string{root, initial} {
		if p == "" {
			continue
		}
		rp, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if r, err := filepath.EvalSymlinks(rp); err == nil {
			rp = r
		}
		if within(real, rp) {
			return "", fmt.Errorf("--work-dir %s: inside %s, which explore reads and never writes: give a directory elsewhere", dir, p)
		}
	}
	return real, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
