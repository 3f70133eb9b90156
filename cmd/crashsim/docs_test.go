package main

import (
	"os"
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
