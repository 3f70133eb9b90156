package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/parser"
)

// resultOf is a result holding fs, counted.
func resultOf(fs ...*check.Finding) *check.Result {
	res := &check.Result{}
	res.Add(fs...)
	return res
}

func sample() *check.Result {
	rule, _ := check.Lookup(check.RenameBeforeSync)
	res := resultOf(&check.Finding{
		Rule: rule, Path: "/d/config.json", Trace: "t.strace", Line: 7, PID: 42,
		Message: "config.json can be empty", Models: []string{"posix"},
		Related: []check.Related{{Trace: "t.strace", Line: 5, Syscall: "write", What: "written"}},
		State:   &check.State{Line: 7, Path: "/d/config.json", Outcome: "empty", Persisted: "none"},
	})
	res.Summary.Events, res.Summary.Files = 9, 1
	return res
}

func TestJSONFields(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample(), Options{Models: []string{"posix"}}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	f := doc["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"rule", "severity", "path", "trace", "line", "pid", "message", "models", "related", "state"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding has no %q field", k)
		}
	}
	rel := f["related"].([]any)[0].(map[string]any)
	for _, k := range []string{"line", "syscall", "what"} {
		if _, ok := rel[k]; !ok {
			t.Errorf("related has no %q field", k)
		}
	}
	// No findings is an empty array, never null.
	b.Reset()
	JSON(&b, &check.Result{}, Options{})
	if !strings.Contains(b.String(), `"findings": []`) {
		t.Errorf("empty result: %s", b.String())
	}
}

func TestSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := SARIF(&b, sample(), Options{}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Name string `json:"name"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(check.Rules()) {
		t.Errorf("%d rules, want the registry's %d", len(run.Tool.Driver.Rules), len(check.Rules()))
	}
	r := run.Results[0]
	if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID || r.RuleID != "rename-before-sync" || r.Level != "error" {
		t.Errorf("result %+v does not point at its rule", r)
	}
	loc := r.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "t.strace" || loc.Region.StartLine != 7 {
		t.Errorf("location %+v", loc)
	}
	if run.Tool.Driver.Rules[0].Name != "DataNotSynced" {
		t.Errorf("rule name %q, want PascalCase", run.Tool.Driver.Rules[0].Name)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.json")
	os.WriteFile(name, []byte("old"), 0o644)
	err := WriteFileAtomic(name, func(f *os.File) error { _, err := f.WriteString("new"); return err })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(name)
	entries, _ := os.ReadDir(dir)
	if string(b) != "new" || len(entries) != 1 {
		t.Errorf("content %q, %d entries; want new and no temp left", b, len(entries))
	}
	// A failed write leaves the old file and no temp.
	os.WriteFile(name, []byte("old"), 0o644)
	WriteFileAtomic(name, func(f *os.File) error { return os.ErrInvalid })
	b, _ = os.ReadFile(name)
	entries, _ = os.ReadDir(dir)
	if string(b) != "old" || len(entries) != 1 {
		t.Errorf("after a failed write: content %q, %d entries", b, len(entries))
	}
}

// TestTextHeadlineWithDirectories: the text report's headline of a
// problem whose paths hold directories (git's object directories) does
// not call them files.
func TestTextHeadlineWithDirectories(t *testing.T) {
	trace := "../fixtures/traces/git-commit/f-ttt-y-xx.strace"
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(s, check.Options{Roots: []string{"/tmp/crashsim-fixtures/git-commit"}})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var b bytes.Buffer
	if err := Text(&b, res, Options{}); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), "\n")
	if !strings.Contains(head, " (and 8 more): ") || !strings.Contains(head, "7 files and 2 directories") {
		t.Errorf("headline: %s", head)
	}
}
