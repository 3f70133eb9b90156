package crashsim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/internal/progress"
)

// explore's progress: what each phase says, and on a terminal one line
// redrawn in place (when lines show, and how often: internal/progress).
func TestExploreProgress(t *testing.T) {
	for _, c := range []struct {
		pr   explore.Progress
		want string
	}{
		{explore.Progress{Phase: "replay", Points: 64, Candidates: 900, Distinct: 40, Elapsed: 6 * time.Second},
			"crashsim: explore: replaying: 64 crash points, 900 states, 40 distinct (6s)"},
		{explore.Progress{Phase: "check", Done: 10, Total: 40, Failed: 1, Elapsed: 8 * time.Second},
			"crashsim: explore: checking: 10 of 40 states, 1 rejected, 1/s (8s)"},
	} {
		if got := ExploreProgress(c.pr); got != c.want {
			t.Errorf("progress line %q, want %q", got, c.want)
		}
	}

	var b bytes.Buffer
	live := progress.New(&b, true, 0)
	live.Update(func() string {
		return ExploreProgress(explore.Progress{Phase: "check", Done: 1, Total: 2, Elapsed: time.Second})
	})
	live.Clear()
	if got := b.String(); !strings.HasPrefix(got, "\r\x1b[Kcrashsim: explore: checking: 1 of 2 states") || !strings.HasSuffix(got, "\r\x1b[K") || strings.Contains(got, "\n") {
		t.Errorf("on a terminal: %q", got)
	}
}

// TestStatesUncheckedInterrupted: blind-states-unchecked says how many
// states the checker ran on: the bound, unless the run was interrupted
// before it got there.
func TestStatesUncheckedInterrupted(t *testing.T) {
	for _, c := range []struct {
		res  explore.Result
		want string
	}{
		{explore.Result{Distinct: 30, Checked: 20, Skipped: 10}, "let the checker run on 20 of the 30 distinct crash states"},
		{explore.Result{Distinct: 30, Checked: 7, Skipped: 10, Interrupted: true}, "let the checker run on 7 of the 30 distinct crash states"},
	} {
		w, ok := statesUnchecked(&c.res, 20, false, "t.strace")
		if !ok || !strings.Contains(w.Message, c.want) {
			t.Errorf("checked %d, interrupted %v: %q (blind spot %v), want it to say %q", c.res.Checked, c.res.Interrupted, w.Message, ok, c.want)
		}
	}
}

// TestExplorePointsBound: a sampled point whose count is a lower bound
// says so beside the bound, which "at least 2 states, 32 built" did not:
// it read as fewer states than were built. An exact count says nothing
// more.
func TestExplorePointsBound(t *testing.T) {
	res := &explore.Result{Sampled: 2, PointStats: []explore.PointStats{
		{Line: 921, Admitted: 32, Built: 32, Families: explore.FamilyPrefix},
		{Line: 930, Admitted: 400, Exact: true, Built: 16, Families: explore.FamilyPrefix},
	}}
	var b bytes.Buffer
	ExplorePoints(&b, res, false)
	want := "crashsim:   after line 921: at least 32 states (the model did not count them all), 32 built, sampled (prefix), 0 new, 0 checked here\n" +
		"crashsim:   after line 930: 400 states, 16 built, sampled (prefix), 0 new, 0 checked here\n"
	if got := b.String(); got != want {
		t.Errorf("points:\n%s\nwant:\n%s", got, want)
	}
}
