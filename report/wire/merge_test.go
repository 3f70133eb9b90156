package wire

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runFindings are a whole explore run's findings: one per rejected state,
// at state indexes 2, 3, 7 and 8, the last a warning.
func runFindings() []Finding {
	var fs []Finding
	for _, idx := range []int{2, 3, 7, 8} {
		fs = append(fs, Finding{
			Rule: "checker-failed", Severity: "error", Path: "/d/config.json", Trace: "t.strace", Line: 10 + idx, PID: 42,
			Message: fmt.Sprintf("state %d rejected", idx), Models: []string{"posix"},
			Related:     []Related{{Line: 9, Syscall: "write", What: "not on disk in this state"}},
			State:       &State{Line: 10 + idx, Path: "/d/config.json", Outcome: "empty", Persisted: "none"},
			Fingerprint: fmt.Sprintf("%016x", idx), RelPath: "config.json", StateIndex: idx,
		})
	}
	fs[3].Severity = "warning"
	return fs
}

// testRun is the identity of the run the tests' reports come from.
var testRun = RunID{Trace: "sha256:" + strings.Repeat("a", 64), Checker: "sha256:" + strings.Repeat("b", 64), Options: "--model posix --max-states 10000"}

// renderer writes a run's findings (those keep says) as a JSON report or
// a SARIF log, marked as shard when it is not "".
type renderer func(t *testing.T, fs []Finding, keep func(Finding) bool, shard string) []byte

func renderJSON(t *testing.T, fs []Finding, keep func(Finding) bool, shard string) []byte {
	return renderExplore(t, fs, keep, shard, nil)
}

// renderExplore is renderJSON with explore's account x in the summary.
func renderExplore(t *testing.T, fs []Finding, keep func(Finding) bool, shard string, x *Explore) []byte {
	var b bytes.Buffer
	w := NewReportWriter(&b, Version, Tool{Name: "crashsim", Version: "(devel)", SemVer: "0.0.0-devel"})
	sum := Summary{Counts: Counts{Events: 40, Files: 2}, Models: []string{"posix"}, Warnings: []Warning{}, Notes: []Note{}, Shard: shard, Run: &testRun, Explore: x}
	for i := range fs {
		if keep(fs[i]) {
			putFinding(w, &sum, &fs[i])
		}
	}
	if err := w.Close(&sum); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// putFinding writes f and counts it in sum, as a report does.
func putFinding(w *ReportWriter, sum *Summary, f *Finding) {
	w.Finding(f)
	if f.Severity == "error" {
		sum.Errors++
	} else {
		sum.WarningFindings++
	}
}

func renderSARIF(t *testing.T, fs []Finding, keep func(Finding) bool, shard string) []byte {
	var b bytes.Buffer
	run := SARIFRun{Tool: SARIFTool{Driver: SARIFDriver{Name: "crashsim", Rules: []SARIFRule{{ID: "checker-failed"}}}},
		Invocations: []SARIFInvocation{{ExecutionSuccessful: true, Notifications: []SARIFNotification{}}}}
	run.Properties = &SARIFRunProperties{Shard: shard, Run: &testRun}
	var results []SARIFResult
	for _, f := range fs {
		if keep(f) {
			results = append(results, SARIFResult{RuleID: f.Rule, Level: f.Severity, Message: SARIFText{f.Message},
				Locations:           []SARIFLocation{{PhysicalLocation: SARIFPhysicalLocation{ArtifactLocation: SARIFArtifact{URI: "t.strace", URIBaseID: "TRACEDIR"}, Region: SARIFRegion{f.Line}}}},
				PartialFingerprints: map[string]string{FingerprintVersion: f.Fingerprint},
				Properties:          &SARIFResultProperties{Models: f.Models, Path: f.RelPath, Paths: []string{f.RelPath}, StateIndex: f.StateIndex}})
		}
	}
	if len(results) > 0 {
		// A log whose results name traces in one directory says where.
		run.OriginalURIBaseIDs = map[string]SARIFArtifact{"TRACEDIR": {URI: "file:///w/"}}
	}
	w := NewSARIFWriter(&b, &SARIFLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []SARIFRun{run}})
	for i := range results {
		w.Result(&results[i])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func all(Finding) bool { return true }

// shardsOf splits a run as explore --shard does: shard i of n holds the
// findings of states i, i+n, ...
func shardsOf(t *testing.T, fs []Finding, n int, render renderer) []Shard {
	t.Helper()
	var shards []Shard
	for i := 1; i <= n; i++ {
		b := render(t, fs, func(f Finding) bool { return (f.StateIndex-1)%n == i-1 }, fmt.Sprintf("%d/%d", i, n))
		shards = append(shards, shardOf(fmt.Sprintf("shard%d", i), b))
	}
	return shards
}

func shardOf(name string, b []byte) Shard {
	return Shard{Name: name, Data: bytes.NewReader(b), Size: int64(len(b))}
}

func TestMergeEqualsWhole(t *testing.T) {
	for name, render := range map[string]renderer{"json": renderJSON, "sarif": renderSARIF} {
		want := render(t, runFindings(), all, "")
		for _, n := range []int{1, 2, 5} {
			shards := shardsOf(t, runFindings(), n, render)
			// Any order of arguments.
			shards[0], shards[len(shards)-1] = shards[len(shards)-1], shards[0]
			var got bytes.Buffer
			m, err := Merge(&got, shards)
			if err != nil {
				t.Fatalf("%s, %d shards: %v", name, n, err)
			}
			if m.Format != name || m.Errors != 3 || m.Warnings != 1 || m.Infos != 0 {
				t.Errorf("%s, %d shards: merged %+v", name, n, m)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s, %d shards: merge differs from the whole report (-want +got):\n%s", name, n, diff)
			}
		}
	}
}

// exploreAccount is an exploration's account: states checked at crash
// points 1 and 3 as checked says, rejected of them rejected.
func exploreAccount(checked map[int]int, rejected int) *Explore {
	x := &Explore{Points: 4, Exhaustive: 3, Sampled: 1, Admitted: 1 << 20, AdmittedExact: true, Built: 300, Distinct: 8,
		Rejected: rejected, Families: ExploreFamilies{Predicted: 2, Prefix: 5, Drop: 4, Torn: 1, Random: 16}, MaxJoint: 256, Samples: 16, Seed: 1}
	for i, adm := range []int64{1, 4, 1<<20 - 6, 1} {
		p := ExplorePoint{Line: 10 * i, Admitted: adm, Exact: true, Exhaustive: adm < 256, Families: []string{}, Built: int(min(adm, 28)), New: 2, Checked: checked[i]}
		if !p.Exhaustive {
			p.Families = []string{"predicted", "prefix", "drop", "torn", "random"}
		}
		x.Checked += checked[i]
		x.CrashPoints = append(x.CrashPoints, p)
	}
	return x
}

// TestMergeExplore: the merge of the shards' reports adds up their
// checker runs in explore's account; every shard built every state.
func TestMergeExplore(t *testing.T) {
	want := renderExplore(t, runFindings(), all, "", exploreAccount(map[int]int{1: 3, 3: 5}, 4))
	parts := []*Explore{exploreAccount(map[int]int{1: 2, 3: 2}, 2), exploreAccount(map[int]int{1: 1, 3: 3}, 2)}
	var shards []Shard
	for i, x := range parts {
		keep := func(f Finding) bool { return (f.StateIndex-1)%2 == i }
		shards = append(shards, shardOf(fmt.Sprintf("shard%d", i+1), renderExplore(t, runFindings(), keep, fmt.Sprintf("%d/2", i+1), x)))
	}
	var got bytes.Buffer
	if _, err := Merge(&got, shards); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("merge differs from the whole report (-want +got):\n%s", diff)
	}
	// The shards' accounts are read, not changed by the merge.
	if parts[0].Checked != 4 || parts[0].CrashPoints[1].Checked != 2 {
		t.Errorf("a shard's account changed: %+v", parts[0])
	}
}

// TestMergeOutOfOrder: a shard that lists its findings out of state order
// (grouped by call site) merges as a stable sort of every shard's
// findings by state.
func TestMergeOutOfOrder(t *testing.T) {
	for name, render := range map[string]renderer{"json": renderJSON, "sarif": renderSARIF} {
		fs := runFindings()
		// Shard 1 of 2 holds states 3 and 7 (and a second 7) in the order
		// 7, 3, 7; shard 2 states 2, 8 and another 3.
		one := []Finding{fs[2], fs[1], fs[2]}
		one[2].Message = "the second state 7"
		extra := fs[1]
		extra.Message = "shard 2's state 3"
		two := []Finding{fs[0], extra, fs[3]}
		shards := []Shard{
			shardOf("one", render(t, one, all, "1/2")),
			shardOf("two", render(t, two, all, "2/2")),
		}
		var got bytes.Buffer
		if _, err := Merge(&got, shards); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The stable sort: 2, then shard one's 3, shard two's 3, then 7
		// and its second, then 8.
		want := render(t, []Finding{fs[0], fs[1], extra, fs[2], one[2], fs[3]}, all, "")
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", name, diff)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	three := shardsOf(t, runFindings(), 3, renderJSON)
	whole := shardOf("whole", renderJSON(t, runFindings(), all, ""))
	other := runFindings()
	otherRun := renderJSON(t, other, func(f Finding) bool { return (f.StateIndex-1)%3 == 1 }, "2/3")
	otherRun = bytes.Replace(otherRun, []byte(`"events": 40`), []byte(`"events": 41`), 1)
	cases := []struct {
		name   string
		shards []Shard
		want   string
	}{
		{"none", nil, "no reports"},
		{"missing", three[:2], "shard 3 of 3 missing"},
		{"twice", []Shard{three[0], three[1], three[1], three[2]}, "shard2 and shard2 are both shard 2/3"},
		{"not a shard", []Shard{three[0], whole}, "whole is not the report of a shard"},
		{"two runs", []Shard{three[0], shardOf("shard2", otherRun), three[2]}, "come from different runs"},
		{"two counts", []Shard{three[0], shardsOf(t, runFindings(), 2, renderJSON)[1]}, "shard of 3, shard2 of 2"},
		{"two formats", []Shard{three[0], shardsOf(t, runFindings(), 3, renderSARIF)[1]}, "shard1 is json, shard2 is sarif"},
		{"not a report", []Shard{shardOf("x", []byte("{}"))}, "x: neither crashsim's JSON"},
		{"not json", []Shard{shardOf("x", []byte("state=1"))}, "x: not a JSON or SARIF report"},
		{"bad mark", []Shard{shardOf("x", renderJSON(t, runFindings(), all, "3/2"))}, `x: shard "3/2": want I/N`},
		{"bad severity", []Shard{shardOf("x", renderJSON(t, []Finding{{Severity: "fatal", Line: 5}}, all, "1/1"))}, `finding at line 5: unknown severity "fatal"`},
		{"two sarif runs", []Shard{shardOf("x", []byte(`{"version": "2.1.0", "runs": [{"results": []}, {"results": []}]}`))}, "x holds 2 runs"},
		{"old sarif", []Shard{shardOf("x", []byte(`{"version": "2.0.0", "runs": [{"results": []}]}`))}, "nor SARIF 2.1.0"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		m, err := Merge(&out, c.shards)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one saying %q", c.name, err, c.want)
		}
		if m != nil || out.Len() > 0 {
			t.Errorf("%s: merged %+v and wrote %d bytes before refusing", c.name, m, out.Len())
		}
	}
}

// TestMergeWriteError: a failing writer is an error that comes with what
// was merged, told apart from a refusal.
func TestMergeWriteError(t *testing.T) {
	m, err := Merge(failWriter{}, shardsOf(t, runFindings(), 2, renderJSON))
	if err == nil || m == nil {
		t.Errorf("merge to a failing writer: %+v, %v", m, err)
	}
}

// withRun is a report b with its run identity's member field set to v.
func withRun(b []byte, field, v string) []byte {
	var old string
	switch field {
	case "trace":
		old = testRun.Trace
	case "checker":
		old = testRun.Checker
	case "options":
		old = testRun.Options
	}
	return bytes.Replace(b, []byte(`"`+field+`": "`+old+`"`), []byte(`"`+field+`": "`+v+`"`), 1)
}

// TestMergeRunIdentity: shards of different runs (another trace, with
// the same counts; another checker; other options) are refused, in JSON
// and in SARIF, and so is a shard without an identity. The merge
// took two traces with equal event and file counts, different checkers,
// and any SARIF shards at all.
func TestMergeRunIdentity(t *testing.T) {
	for name, render := range map[string]renderer{"json": renderJSON, "sarif": renderSARIF} {
		two := render(t, runFindings(), func(f Finding) bool { return (f.StateIndex-1)%2 == 1 }, "2/2")
		one := shardOf("one", render(t, runFindings(), func(f Finding) bool { return (f.StateIndex-1)%2 == 0 }, "1/2"))
		noID := bytes.Replace(two, []byte(`"run"`), []byte(`"nurn"`), 1)
		noID = bytes.Replace(noID, []byte(`"crashsimRun"`), []byte(`"other"`), 1)
		for _, c := range []struct {
			case_, want string
			shard       []byte
		}{
			{"another trace", "they read different traces", withRun(two, "trace", "sha256:"+strings.Repeat("c", 64))},
			{"another checker", "they ran different checkers", withRun(two, "checker", "sha256:"+strings.Repeat("c", 64))},
			{"other options", "their options differ", withRun(two, "options", "--model ext4 --max-states 10000")},
			{"no identity", "two has no run identity", noID},
		} {
			var out bytes.Buffer
			m, err := Merge(&out, []Shard{one, shardOf("two", c.shard)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: got %v, want an error saying %q", name, c.case_, err, c.want)
			}
			if m != nil || out.Len() > 0 {
				t.Errorf("%s, %s: wrote %d bytes before refusing", name, c.case_, out.Len())
			}
		}
	}
}

// TestMergeNumbers: every number a merge reads or adds is checked:
// negative counts, a sum past the largest int and shard marks that are
// not plainly I/N are refused.
func TestMergeNumbers(t *testing.T) {
	big := exploreAccount(map[int]int{1: math.MaxInt - 10}, 0)
	small := exploreAccount(map[int]int{1: 20}, 0)
	half := func(i int) func(Finding) bool { return func(f Finding) bool { return (f.StateIndex-1)%2 == i } }
	neg := func(old, new string) Shard {
		b := renderExplore(t, runFindings(), half(1), "2/2", exploreAccount(map[int]int{1: 1}, 1))
		return shardOf("two", bytes.Replace(b, []byte(old), []byte(new), 1))
	}
	one := shardOf("one", renderExplore(t, runFindings(), half(0), "1/2", exploreAccount(map[int]int{1: 1}, 1)))
	cases := []struct {
		name   string
		shards []Shard
		want   string
	}{
		{"negative events", []Shard{one, neg(`"events": 40`, `"events": -40`)}, "events is -40"},
		{"negative left", []Shard{one, neg(`"baseline": 0`, `"baseline": -1`)}, "left.baseline is -1"},
		{"negative checked", []Shard{one, neg(`"rejected": 1`, `"rejected": -1`)}, "explore.rejected is -1"},
		{"negative point", []Shard{one, neg(`"new": 2`, `"new": -2`)}, "crashPoints[0] holds a negative number"},
		{"negative state", []Shard{one, neg(`"state_index": 8`, `"state_index": -8`)}, "of state -8"},
		{"negative line", []Shard{one, neg(`"line": 12`, `"line": -12`)}, "a finding at line -12"},
		{"past int64", []Shard{one, neg(`"events": 40`, `"events": 9223372036854775808`)}, "a number where a report has a value of type int (summary.Counts.events)"},
		{"sum past the largest int", []Shard{
			shardOf("one", renderExplore(t, runFindings(), half(0), "1/2", big)),
			shardOf("two", renderExplore(t, runFindings(), half(1), "2/2", small)),
		}, "add up to more than a report can hold"},
	}
	for _, mark := range []string{"+1/+2", " 1/2", "1/2 ", "01/2", "1/02", "1/0x2", "1/2/2", "1/", "/2", "0/2", "3/2", "1/100000000", "1/9223372036854775807", "1/18446744073709551617"} {
		b := renderExplore(t, runFindings(), half(0), mark, exploreAccount(map[int]int{1: 1}, 1))
		cases = append(cases, struct {
			name   string
			shards []Shard
			want   string
		}{"mark " + mark, []Shard{shardOf("x", b)}, "want I/N"})
	}
	for _, c := range cases {
		var out bytes.Buffer
		m, err := Merge(&out, c.shards)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one saying %q", c.name, err, c.want)
		}
		if m != nil || out.Len() > 0 {
			t.Errorf("%s: wrote %d bytes before refusing", c.name, out.Len())
		}
	}
}

// TestMergeForgedMarkCheap: a forged mark of a huge N (the issue's
// 1/100000000 took 7.5 GB and printed every missing shard number) is
// refused with work bounded by the reports given, and so is the largest
// N explore writes with most of its shards missing: the error names a
// few of them.
func TestMergeForgedMarkCheap(t *testing.T) {
	forged := renderJSON(t, runFindings(), all, "1/100000000")
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Merge(io.Discard, []Shard{shardOf("x", forged)}); err == nil {
			t.Fatal("a forged mark accepted")
		}
	})
	// Reading the small report takes a few hundred; a list of the
	// missing shards would take a hundred million.
	if allocs > 5000 {
		t.Errorf("refusing 1/100000000 took %.0f allocations", allocs)
	}
	var shards []Shard
	for _, i := range []int{2, 7, MaxShards} {
		shards = append(shards, shardOf(fmt.Sprint(i), renderJSON(t, nil, all, fmt.Sprintf("%d/%d", i, MaxShards))))
	}
	_, err := Merge(io.Discard, shards)
	want := fmt.Sprintf("shard 1, 3, 4, 5, 6, 8, 9, 10, 11, 12 and %d more of %d missing", MaxShards-13, MaxShards)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error saying %q", err, want)
	}
}

// TestMergeJoinsProblems: explore groups the rejected states of one file
// into one problem, and the shards of a run check them apart. The merge
// joins a problem that several shards found (the same id) into the
// whole run's: its lowest state's, with every finding in state order,
// and lists the findings problem by problem.
func TestMergeJoinsProblems(t *testing.T) {
	fs := runFindings()
	// States 2, 7 and 8 are config.json's (problem x), 3 is other.json's
	// (problem y).
	fs[1].Path, fs[1].RelPath, fs[1].Message = "/d/other.json", "other.json", "state 3 rejected"
	problemOf := map[int]string{2: "x", 3: "y", 7: "x", 8: "x"}
	for i := range fs {
		fs[i].Problem = problemOf[fs[i].StateIndex]
	}
	render := func(keep func(Finding) bool, shard string) []byte {
		var b bytes.Buffer
		w := NewReportWriter(&b, Version, Tool{Name: "crashsim", Version: "(devel)", SemVer: "0.0.0-devel"})
		sum := Summary{Counts: Counts{Events: 40, Files: 2}, Models: []string{"posix"}, Warnings: []Warning{}, Notes: []Note{}, Shard: shard, Run: &testRun}
		// The problems in the order of their first kept state, each with
		// its kept findings in state order; then the findings, problem by
		// problem.
		var order []string
		members := map[string][]Finding{}
		for _, f := range fs {
			if keep(f) {
				if members[f.Problem] == nil {
					order = append(order, f.Problem)
				}
				members[f.Problem] = append(members[f.Problem], f)
			}
		}
		for _, id := range order {
			ms := members[id]
			p := Problem{ID: id, Rule: "checker-failed", Severity: "info", Path: ms[0].Path, Paths: []string{ms[0].Path}, Trace: "t.strace",
				Line: ms[0].Line, Message: ms[0].Message, Fix: "fix it", StateIndex: ms[0].StateIndex}
			for _, f := range ms {
				p.Findings = append(p.Findings, f.Fingerprint)
				if severityRank(f.Severity) > severityRank(p.Severity) {
					p.Severity = f.Severity
				}
			}
			if err := w.Problem(&p); err != nil {
				t.Fatal(err)
			}
			sum.Problems++
		}
		for _, id := range order {
			for _, f := range members[id] {
				putFinding(w, &sum, &f)
			}
		}
		if err := w.Close(&sum); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	want := render(all, "")
	if !bytes.Contains(want, []byte(`"problems": 2`)) {
		t.Fatalf("the whole report has not 2 problems:\n%s", want)
	}
	for _, n := range []int{2, 3} {
		var shards []Shard
		for i := n; i >= 1; i-- {
			keep := func(f Finding) bool { return (f.StateIndex-1)%n == i-1 }
			shards = append(shards, shardOf(fmt.Sprintf("shard%d", i), render(keep, fmt.Sprintf("%d/%d", i, n))))
		}
		var got bytes.Buffer
		m, err := Merge(&got, shards)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if m.Errors != 3 || m.Warnings != 1 {
			t.Errorf("%d shards: merged %+v", n, m)
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("%d shards: merge differs from the whole report (-want +got):\n%s", n, diff)
		}
	}
}

func TestMoreFiles(t *testing.T) {
	for _, c := range []struct {
		msg  string
		n    int
		want string
	}{
		{"a.json: lost", 0, "a.json: lost"},
		{"a.json: lost", 2, "a.json: lost (and 2 more files)"},
		{"a.json: lost (and 1 more files)", 3, "a.json: lost (and 3 more files)"},
		{"a.json: lost (and 1 more files)", 0, "a.json: lost"},
		// Not the count a result adds: the message's own words stay.
		{"a.json: lost (and many more files)", 1, "a.json: lost (and many more files) (and 1 more files)"},
	} {
		if got := moreFiles(c.msg, c.n); got != c.want {
			t.Errorf("moreFiles(%q, %d) = %q, want %q", c.msg, c.n, got, c.want)
		}
	}
}
