package crashsim

import (
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/report/wire"
)

// prints is a Baseline of fingerprints.
type prints map[string]bool

func (p prints) Has(fp string) bool { return p[fp] }

// TestFilter: each kind of filter leaves out what it covers, counts it,
// and the severities are counted again over what is left; ignore globs
// match paths relative to the roots too. Suppressions and baselines work
// on problems: the problem's rule or id leaves out all its findings, a
// consequence's rule that one, a baseline that has one finding of a
// problem but not the problem leaves it in.
func TestFilter(t *testing.T) {
	dir := "fixtures/traces/python-noflush"
	run := func() (*Result, report.Options) {
		c := Check{Inputs: Inputs{Traces: []string{dir + "/f-ttt-y-xx.strace"}, Listing: dir + "/initial.list"}}
		res, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		var opt report.Options
		if err := res.Identify(&opt, "", []string{"/tmp/crashsim-fixtures"}, nil); err != nil {
			t.Fatal(err)
		}
		return res, opt
	}
	res, opt := run()
	if res.Len() != 4 {
		t.Fatalf("%d findings, want 4", res.Len())
	}
	first, err := res.At(0)
	if err != nil {
		t.Fatal(err)
	}
	fsync := report.Fingerprint(first, opt)
	// The four findings are one problem, fsync-before-write.
	ps, err := check.Group(res.Result)
	if err != nil || ps.Len() != 1 || ps.List[0].Rule.ID != check.FsyncBeforeWrite {
		t.Fatalf("problems %+v, %v", ps, err)
	}
	problem := prints{report.ProblemIDs(ps, opt)[0]: true}
	every := prints{}
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		every[report.Fingerprint(f, opt)] = true
	}
	for _, tc := range []struct {
		name   string
		f      Filter
		left   wire.Left
		errors int
	}{
		{"none", Filter{}, wire.Left{}, 4},
		{"ignore relative to the root", Filter{Ignore: []string{"python-noflush/config.txt"}}, wire.Left{Ignored: 4}, 0},
		{"ignore elsewhere", Filter{Ignore: []string{"/elsewhere/**"}}, wire.Left{}, 4},
		{"suppress", Filter{Suppress: []Suppress{{Rule: check.RenameBeforeSync, Path: "**/config.txt", Reason: "r"}}}, wire.Left{Suppressed: 1}, 3},
		{"suppress another path", Filter{Suppress: []Suppress{{Rule: check.RenameBeforeSync, Path: "other.txt", Reason: "r"}}}, wire.Left{}, 4},
		{"suppress the problem's rule", Filter{Suppress: []Suppress{{Rule: check.FsyncBeforeWrite, Path: "**/config.txt", Reason: "r"}}}, wire.Left{Suppressed: 4}, 0},
		{"baseline of the problem", Filter{Baseline: problem}, wire.Left{Baseline: 4}, 0},
		{"baseline of every finding", Filter{Baseline: every}, wire.Left{Baseline: 4}, 0},
		{"baseline of one finding", Filter{Baseline: prints{fsync: true}}, wire.Left{}, 4},
		{"all", Filter{Ignore: []string{"nothing"}, Suppress: []Suppress{{Rule: check.DataNotSynced, Reason: "r"}}, Baseline: prints{fsync: true}}, wire.Left{Suppressed: 1}, 3},
		{"suppress a base name", Filter{Suppress: []Suppress{{Rule: check.RenameBeforeSync, Path: "config.txt", Reason: "r"}}}, wire.Left{Suppressed: 1}, 3},
		{"suppress a relative path", Filter{Suppress: []Suppress{{Rule: check.RenameBeforeSync, Path: "python-noflush/config.txt", Reason: "r"}}}, wire.Left{Suppressed: 1}, 3},
		{"a path is no suffix", Filter{Suppress: []Suppress{{Rule: check.RenameBeforeSync, Path: "noflush/config.txt", Reason: "r"}}}, wire.Left{}, 4},
	} {
		res, opt := run()
		if err := res.Filter(tc.f, &opt); err != nil {
			t.Fatal(err)
		}
		if opt.Left != tc.left || res.Summary.Errors != tc.errors || res.Len() != tc.errors {
			t.Errorf("%s: left %+v, %d errors, %d findings; want %+v, %d", tc.name, opt.Left, res.Summary.Errors, res.Len(), tc.left, tc.errors)
		}
	}
	if err := (Filter{Ignore: []string{"a[b"}}).Validate(); err == nil {
		t.Error("a bad glob passes")
	}
}

// TestSuppressCovers: the lookup of paths without wildcards agrees with
// check.MatchGlob, which every glob goes through.
func TestSuppressCovers(t *testing.T) {
	paths := [][2]string{{"/r/a/b.txt", "a/b.txt"}, {"/r/b.txt", "b.txt"}, {"/other/x", "/other/x"}, {"/", "/"}, {"/r/a[1]", "a[1]"}}
	globs := []string{"", "b.txt", "a/b.txt", "/r/a/b.txt", "/r/b.txt", "x", "/other/x", "other/x", "r/a/b.txt", "*.txt", "**/b.txt", "a/*", "/", "a\\[1\\]", "{b,c}.txt"}
	rule := check.Rules()[0]
	for _, g := range globs {
		m := Filter{Suppress: []Suppress{{Rule: rule.ID, Path: g, Reason: "r"}}}.byRule()
		for _, p := range paths {
			want := g == "" || check.MatchGlob(g, p[0], p[1])
			if got := m.covers(rule.ID, p[0], p[1]); got != want {
				t.Errorf("glob %q, path %q (%q): covers %v, MatchGlob %v", g, p[0], p[1], got, want)
			}
		}
	}
}
