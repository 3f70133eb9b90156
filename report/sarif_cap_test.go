package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/google/go-cmp/cmp"
)

// manyStates is an explore result of n rejected states of one file: one
// problem of n findings, each a consequence of the first.
func manyStates(n int, keep func(i int) bool) *check.Result {
	return statesOf(n, keep, func(int) string { return "/d/config.json" })
}

// statesOf is an explore result of n rejected states, state i of file
// path(i).
func statesOf(n int, keep func(i int) bool, path func(i int) string) *check.Result {
	rule, _ := check.Lookup(check.CheckerFailed)
	var fs []*check.Finding
	for i := 1; i <= n; i++ {
		if !keep(i) {
			continue
		}
		fs = append(fs, &check.Finding{
			Rule: rule, Path: path(i), Trace: "/d/t.strace", Line: 10 + i%7, PID: 42,
			Message: fmt.Sprintf("state %d rejected", i), Models: []string{"posix"},
			Related:    []check.Related{{Trace: "/d/t.strace", Line: 9, Syscall: "write", What: "not on disk in this state"}},
			State:      &check.State{Line: 10 + i%7, Path: path(i), Outcome: "empty", Persisted: "none", Words: fmt.Sprintf("empty (state %d)", i)},
			StateIndex: i,
		})
	}
	res := resultOf(fs...)
	res.Summary.Events, res.Summary.Files = 20, 1
	return res
}

// resultsOf reads the results of a SARIF log.
func resultsOf(t *testing.T, log []byte) []*wire.SARIFResult {
	t.Helper()
	r := wire.NewReader(bytes.NewReader(log))
	var out []*wire.SARIFResult
	for {
		it, err := r.Next()
		if err != nil {
			return out
		}
		out = append(out, it.Result)
	}
}

// TestSARIFRelatedCapped: code scanning refuses a log with a result of
// more than 1000 related locations, and a problem has one for each
// consequence. The result keeps 1000, the last saying how many more;
// its properties still name every finding. A shard's result is not cut
// (merge cuts the joined one), and the merge of the shards is the
// whole run's log.
func TestSARIFRelatedCapped(t *testing.T) {
	const n = 1500
	run := &wire.RunID{Trace: "sha256:" + strings.Repeat("a", 64), Checker: "sha256:" + strings.Repeat("b", 64), Options: "--model posix"}
	opt := Options{Roots: []string{"/d"}, Run: run}
	var whole bytes.Buffer
	if err := SARIF(&whole, manyStates(n, func(int) bool { return true }), opt); err != nil {
		t.Fatal(err)
	}
	rs := resultsOf(t, whole.Bytes())
	if len(rs) != 1 {
		t.Fatalf("%d results, want 1", len(rs))
	}
	r := rs[0]
	if got := len(r.RelatedLocations); got != wire.MaxRelatedLocations {
		t.Errorf("%d related locations, want %d", got, wire.MaxRelatedLocations)
	}
	// The primary's one related event, then 1499 consequences: 999 kept,
	// the 1000th says 501 more.
	last := r.RelatedLocations[len(r.RelatedLocations)-1]
	if last.Message == nil || !strings.HasPrefix(last.Message.Text, "501 more related locations") || *last.ID != wire.MaxRelatedLocations {
		t.Errorf("last related location %+v", last)
	}
	if r.Properties == nil || len(r.Properties.Findings) != n {
		t.Errorf("properties name %d findings, want %d", len(r.Properties.Findings), n)
	}
	// Two shards, each holding more than the cap uncut; merged, the
	// whole log.
	var shards []wire.Shard
	for k := 1; k <= 2; k++ {
		var b bytes.Buffer
		o := opt
		o.Shard = fmt.Sprintf("%d/2", k)
		if err := SARIF(&b, manyStates(n, func(i int) bool { return i%2 == k%2 }), o); err != nil {
			t.Fatal(err)
		}
		if got := len(resultsOf(t, b.Bytes())[0].RelatedLocations); got != 1+n/2-1 {
			t.Errorf("shard %d: %d related locations, want every one (%d)", k, got, n/2)
		}
		shards = append(shards, wire.Shard{Name: o.Shard, Data: bytes.NewReader(b.Bytes()), Size: int64(b.Len())})
	}
	var merged bytes.Buffer
	if _, err := wire.Merge(&merged, shards); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole.String(), merged.String()); diff != "" {
		t.Errorf("the merge differs from the whole log (-whole +merged):\n%s", diff)
	}
}

// TestSARIFResultsCut: code scanning refuses a log whose run has more
// than 25,000 results, one for each problem. The log holds the first
// 25,000 and a notification of how many are left out; the counts (and
// so the exit status) are of them all. A shard's log is not cut, and
// the merge of the shards is the whole run's log.
func TestSARIFResultsCut(t *testing.T) {
	const n = wire.MaxResults + 3
	run := &wire.RunID{Trace: "sha256:" + strings.Repeat("a", 64), Checker: "sha256:" + strings.Repeat("b", 64), Options: "--model posix"}
	opt := Options{Roots: []string{"/d"}, Run: run}
	path := func(i int) string { return fmt.Sprintf("/d/f%d.json", i) }
	var whole bytes.Buffer
	if err := SARIF(&whole, statesOf(n, func(int) bool { return true }, path), opt); err != nil {
		t.Fatal(err)
	}
	if got := len(resultsOf(t, whole.Bytes())); got != wire.MaxResults {
		t.Errorf("%d results, want %d", got, wire.MaxResults)
	}
	if !strings.Contains(whole.String(), `"id": "`+wire.ResultsCut+`"`) || !strings.Contains(whole.String(), "25003 problems, 3 of them not in this log") {
		t.Errorf("no notification of the problems left out")
	}
	var shards []wire.Shard
	for k := 1; k <= 2; k++ {
		var b bytes.Buffer
		o := opt
		o.Shard = fmt.Sprintf("%d/2", k)
		if err := SARIF(&b, statesOf(n, func(i int) bool { return i%2 == k%2 }, path), o); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, wire.Shard{Name: o.Shard, Data: bytes.NewReader(b.Bytes()), Size: int64(b.Len())})
	}
	var merged bytes.Buffer
	m, err := wire.Merge(&merged, shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Errors != n {
		t.Errorf("merge counts %d errors, want every problem's: %d", m.Errors, n)
	}
	if merged.String() != whole.String() {
		t.Errorf("the merge differs from the whole log")
	}
}

// TestTextConsequencesShown: a problem's text block lists its first
// ShownConsequences consequences and says how many more; with
// AllConsequences (-v), every one.
func TestTextConsequencesShown(t *testing.T) {
	const n = ShownConsequences + 8 // the primary and 57 consequences
	res := manyStates(n, func(int) bool { return true })
	lines := func(opt Options) (shown int, more string) {
		var b bytes.Buffer
		if err := Text(&b, res, opt); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			switch {
			case strings.Contains(l, " checker-failed: a crash right after line "):
				shown++
			case strings.HasPrefix(l, "    ... and "):
				more = l
			}
		}
		return shown, more
	}
	shown, more := lines(Options{Roots: []string{"/d"}})
	if shown != ShownConsequences || more != "    ... and 7 more consequences: -v lists every one, --format json holds each" {
		t.Errorf("%d consequence lines and %q, want %d and 7 more", shown, more, ShownConsequences)
	}
	shown, more = lines(Options{Roots: []string{"/d"}, AllConsequences: true})
	if shown != n-1 || more != "" {
		t.Errorf("with AllConsequences: %d consequence lines and %q, want %d", shown, more, n-1)
	}
	// Few enough: every one, and no line of more.
	res = manyStates(ShownConsequences+1, func(int) bool { return true })
	if shown, more = lines(Options{Roots: []string{"/d"}}); shown != ShownConsequences || more != "" {
		t.Errorf("%d consequences: %d lines and %q", ShownConsequences, shown, more)
	}
}
