package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runAction runs the GitHub Action's script (scripts/action.sh) in a new
// directory holding the sqlite3-delete fixture, the way action.yml runs
// it, and returns its exit status, its output and the SARIF it wrote.
func runAction(t *testing.T, env map[string]string, files map[string]string) (int, string, map[string]any, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds crashsim and runs the action's script")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build crashsim with")
	}
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trace, err := os.ReadFile(filepath.Join(src, "fixtures/traces/sqlite3-delete/f-ttt-y-xx.strace"))
	if err != nil {
		t.Fatal(err)
	}
	files["sqlite.strace"] = string(trace)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "github-output")
	cmd := exec.Command("bash", filepath.Join(src, "scripts/action.sh"))
	cmd.Dir = dir
	runner := t.TempDir()
	cmd.Env = append(os.Environ(), "CRASHSIM_SRC="+src, "RUNNER_TEMP="+runner, "GITHUB_OUTPUT="+out, "GOFLAGS=")
	if actionBin != "" {
		cmd.Env = append(cmd.Env, "CRASHSIM_BIN="+actionBin)
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	log, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var sarif map[string]any
	if b, err := os.ReadFile(filepath.Join(dir, "crashsim.sarif")); err == nil {
		if err := json.Unmarshal(b, &sarif); err != nil {
			t.Fatalf("the SARIF report is not JSON: %v", err)
		}
	}
	outputs, _ := os.ReadFile(out)
	if actionBin == "" {
		// The first run built crashsim as the action does; the others
		// reuse it (CRASHSIM_BIN) for the rest of the test.
		if _, err := os.Stat(filepath.Join(runner, "crashsim-bin")); err == nil {
			actionBin = filepath.Join(runner, "crashsim-bin")
			t.Cleanup(func() { actionBin = "" })
		}
	}
	return code, string(log), sarif, string(outputs)
}

// actionBin is the crashsim the first runAction of a test built.
var actionBin string

func sarifResults(t *testing.T, sarif map[string]any) []any {
	t.Helper()
	if sarif == nil {
		t.Fatal("no SARIF report written")
	}
	run := sarif["runs"].([]any)[0].(map[string]any)
	return run["results"].([]any)
}

// TestActionGates runs the action's script on a fixture: its one finding
// fails the step, and a config with one suppression (with its reason) lets
// it pass, saying in the log what it left out.
func TestActionGates(t *testing.T) {
	code, log, sarif, outputs := runAction(t, map[string]string{"INPUT_COMMAND": "check", "INPUT_ARGS": "sqlite.strace"}, map[string]string{})
	if code != exitFindings {
		t.Errorf("without a config: exit %d, want %d\n%s", code, exitFindings, log)
	}
	if n := len(sarifResults(t, sarif)); n != 1 {
		t.Errorf("without a config: %d SARIF results, want 1", n)
	}
	if !strings.Contains(log, ": name-not-synced: ") || !strings.Contains(outputs, "exit-code=1\n") || !strings.Contains(outputs, "sarif=crashsim.sarif\n") {
		t.Errorf("without a config: log or outputs lack the finding:\n%s\n%s", log, outputs)
	}

	cfg := `# SQLite's rollback journal coming back after a crash is how SQLite
# recovers: it rolls the hot journal back when it next opens the database.
[[suppress]]
rule = "name-not-synced"
path = "**/test.db-journal"
reason = "SQLite rolls a hot journal back on open"
`
	code, log, sarif, outputs = runAction(t, map[string]string{"INPUT_COMMAND": "check", "INPUT_ARGS": "sqlite.strace"}, map[string]string{".crashsim.toml": cfg})
	if code != exitOK {
		t.Errorf("with the suppression: exit %d, want 0\n%s", code, log)
	}
	if n := len(sarifResults(t, sarif)); n != 0 {
		t.Errorf("with the suppression: %d SARIF results, want 0", n)
	}
	if !strings.Contains(log, "not reported: 1 suppressed") || !strings.Contains(outputs, "exit-code=0\n") {
		t.Errorf("with the suppression: the log does not count it:\n%s\n%s", log, outputs)
	}

	// A bad input is said, and is exit 2, before anything is built.
	code, log, _, _ = runAction(t, map[string]string{"INPUT_COMMAND": "lint", "INPUT_ARGS": "x"}, map[string]string{})
	if code != exitUsage || !strings.Contains(log, "command must be trace or check") {
		t.Errorf("bad command: exit %d, want 2\n%s", code, log)
	}
}

// TestActionTrace runs the action in trace mode on a program.
func TestActionTrace(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not in $PATH")
	}
	code, log, sarif, _ := runAction(t, map[string]string{"INPUT_COMMAND": "trace", "INPUT_ARGS": `sh -c 'printf x > "saved file.txt"'`}, map[string]string{})
	if code != exitFindings {
		t.Errorf("exit %d, want %d\n%s", code, exitFindings, log)
	}
	if len(sarifResults(t, sarif)) == 0 || !strings.Contains(log, "/saved file.txt: ") || !strings.Contains(log, ": data-not-synced: ") {
		t.Errorf("no data-not-synced finding for the traced program:\n%s", log)
	}
}
