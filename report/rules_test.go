package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
)

// TestExplain: a rule's page holds every field of the registry, its
// paragraphs wrapped within explainWidth columns.
func TestExplain(t *testing.T) {
	r, _ := check.Lookup(check.FsyncBeforeWrite)
	var b strings.Builder
	if err := Explain(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{r.ID + " (error): " + r.Title + "\n", "\nFix:\n  ", "\nBad:\n  ", "\nGood:\n  ", "\nSeen in: " + r.Seed + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > explainWidth && strings.Contains(l, " ") && !strings.HasPrefix(l, "  ") {
			t.Errorf("line longer than %d: %q", explainWidth, l)
		}
	}
	b.Reset()
	blind, _ := check.LookupBlind(check.BlindRawArgs)
	ExplainBlind(&b, blind)
	if !strings.HasPrefix(b.String(), "blind-raw-args (blind spot): the recording cannot show ") || !strings.Contains(b.String(), "--accept-blind blind-raw-args accepts it.") {
		t.Errorf("blind spot page:\n%s", b.String())
	}
	// explore's own bound is no failing of the recording: the page says so.
	b.Reset()
	blind, _ = check.LookupBlind(check.BlindStatesUnchecked)
	ExplainBlind(&b, blind)
	if out := b.String(); !strings.HasPrefix(out, "blind-states-unchecked (blind spot): the exploration did not show ") || strings.Contains(out, "recording cannot show") ||
		!strings.Contains(out, "--accept-blind blind-states-unchecked accepts it.") || !strings.Contains(out, "--max-states 0") {
		t.Errorf("blind spot page:\n%s", out)
	}
}

func TestRulesJSON(t *testing.T) {
	var b strings.Builder
	if err := RulesJSON(&b, check.Rules()); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(check.Rules()) || got[0]["id"] != check.Rules()[0].ID || got[0]["severity"] == nil {
		t.Errorf("rules JSON: %.200s", b.String())
	}
}

func TestWrap(t *testing.T) {
	var b strings.Builder
	wrap(&b, "aa bb cc averyveryverylongword dd", "> ", 8)
	if want := "> aa bb\n> cc\n> averyveryverylongword\n> dd\n"; b.String() != want {
		t.Errorf("wrap = %q, want %q", b.String(), want)
	}
}
