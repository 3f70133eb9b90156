package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/report/wire"
)

// TestNamesReversible: names that are not UTF-8 stay apart in JSON and
// SARIF, escaped as the text report escapes them, and a bidi control
// reaches no viewer raw. encoding/json wrote both bad names below as
// "/d/a\ufffd", one name, and U+202E as it is.
func TestNamesReversible(t *testing.T) {
	rule, _ := check.Lookup(check.DataNotSynced)
	names := []string{"/d/a\xff", "/d/a\xfe", "/d/a\u202egnp.exe", `/d/a\xff`, "/d/b c%41"}
	var fs []*check.Finding
	for i, p := range names {
		fs = append(fs, &check.Finding{Rule: rule, Path: p, Trace: "t\xff.strace", Line: 3 + i, PID: 1,
			Message: p + " can be empty", Models: []string{"posix"},
			Related: []check.Related{{Trace: "t.strace", Line: 1, Syscall: "write", What: "written to " + p}},
			State:   &check.State{Line: 3 + i, Path: p, Outcome: "empty", Persisted: "none"}})
	}
	opt := Options{Roots: []string{"/d"}}

	var js bytes.Buffer
	if err := JSON(&js, resultOf(fs...), opt); err != nil {
		t.Fatal(err)
	}
	var rep wire.Report
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		seen[f.Path] = true
		if f.State.Path != f.Path || f.Trace != `t\xff.strace` || !strings.HasPrefix(f.Message, f.Path+" ") {
			t.Errorf("finding %q: state %q, trace %q, message %q", f.Path, f.State.Path, f.Trace, f.Message)
		}
	}
	for _, p := range names {
		if !seen[textesc.Escape(p)] {
			t.Errorf("JSON: no finding named %q (%q); got %v", textesc.Escape(p), p, seen)
		}
	}
	if len(seen) != len(names) {
		t.Errorf("JSON: %d names for %d files: %v", len(seen), len(names), seen)
	}

	var sf bytes.Buffer
	if err := SARIF(&sf, resultOf(fs...), opt); err != nil {
		t.Fatal(err)
	}
	var log wire.SARIFLog
	if err := json.Unmarshal(sf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	seen = map[string]bool{}
	for _, r := range log.Runs[0].Results {
		seen[r.Properties.Path] = true
		if uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "t%FF.strace" {
			t.Errorf("SARIF: trace URI %q", uri)
		}
	}
	if len(seen) != len(names) {
		t.Errorf("SARIF: %d names for %d files: %v", len(seen), len(names), seen)
	}
	for _, out := range [][]byte{js.Bytes(), sf.Bytes()} {
		if bytes.Contains(out, []byte("\u202e")) || bytes.Contains(out, []byte(`\u202e`)) && !bytes.Contains(out, []byte(`\\u202e`)) {
			t.Errorf("a bidi control left raw:\n%s", out)
		}
		if bytes.Contains(out, []byte(`\ufffd`)) || bytes.Contains(out, []byte("\ufffd")) {
			t.Errorf("a name turned into U+FFFD:\n%s", out)
		}
	}
}
