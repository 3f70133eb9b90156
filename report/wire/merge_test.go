package wire

import (
	"bytes"
	"fmt"
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
	sum := Summary{Counts: Counts{Events: 40, Files: 2}, Models: []string{"posix"}, Warnings: []Warning{}, Notes: []Note{}, Shard: shard, Explore: x}
	for i := range fs {
		if keep(fs[i]) {
			w.Finding(&fs[i])
			if fs[i].Severity == "error" {
				sum.Errors++
			} else {
				sum.WarningFindings++
			}
		}
	}
	if err := w.Close(&sum); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func renderSARIF(t *testing.T, fs []Finding, keep func(Finding) bool, shard string) []byte {
	var b bytes.Buffer
	run := SARIFRun{Tool: SARIFTool{Driver: SARIFDriver{Name: "crashsim", Rules: []SARIFRule{{ID: "checker-failed"}}}},
		Invocations: []SARIFInvocation{{ExecutionSuccessful: true, Notifications: []SARIFNotification{}}}}
	if shard != "" {
		run.Properties = &SARIFRunProperties{Shard: shard}
	}
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
