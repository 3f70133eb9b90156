package crashsim

import (
	"runtime"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
)

// Check is a check of one or more traces: what to read, what is in scope,
// and under which persistence models.
type Check struct {
	Inputs
	// Scope limits the paths checked. Its Ignore globs leave paths out of
	// the check itself; to count what they leave out, give them to
	// Filter instead (the command line does).
	Scope
	// Models are the persistence models to report; none is posix.
	// Findings are computed under every model and name those they happen
	// under (check.Evaluated).
	Models []model.Persistence
	// AcceptBlind are blind spots the caller accepts: they are still
	// reported, marked accepted (check.BlindWarning.Accepted).
	AcceptBlind []string
	// SpillAt, above 0, is how many findings are kept in memory; past it
	// they go to a temp file, and the Result must be closed.
	SpillAt int
	// NeedData says the caller builds crash states from the findings'
	// trace: a write in scope whose bytes the trace lacks is blind spot
	// blind-no-data.
	NeedData bool
	// Recording, when set, hears what each trace showed of how it was
	// recorded (check.Watcher.Describe).
	Recording func(trace, what string)
}

// Result is what a check found in its traces, with what names the
// findings the same way in every checkout (see Identify).
type Result struct {
	*check.Result
	// Starts are the directories the traces started in, in the order
	// of the traces, each once: identity names paths below them relative
	// to them.
	Starts []string
	// Roots are the roots the traces' listings gave the check when the
	// caller gave none (Start.Roots), each once: identity names paths
	// below them relative to them, as crashsim trace did.
	Roots []string
	// marks are the Python source marks the traces held.
	marks []lineMark
}

// Run checks each trace and joins the results: findings in the order of
// the traces, counts summed, every trace's blind spots.
func (c *Check) Run() (*Result, error) {
	if err := c.Scope.Validate(); err != nil {
		return nil, err
	}
	if err := ValidateAccepted(c.AcceptBlind); err != nil {
		return nil, err
	}
	total := &Result{Result: &check.Result{Models: check.Evaluated(c.Models)}}
	ok := false
	defer func() {
		if !ok {
			total.Close()
		}
	}()
	what := forModel
	if c.NeedData {
		what = forAll // the findings' states carry written bytes
	}
	for _, t := range c.Traces {
		st, err := c.Start(t)
		if err != nil {
			return nil, err
		}
		opt := c.options(c.Scope, st)
		opt.Models, opt.SpillAt, opt.NeedData = c.Models, c.SpillAt, c.NeedData
		total.addStart(st.Cwd)
		if len(c.Scope.Roots) == 0 {
			for _, r := range st.Roots {
				if !contains(total.Roots, r) {
					total.Roots = append(total.Roots, r)
				}
			}
		}
		// check.Run, its models, rules and watcher, and markTap keep
		// nothing of an event past the next one but strings and copies
		// (model.Ref), so its memory may serve the events after it.
		stream, err := c.openRecycled(t, what, st.Arch, recycleCheck)
		if err != nil {
			return nil, err
		}
		tap := &markTap{Stream: stream}
		res, err := check.Run(tap, opt)
		stream.Close()
		if err != nil {
			return nil, inputError(err)
		}
		namedWarnings(res.Warnings, t)
		total.marks = append(total.marks, tap.marks...)
		if c.Recording != nil {
			c.Recording(t, res.Recording)
		}
		total.Join(res)
	}
	markAccepted(total.Warnings, c.AcceptBlind)
	if total.Spilled() {
		// The models are garbage now, but the heap goal was set while
		// they were live: without a collection here, reading a million
		// findings back lets the heap grow to twice the models' size.
		runtime.GC()
	}
	ok = true
	return total, nil
}

// namedWarnings names trace in the blind spots that name no file: those
// of a trace with no event at all.
func namedWarnings(ws []check.BlindWarning, trace string) {
	for i := range ws {
		if ws[i].Trace == "" {
			ws[i].Trace = trace
		}
	}
}

// recycleCheck says whether Run reads its traces with
// parser.Options.Recycle; a variable so that a test can compare with
// reading without it.
var recycleCheck = true

// addStart adds a trace's start directory, once.
func (r *Result) addStart(dir string) {
	if dir == "" {
		return
	}
	for _, s := range r.Starts {
		if s == dir {
			return
		}
	}
	r.Starts = append(r.Starts, dir)
}

// ValidateAccepted rejects a blind spot ID (Check.AcceptBlind) that names
// no blind spot, before any work is done.
func ValidateAccepted(ids []string) error {
	for _, id := range ids {
		if _, ok := check.LookupBlind(id); !ok {
			var all []string
			for _, b := range check.BlindSpots() {
				all = append(all, b.ID)
			}
			return usageErrorf("--accept-blind %s: no such blind spot (%s)", id, strings.Join(all, ", "))
		}
	}
	return nil
}

// markAccepted marks the blind spots whose IDs the caller accepts.
func markAccepted(ws []check.BlindWarning, ids []string) {
	for i := range ws {
		for _, id := range ids {
			if ws[i].ID == id {
				ws[i].Accepted = true
			}
		}
	}
}

// Blind reports whether a blind spot the caller did not accept is left:
// a verdict of "clean" would be a guess.
func Blind(ws []check.BlindWarning) bool {
	for _, w := range ws {
		if !w.Accepted {
			return true
		}
	}
	return false
}
