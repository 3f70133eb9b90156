package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIgnoreSameScope: an --ignore glob leaves config.txt out of check
// (counted as ignored), states, the HTML page and explore alike, whether
// it is written with "**", as a base name or relative to the root; a glob
// that names something else leaves it in everywhere. (states, explore and
// the page once matched with path.Match, where "**" does not cross '/'.)
func TestIgnoreSameScope(t *testing.T) {
	dir := "../../fixtures/traces/python-noflush"
	trace := filepath.Join(dir, "f-ttt-y-xx.strace")
	root := "/tmp/crashsim-fixtures/python-noflush"
	target := root + "/config.txt"
	initial := t.TempDir()
	if err := os.WriteFile(filepath.Join(initial, "config.txt"), []byte("version=1\nreplicas=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lanes := regexp.MustCompile(`"lanes":\[[^]]*\]`)
	for glob, ignored := range map[string]bool{
		"/tmp/**":          true,
		"**/config.txt*":   true,
		"config.txt":       true,
		"python-noflush/*": false, // relative to no root given: not a path of the trace
		"/tmp/*/other/**":  false,
		"*.json":           false,
	} {
		shown := map[string]bool{}

		out, errs, code := runCLI(t, "check", "--format", "json", "--fail-on", "never", "--initial-list", dir+"/initial.list", "--ignore", glob, trace)
		if code != 0 {
			t.Fatalf("check --ignore %s: exit %d: %s", glob, code, errs)
		}
		shown["check"] = strings.Contains(out, `"path": "`+target+`"`)
		if ignored && !strings.Contains(out, `"ignored": 4`) {
			t.Errorf("check --ignore %s: the 4 findings left out are not counted:\n%s", glob, out)
		}

		out, errs, code = runCLI(t, "states", "--format", "json", "--all-paths", "--initial-list", dir+"/initial.list", "--ignore", glob, trace)
		if code != 0 {
			t.Fatalf("states --ignore %s: exit %d: %s", glob, code, errs)
		}
		shown["states"] = strings.Contains(out, `"`+target+`"`)

		page := filepath.Join(t.TempDir(), "page.html")
		if _, errs, code := runCLI(t, "check", "--format", "html", "--fail-on", "never", "-o", page, "--initial-list", dir+"/initial.list", "--ignore", glob, trace); code != 0 {
			t.Fatalf("check --format html --ignore %s: exit %d: %s", glob, code, errs)
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		shown["html"] = strings.Contains(lanes.FindString(string(b)), `"path":"`+target+`"`)

		// The checker rejects every state in which config.txt is not as
		// it was before the run: only a state that varies it does.
		out, errs, code = runCLI(t, "explore", "--format", "json", "--fail-on", "never", "--root", root, "--initial", initial,
			"--work-dir", t.TempDir(), "--checker", "grep -qx version=1 config.txt", "--ignore", glob, trace)
		if code != 0 {
			t.Fatalf("explore --ignore %s: exit %d: %s", glob, code, errs)
		}
		// The states built, not only the report: explore's summary line.
		shown["explore"] = !strings.Contains(errs, " and rejected 0 ")
		if strings.Contains(out, `"rule": "checker-failed"`) != shown["explore"] {
			t.Errorf("explore --ignore %s: the report and the summary disagree:\n%s%s", glob, errs, out)
		}

		for cmd, in := range shown {
			if in == ignored {
				t.Errorf("--ignore %s: %s shows %s: %v, want %v", glob, cmd, target, in, !ignored)
			}
		}
	}
}
