package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goldenTraces are the recordings whose check and states JSON is kept in
// testdata/golden: every fixture trace and -ff set, and the parser's forms.
// Each is run as a user would, with the fixture's initial.list when it has
// one.
func goldenTraces(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	for _, trace := range modelArgsTraces(t) {
		out = append(out, []string{trace})
		if list := filepath.Join(filepath.Dir(trace), "initial.list"); fileExists(list) {
			out = append(out, []string{"--initial-list", list, trace})
		}
	}
	sets, err := filepath.Glob("../../fixtures/traces/*/ff-ttt")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range sets {
		m, _ := filepath.Glob(filepath.Join(dir, "trace.*"))
		if len(m) > 0 {
			out = append(out, []string{filepath.Join(dir, "trace")})
		}
	}
	return out
}

var goldenName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// goldenFile names the golden file of one command on one trace.
func goldenFile(cmd string, args []string) string {
	trace := args[len(args)-1]
	rel := strings.TrimPrefix(strings.TrimPrefix(trace, "../../"), "fixtures/traces/")
	name := goldenName.ReplaceAllString(rel, "_")
	if len(args) > 1 {
		name += ".initial"
	}
	return filepath.Join("testdata", "golden", name+"."+cmd+".json")
}

// TestCheckStatesGolden: check --format json and states --format json of
// every fixture print what the committed goldens hold, byte for byte, with
// the exit status and stderr. Speed work on the parser and the model must
// not change a verdict or a crash state; a change that is meant is
// reviewed by running go test ./cmd/crashsim -run TestCheckStatesGolden
// -update and reading the diff.
func TestCheckStatesGolden(t *testing.T) {
	traces := goldenTraces(t)
	if len(traces) < 60 {
		t.Fatalf("only %d traces", len(traces))
	}
	seen := map[string]bool{}
	for _, args := range traces {
		for _, view := range [][]string{
			{"check", "--fail-on", "never", "--format", "json"},
			{"states", "--format", "json", "--all-paths"},
		} {
			file := goldenFile(view[0], args)
			if seen[file] {
				t.Fatalf("two runs share the golden file %s", file)
			}
			seen[file] = true
			cmd := append(append([]string(nil), view...), args...)
			goldenRun(t, file, "TestCheckStatesGolden", cmd)
		}
	}
	if *update {
		return
	}
	// A golden file no run wrote is left from a fixture that is gone.
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, f := range files {
		if !seen[f] {
			t.Errorf("%s belongs to no fixture trace: delete it, or run with -update after removing the directory", f)
		}
	}
}

// goldenRun runs crashsim with args and compares its exit status, stderr
// and stdout with the golden file (rewriting it under -update; test names
// the test that does, for the hint).
func goldenRun(t *testing.T, file, test string, args []string) {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	got := "exit " + strconv.Itoa(code) + "\nstderr:\n" + errs + "stdout:\n" + out
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/crashsim -run %s -update)", err, test)
	}
	if got != string(want) {
		t.Errorf("crashsim %s: output differs from %s:\n%s", strings.Join(args, " "), file, firstDiff(string(want), got))
	}
}

func fileExists(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}
