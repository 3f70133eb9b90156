package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/google/go-cmp/cmp"
)

// exploreRun is a whole run's findings: one per failing state, at state
// indexes 2, 3, 7 and 8.
func exploreRun() *check.Result {
	rule, _ := check.Lookup(check.CheckerFailed)
	res := &check.Result{Summary: check.Summary{Events: 40, Files: 2}}
	for _, idx := range []int{2, 3, 7, 8} {
		res.Findings = append(res.Findings, &check.Finding{
			Rule: rule, Path: "/d/config.json", Trace: "t.strace", Line: 10 + idx, PID: 42, StateIndex: idx,
			Message: fmt.Sprintf("state %d rejected", idx), Models: []string{"posix"},
			Related: []check.Related{{Trace: "t.strace", Line: 9, Syscall: "write", What: "not on disk in this state"}},
			State:   &check.State{Line: 10 + idx, Path: "/d/config.json", Outcome: "empty", Persisted: "none"},
		})
		res.Summary.Errors++
	}
	return res
}

// shardsOf splits a run as explore --shard does: shard i of n holds the
// findings of states i, i+n, ...
func shardsOf(t *testing.T, res *check.Result, n int, render func(*bytes.Buffer, *check.Result, Options) error) []Shard {
	t.Helper()
	var shards []Shard
	for i := 1; i <= n; i++ {
		part := &check.Result{Summary: res.Summary}
		part.Summary.Errors = 0
		for _, f := range res.Findings {
			if (f.StateIndex-1)%n == i-1 {
				part.Findings = append(part.Findings, f)
				part.Summary.Errors++
			}
		}
		var b bytes.Buffer
		if err := render(&b, part, Options{Models: []string{"posix"}, Shard: fmt.Sprintf("%d/%d", i, n)}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, Shard{Name: fmt.Sprintf("shard%d", i), Data: b.Bytes()})
	}
	return shards
}

func TestMergeEqualsWhole(t *testing.T) {
	formats := map[string]func(*bytes.Buffer, *check.Result, Options) error{
		"json":  func(b *bytes.Buffer, r *check.Result, o Options) error { return JSON(b, r, o) },
		"sarif": func(b *bytes.Buffer, r *check.Result, o Options) error { return SARIF(b, r, o) },
	}
	for name, render := range formats {
		var want bytes.Buffer
		if err := render(&want, exploreRun(), Options{Models: []string{"posix"}}); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 5} {
			shards := shardsOf(t, exploreRun(), n, render)
			// Any order of arguments.
			shards[0], shards[len(shards)-1] = shards[len(shards)-1], shards[0]
			var got bytes.Buffer
			m, err := Merge(&got, shards)
			if err != nil {
				t.Fatalf("%s, %d shards: %v", name, n, err)
			}
			if m.Format != name || len(m.Severity) != 4 || m.Severity[0] != check.Error {
				t.Errorf("%s, %d shards: merged %+v", name, n, m)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("%s, %d shards: merge differs from the whole report (-want +got):\n%s", name, n, diff)
			}
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	json := func(b *bytes.Buffer, r *check.Result, o Options) error { return JSON(b, r, o) }
	sarif := func(b *bytes.Buffer, r *check.Result, o Options) error { return SARIF(b, r, o) }
	three := shardsOf(t, exploreRun(), 3, json)
	var whole bytes.Buffer
	if err := JSON(&whole, exploreRun(), Options{Models: []string{"posix"}}); err != nil {
		t.Fatal(err)
	}
	other := exploreRun()
	other.Summary.Events = 41
	cases := []struct {
		name   string
		shards []Shard
		want   string
	}{
		{"missing", three[:2], "shard 3 of 3 missing"},
		{"twice", []Shard{three[0], three[1], three[1], three[2]}, "shard2 and shard2 are both shard 2/3"},
		{"not a shard", []Shard{three[0], {Name: "whole", Data: whole.Bytes()}}, "whole is not the report of a shard"},
		{"two runs", []Shard{three[0], shardsOf(t, other, 3, json)[1], three[2]}, "come from different runs"},
		{"two counts", []Shard{three[0], shardsOf(t, exploreRun(), 2, json)[1]}, "shard of 3, shard2 of 2"},
		{"two formats", []Shard{three[0], shardsOf(t, exploreRun(), 3, sarif)[1]}, "shard1 is json, shard2 is sarif"},
		{"not a report", []Shard{{Name: "x", Data: []byte("{}")}}, "x: neither crashsim's JSON"},
		{"not json", []Shard{{Name: "x", Data: []byte("state=1")}}, "x: not a JSON or SARIF report"},
	}
	for _, c := range cases {
		_, err := Merge(&bytes.Buffer{}, c.shards)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
