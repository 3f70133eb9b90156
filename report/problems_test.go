package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/crashsim/crashsim/source"
	"github.com/google/go-cmp/cmp"
)

// noflush is Python's missing flush as a check finds it: one
// fsync-before-write and the three findings it causes, on one file.
func noflush(src *source.Location) *check.Result {
	mk := func(id string, line int, msg string) *check.Finding {
		r, _ := check.Lookup(id)
		return &check.Finding{Rule: r, Path: "/d/config.txt", Trace: "t.strace", Line: line, PID: 7, Message: msg,
			Models: []string{"posix"}, Source: src,
			Related: []check.Related{{Trace: "t.strace", Line: 5, Syscall: "write", What: "written"}},
			State:   &check.State{Line: 9, Path: "/d/config.txt", Outcome: "empty", Persisted: "none", Words: "empty"}}
	}
	res := resultOf(
		mk(check.FsyncBeforeWrite, 4, "config.txt was synced before its data was written; call f.flush() first"),
		mk(check.DataNotSynced, 5, "config.txt can be empty"),
		mk(check.RenameBeforeSync, 6, "config.txt was put in place by rename"),
		mk(check.DirSyncBeforeData, 8, "the directory fsync made config.txt durable"),
	)
	res.Summary.Events, res.Summary.Files = 9, 1
	return res
}

// TestTextProblem: one block per problem, its header at the source line
// when known, one line per consequence, and the summary counts problems
// and findings.
func TestTextProblem(t *testing.T) {
	var b bytes.Buffer
	src := &source.Location{File: "/w/save.py", Line: 12, Function: "save"}
	if err := Text(&b, noflush(src), Options{Models: []string{"posix"}, SrcRoot: "/w"}); err != nil {
		t.Fatal(err)
	}
	want := `save.py:12: fsync-before-write: /d/config.txt: config.txt was synced before its data was written; call f.flush() first
    t.strace:4 call       in save
    t.strace:5 write      written
    state: a crash right after line 9 can leave /d/config.txt empty
    save.py:12 t.strace:5 data-not-synced: a crash right after line 9 can leave /d/config.txt empty
    save.py:12 t.strace:6 rename-before-sync: a crash right after line 9 can leave /d/config.txt empty
    save.py:12 t.strace:8 dir-sync-before-data: a crash right after line 9 can leave /d/config.txt empty
crashsim: 1 problem (4 findings): 1 error, 0 warnings, 0 infos; 1 file in scope (9 events, model posix)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestJSONProblems: the report lists the problem first, with its id, and
// each finding names it; the summary counts it; the problem's findings
// are its findings' fingerprints, the primary first.
func TestJSONProblems(t *testing.T) {
	var b bytes.Buffer
	opt := Options{Models: []string{"posix"}, Roots: []string{"/d"}}
	if err := JSON(&b, noflush(nil), opt); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(strings.NewReader(b.String()))
	var ps []*wire.Problem
	var fs []*wire.Finding
	for {
		it, err := r.Next()
		if err != nil {
			break
		}
		if it.Problem != nil {
			ps = append(ps, it.Problem)
		} else {
			fs = append(fs, it.Finding)
		}
	}
	doc := r.Document().Report
	if doc == nil || doc.Version != wire.Version || doc.Summary.Problems != 1 || len(ps) != 1 || len(fs) != 4 {
		t.Fatalf("report %+v: %d problems, %d findings", doc, len(ps), len(fs))
	}
	p := ps[0]
	if p.Rule != check.FsyncBeforeWrite || p.Severity != "error" || p.Path != "/d/config.txt" || p.Line != 4 ||
		len(p.Paths) != 1 || p.Fix == "" || !strings.Contains(p.Message, "f.flush()") || len(p.ID) != 16 {
		t.Errorf("problem %+v", p)
	}
	var prints []string
	for _, f := range fs {
		prints = append(prints, f.Fingerprint)
		if f.Problem != p.ID {
			t.Errorf("finding %s names problem %q, not %q", f.Rule, f.Problem, p.ID)
		}
	}
	if diff := cmp.Diff(prints, p.Findings); diff != "" {
		t.Errorf("problem's findings (-findings +problem):\n%s", diff)
	}
}

// TestProblemIDs: an id names the rule and the place, not the trace line
// or the checkout; two problems of one rule in one function differ.
func TestProblemIDs(t *testing.T) {
	src := &source.Location{File: "/w/save.py", Line: 12, Function: "save"}
	a, _ := check.Group(noflush(src))
	moved := &source.Location{File: "/v/save.py", Line: 30, Function: "save"}
	b, _ := check.Group(noflush(moved))
	ida := ProblemIDs(a, Options{SrcRoot: "/w"})
	idb := ProblemIDs(b, Options{SrcRoot: "/v"})
	if ida[0] != idb[0] {
		t.Errorf("the same problem in two checkouts: %s and %s", ida[0], idb[0])
	}
	two := &check.Problems{List: []*check.Problem{a.List[0], a.List[0]}}
	if ids := ProblemIDs(two, Options{}); ids[0] == ids[1] {
		t.Errorf("two problems share the id %s", ids[0])
	}
}

// TestSARIFProblem: one result per problem, its ruleId the primary's
// rule, each consequence a related location, the problem's id its
// fingerprint and its findings' fingerprints beside it for baselines.
func TestSARIFProblem(t *testing.T) {
	var b bytes.Buffer
	opt := Options{Roots: []string{"/d"}}
	res := noflush(nil)
	if err := SARIF(&b, res, opt); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(strings.NewReader(b.String()))
	var rs []*wire.SARIFResult
	for {
		it, err := r.Next()
		if err != nil {
			break
		}
		rs = append(rs, it.Result)
	}
	if len(rs) != 1 {
		t.Fatalf("%d results, want one for the one problem", len(rs))
	}
	x := rs[0]
	ps, _ := check.Group(res)
	if x.RuleID != check.FsyncBeforeWrite || x.PartialFingerprints[wire.ProblemVersion] != ProblemIDs(ps, opt)[0] {
		t.Errorf("result %s %v", x.RuleID, x.PartialFingerprints)
	}
	var consequences []string
	for _, l := range x.RelatedLocations {
		if l.Message != nil && strings.Contains(l.Message.Text, ": a crash right after line ") {
			consequences = append(consequences, strings.SplitN(l.Message.Text, ":", 2)[0])
		}
	}
	want := []string{check.DataNotSynced, check.RenameBeforeSync, check.DirSyncBeforeData}
	if diff := cmp.Diff(want, consequences); diff != "" {
		t.Errorf("consequences (-want +got):\n%s", diff)
	}
	if p := x.Properties; p == nil || len(p.Findings) != 4 || len(p.Rules) != 4 {
		t.Errorf("properties %+v", x.Properties)
	}
	fps, err := wire.ReadFingerprints(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	all, _ := res.List()
	for _, f := range all {
		if !fps.Has(Fingerprint(f, opt)) {
			t.Errorf("the baseline of the log lacks %s's fingerprint", f.Rule.ID)
		}
	}
}
