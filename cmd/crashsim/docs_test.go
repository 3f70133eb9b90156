package main

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRulesDoc: docs/rules.md is what `crashsim rules --format markdown`
// prints from the registry. A rule added, renamed or reworded without
// the page fails here; -update writes the page again.
func TestRulesDoc(t *testing.T) {
	out, errs, code := runCLI(t, "rules", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	const page = "../../docs/rules.md"
	if *update {
		if err := os.WriteFile(page, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(out, "\n")); diff != "" {
		t.Errorf("docs/rules.md differs from the registry (go test ./cmd/crashsim -run TestRulesDoc -update writes it) (-page +registry):\n%s", diff)
	}
	for _, id := range []string{"data-not-synced", "checker-failed", "blind-raw-args"} {
		if !strings.Contains(out, "`"+id+"`") {
			t.Errorf("the page does not name %s", id)
		}
	}
}

// TestCLIDoc: docs/cli.md is the --help of crashsim and of each command,
// at 80 columns, as the man page is generated from the same model. A flag
// added or reworded without the page fails here; -update writes the page
// again.
func TestCLIDoc(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	var page strings.Builder
	page.WriteString("# Command-line reference\n\n")
	page.WriteString("<!-- Generated from crashsim's --help. Do not edit: `go test ./cmd/crashsim -run TestCLIDoc -update` writes it again. -->\n\n")
	page.WriteString("Every command's `--help`, as crashsim prints it. The pages beside this one explain each command with examples; `crashsim man` prints the same text as a man page, and `crashsim completion bash|zsh|fish` a completion script.\n\n")
	var cmds []string
	ct := reflect.TypeOf(cli{})
	for i := range ct.NumField() {
		if _, ok := ct.Field(i).Tag.Lookup("cmd"); ok {
			cmds = append(cmds, strings.ToLower(ct.Field(i).Name))
		}
	}
	if len(cmds) < 10 {
		t.Fatalf("only %d commands found: %q", len(cmds), cmds)
	}
	for _, c := range cmds {
		page.WriteString("- [crashsim " + c + "](#crashsim-" + c + ")\n")
	}
	for _, args := range append([][]string{{"--help"}}, func() [][]string {
		var out [][]string
		for _, c := range cmds {
			out = append(out, []string{c, "--help"})
		}
		return out
	}()...) {
		out, errs, code := runCLI(t, args...)
		if code != 0 || errs != "" {
			t.Fatalf("crashsim %q: exit %d: %s", args, code, errs)
		}
		title := "crashsim"
		if len(args) > 1 {
			title += " " + args[0]
		}
		page.WriteString("\n## " + title + "\n\n```text\n" + strings.TrimRight(out, "\n") + "\n```\n")
	}
	const name = "../../docs/cli.md"
	if *update {
		if err := os.WriteFile(name, []byte(page.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(page.String(), "\n")); diff != "" {
		t.Errorf("docs/cli.md differs from --help (go test ./cmd/crashsim -run TestCLIDoc -update writes it) (-page +help):\n%s", diff)
	}
}
