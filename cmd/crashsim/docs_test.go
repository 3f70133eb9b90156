package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
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

// TestDocLinks: every relative link of README.md and the docs/ pages
// names a file of the repository, and a link to a section names a
// heading of that page, so that moving a page or renaming a section
// cannot leave a reader at a dead end.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md", "../../CHANGELOG.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := func(page string) map[string]bool {
		b, err := os.ReadFile(page)
		if err != nil {
			return nil
		}
		out := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if h, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " "); ok && strings.HasPrefix(l, "#") {
				a := strings.Map(func(r rune) rune {
					switch {
					case r == ' ' || r == '-':
						return '-'
					case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
						return r
					case r >= 'A' && r <= 'Z':
						return r + 'a' - 'A'
					}
					return -1
				}, h)
				out[a] = true
			}
		}
		return out
	}
	n := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			n++
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: no such file", strings.TrimPrefix(page, "../../"), target)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(path)[anchor] {
				t.Errorf("%s: link %s: no such section in %s", strings.TrimPrefix(page, "../../"), target, strings.TrimPrefix(path, "../../"))
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d relative links found: the pattern must have missed some", n)
	}
}
