package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/crashsim/crashsim/source"
)

// finding is sample()'s finding moved to a checkout at dir, with a pid
// and trace line of its own, as another run would give.
func finding(dir string, pid, line int, tmp string) *check.Finding {
	rule, _ := check.Lookup(check.RenameBeforeSync)
	return &check.Finding{
		Rule: rule, Path: dir + "/data/config.json", Trace: dir + "/t.strace", Line: line, PID: pid,
		Message: "config.json can be empty", Models: []string{"posix"},
		Related: []check.Related{
			{Trace: dir + "/t.strace", Line: line - 2, PID: pid, Syscall: "write", What: "written to " + tmp},
			{Trace: dir + "/t.strace", Line: line, PID: pid, Syscall: "rename", What: "renames " + tmp},
		},
	}
}

func TestFingerprintStable(t *testing.T) {
	a := finding("/tmp/ci/out1", 100, 40, "sedAb12Cd")
	b := finding("/home/u/checkout", 2222, 4000, "sedXy98Zw")
	fa := Fingerprint(a, Options{Roots: []string{"/tmp/ci/out1"}})
	fb := Fingerprint(b, Options{Roots: []string{"/home/u/checkout"}})
	if fa != fb {
		t.Errorf("same finding in two checkouts: fingerprints %s and %s", fa, fb)
	}
	// A different rule, file or syscall shape is another finding.
	c := finding("/tmp/ci/out1", 100, 40, "x")
	c.Path = "/tmp/ci/out1/data/other.json"
	d := finding("/tmp/ci/out1", 100, 40, "x")
	d.Related = d.Related[1:]
	for name, f := range map[string]*check.Finding{"other path": c, "other shape": d} {
		if Fingerprint(f, Options{Roots: []string{"/tmp/ci/out1"}}) == fa {
			t.Errorf("%s: same fingerprint as the original", name)
		}
	}
	// A source location (a run with --stack) does not change it: a
	// baseline made without stacks knows the finding of a run with them,
	// and the other way round. Two files saved by one call stay two.
	a.Source = &source.Location{File: "/tmp/ci/out1/save.go", Line: 12, Function: "main.save"}
	c.Source = &source.Location{File: "/tmp/ci/out1/save.go", Line: 12, Function: "main.save"}
	opt := Options{Roots: []string{"/tmp/ci/out1"}, SrcRoot: "/tmp/ci/out1"}
	if got := Fingerprint(a, opt); got != fa {
		t.Errorf("with a call site: fingerprint %s, want %s as without", got, fa)
	}
	if Fingerprint(a, opt) == Fingerprint(c, opt) {
		t.Error("two files from one call site: one fingerprint")
	}
}

// TestSARIFIdentity checks URIs, version, invocation and the grouping of
// findings from one call site into one result.
func TestSARIFIdentity(t *testing.T) {
	a := finding("/w", 1, 40, "t1")
	c := finding("/w", 1, 50, "t2")
	c.Path = "/w/data/other.json"
	a.Source = &source.Location{File: "/w/save.go", Line: 12, Function: "main.save"}
	c.Source = &source.Location{File: "/w/save.go", Line: 12, Function: "main.save"}
	var b bytes.Buffer
	opt := Options{Roots: []string{"/w"}, SrcRoot: "/w", Tool: wire.Tool{Name: "crashsim", Version: "v1.2.3", SemVer: "1.2.3"}, ExitCode: 1}
	if err := SARIF(&b, resultOf(a, c), opt); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version         string `json:"version"`
					SemanticVersion string `json:"semanticVersion"`
					InformationURI  string `json:"informationUri"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
				ExitCode            int  `json:"exitCode"`
			} `json:"invocations"`
			Results []struct {
				Message   wire.SARIFText       `json:"message"`
				Locations []wire.SARIFLocation `json:"locations"`
				Related   []wire.SARIFLocation `json:"relatedLocations"`
				Props     map[string]any       `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if d := run.Tool.Driver; d.Version != "v1.2.3" || d.SemanticVersion != "1.2.3" || d.InformationURI == "" {
		t.Errorf("driver = %+v", d)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExitCode != 1 || !run.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocations = %+v", run.Invocations)
	}
	if len(run.Results) != 1 {
		t.Fatalf("%d results, want the two findings of one call site as one", len(run.Results))
	}
	r := run.Results[0]
	if loc := r.Locations[0].PhysicalLocation; loc.ArtifactLocation.URI != "save.go" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine != 12 {
		t.Errorf("location = %+v", loc)
	}
	if !strings.Contains(r.Message.Text, "(and 1 more files)") {
		t.Errorf("message = %q", r.Message.Text)
	}
	for _, rel := range r.Related {
		if u := rel.PhysicalLocation.ArtifactLocation; u.URI != "t.strace" || u.URIBaseID != "%SRCROOT%" {
			t.Errorf("related location %+v: want t.strace under %%SRCROOT%%", u)
		}
	}
	if !strings.Contains(b.String(), `"paths": [`) || strings.Contains(b.String(), `"/w/`) {
		t.Errorf("SARIF names absolute paths or lacks the paths:\n%s", b.String())
	}
}

// TestBaselineOfReports: the fingerprints a baseline reads back from the
// JSON and the SARIF of a real trace are those of its findings.
func TestBaselineOfReports(t *testing.T) {
	trace := "../fixtures/traces/git-commit/f-ttt-y-xx.strace"
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(s, check.Options{})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Roots: []string{"/tmp/crashsim-fixtures/git-commit"}}
	var want []string
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, Fingerprint(f, opt))
	}
	if len(want) < 5 {
		t.Fatalf("only %d findings", len(want))
	}
	for name, write := range map[string]func(io.Writer, *check.Result, Options) error{"json": JSON, "sarif": SARIF} {
		var b bytes.Buffer
		if err := write(&b, res, opt); err != nil {
			t.Fatal(err)
		}
		fps, err := wire.ReadFingerprints(&b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, fp := range want {
			if !fps.Has(fp) {
				t.Errorf("%s: %s not read back", name, fp)
			}
		}
		if fps.Has("0000000000000000") {
			t.Errorf("%s: a fingerprint no finding has", name)
		}
	}
}
