package crashsim

import (
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/report/wire"
)

// What an exploration says beside its report: on stderr, in the JSON
// report's "explore" object, and while it runs.

// RootChanged is the warning that unjailed checkers changed the real
// files below root (explore.Result.RootChanged); "" when none did.
func RootChanged(root string, ch []string) string {
	if len(ch) == 0 {
		return ""
	}
	shown := ch[:min(len(ch), 3)]
	entries := fmt.Sprintf("%d entries", len(ch))
	if len(ch) == 1 {
		entries = "1 entry"
	}
	return fmt.Sprintf("while the checkers ran, %s below %s changed, though each checker runs in a state directory elsewhere: a checker wrote the real files (an absolute path?): %s; run explore with CAP_SYS_ADMIN (as root) to jail checkers, or have the checker use relative paths or $CRASHSIM_STATE_DIR",
		entries, report.QuotePaths([]string{root})[0], strings.Join(report.QuotePaths(append([]string(nil), shown...)), ", "))
}

// ExploreSummary says what was explored, beside the report; everyLine
// is explore.Options.EveryLine, under which --max-states counts checks of
// a state at a crash line rather than distinct states.
func ExploreSummary(res *explore.Result, everyLine bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "crashsim: explored %d crash points (%d exhaustively, %d sampled): the model admits %s crash states; %d built, %d distinct; the checker ran on %d and rejected %d",
		res.Points, res.Exhaustive, res.Sampled, report.StateCount(res.Admitted, res.AdmittedExact), res.Candidates, res.Distinct, res.Checked, res.Failed)
	if res.Skipped > 0 {
		what := fmt.Sprintf("%d more distinct states not checked", res.Skipped)
		switch {
		case everyLine && res.Skipped == 1:
			what = "1 more check of a state at a crash line not made"
		case everyLine:
			what = fmt.Sprintf("%d more checks of a state at a crash line not made", res.Skipped)
		case res.Skipped == 1:
			what = "1 more distinct state not checked"
		}
		fmt.Fprintf(&b, "; %s (--max-states)", what)
	}
	fmt.Fprintf(&b, " (%.1fs", res.Wall.Seconds())
	if res.Checked > 0 && res.Wall > 0 {
		fmt.Fprintf(&b, ", %.0f states/s", float64(res.Checked)/res.Wall.Seconds())
	}
	b.WriteString(")")
	if res.Sampled > 0 {
		f := res.Families
		fmt.Fprintf(&b, "\ncrashsim: sampled points built %d predicted, %d prefix, %d drop, %d torn, %d size-only and %d random states (seed %d)",
			f.Predicted, f.Prefix, f.Drop, f.Torn, f.Size, f.Random, res.Seed)
	}
	return b.String()
}

// shownPoints is how many sampled crash points are listed on stderr
// (--verbose: every point).
const shownPoints = 10

// ExplorePoints lists the sampled crash points (all: every point): how
// many states the model admits there, how many were built and checked.
func ExplorePoints(w io.Writer, res *explore.Result, all bool) {
	shown := 0
	for _, p := range res.PointStats {
		if p.Exhaustive && !all {
			continue
		}
		if shown == shownPoints && !all {
			fmt.Fprintf(w, "crashsim:   and %d more sampled points (--verbose lists every point, --format json too)\n", res.Sampled-shown)
			break
		}
		shown++
		how := "all built"
		if !p.Exhaustive {
			how = fmt.Sprintf("%d built, sampled (%s)", p.Built, strings.Join(p.Families.Names(), ", "))
		}
		at := fmt.Sprintf("after line %d", p.Line)
		if p.Line == 0 {
			at = "before the first event"
		}
		// A count that is only a bound (explore raised it to the states
		// built there) says so, not to read as fewer than were built.
		admits := report.StateCount(p.Admitted, p.Exact) + " states"
		if !p.Exact && p.Admitted < 1<<62 {
			admits += " (the model did not count them all)"
		}
		fmt.Fprintf(w, "crashsim:   %s: %s, %s, %d new, %d checked here\n", at, admits, how, p.New, p.Checked)
	}
}

// statesUnchecked is blind spot blind-states-unchecked when maxStates
// (--max-states) left distinct states of res unchecked: the summary's
// count alone let a run exit 0 that had not checked them.
//
// The per-point bound (--max-joint) is no blind spot. Past it explore
// builds states on purpose, in an order: those check's findings predict
// (check's rules look at every crash point, whatever explore builds),
// prefixes of the pending operations, each one dropped, each write torn,
// each write's size without its data, then seeded samples; and the report
// says which points were sampled, how many states each admits and how many
// it had built. A larger --max-joint makes a point exhaustive only while
// it admits few states (one can admit far more than any run could build),
// and the explorations of real programs in fixtures/apps sample many of
// their points (git's default commit 17 of 27), so as a blind spot it
// would fail most of them until accepted out of habit, and exit 6 would
// stop meaning anything. --max-states instead leaves out distinct states
// already built, picked by their place in the order they were found
// (spread over it; with --every-line, past the first checks), with no
// regard for what they hold, and 0 lifts it: a run that hit it did not
// check what it was asked to.
func statesUnchecked(res *explore.Result, maxStates int, everyLine bool, trace string) (check.BlindWarning, bool) {
	if res.Skipped == 0 {
		return check.BlindWarning{}, false
	}
	b, _ := check.LookupBlind(check.BlindStatesUnchecked)
	left := fmt.Sprintf("the other %d were not checked, and any of them could be", res.Skipped)
	if res.Skipped == 1 {
		left = "the other was not checked, and it could be"
	}
	// An interrupted run stopped short of the bound: the checker ran on
	// what it completed.
	ran := maxStates
	if res.Interrupted {
		ran = min(ran, res.Checked)
	}
	msg := fmt.Sprintf("--max-states %d let the checker run on %d of the %d distinct crash states explore built: %s a state the program cannot recover from",
		maxStates, ran, res.Distinct, left)
	if everyLine {
		// Skipped counts checks of a state at a crash line, past the
		// first maxStates of them.
		left = fmt.Sprintf("the other %d were not made, and any of them could have met", res.Skipped)
		if res.Skipped == 1 {
			left = "the other was not made, and it could have met"
		}
		msg = fmt.Sprintf("--max-states %d let the checker run on %d of the %d checks --every-line asks for (each distinct crash state at every crash line that can leave it): %s a state the program cannot recover from",
			maxStates, ran, maxStates+res.Skipped, left)
	}
	return check.BlindWarning{ID: b.ID, Message: msg, Trace: trace, Fix: b.Fix}, true
}

// ExploreReport is the report's account of the exploration.
func ExploreReport(res *explore.Result, opt explore.Options) *wire.Explore {
	x := &wire.Explore{Points: res.Points, Exhaustive: res.Exhaustive, Sampled: res.Sampled, Admitted: res.Admitted,
		AdmittedExact: res.AdmittedExact, Built: res.Candidates, Distinct: res.Distinct, Checked: res.Checked, Rejected: res.Failed,
		NotChecked: res.Skipped, MaxJoint: opt.MaxJoint, Samples: max(opt.Samples, 0), Seed: opt.Seed, EveryLine: opt.EveryLine,
		Families:    wire.ExploreFamilies(res.Families),
		CrashPoints: make([]wire.ExplorePoint, 0, len(res.PointStats))}
	for _, p := range res.PointStats {
		fams := p.Families.Names()
		if fams == nil {
			fams = []string{}
		}
		x.CrashPoints = append(x.CrashPoints, wire.ExplorePoint{Line: p.Line, Admitted: p.Admitted, Exact: p.Exact,
			Exhaustive: p.Exhaustive, Families: fams, Built: p.Built, New: p.New, Checked: p.Checked})
	}
	return x
}

// ExploreProgress says how far an exploration has got.
func ExploreProgress(pr explore.Progress) string {
	if pr.Phase == "replay" {
		return fmt.Sprintf("crashsim: explore: replaying: %d crash points, %d states, %d distinct (%.0fs)", pr.Points, pr.Candidates, pr.Distinct, pr.Elapsed.Seconds())
	}
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Done) / s
	}
	return fmt.Sprintf("crashsim: explore: checking: %d of %d states, %d rejected, %.0f/s (%.0fs)", pr.Done, pr.Total, pr.Failed, rate, pr.Elapsed.Seconds())
}

// ExploreRunID is the identity of an exploration, which merge compares
// across shards: the trace's bytes, the checker and the options that
// decide which states are built and checked. A trace that is not a
// regular file has no digest, and the report no identity (merge refuses
// its shards).
func ExploreRunID(in Inputs, opt explore.Options, ignore []string) *wire.RunID {
	if len(in.Traces) != 1 {
		return nil
	}
	digest, err := parser.Digest(in.Traces[0])
	if err != nil {
		return nil
	}
	opts := fmt.Sprintf("--model %s --max-states %d --max-joint %d --samples %d --seed %d", opt.Persistence, opt.MaxStates, opt.MaxJoint, opt.Samples, opt.Seed)
	if opt.EveryLine {
		opts += " --every-line"
	}
	for _, g := range ignore {
		opts += " --ignore " + strconv.Quote(g)
	}
	return &wire.RunID{Trace: digest, Checker: fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(opt.Checker))), Options: opts}
}
