package check

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crashsim/crashsim/parser"
)

// wantRules are the rules in the order crashsim rules lists them, with
// explore's checker-failed last. It is written out here rather than derived from the
// registry so that renaming an ID, or changing a severity, fails a test:
// IDs are a stable interface that fixtures and users' configs name.
var wantRules = []struct {
	id  string
	sev Severity
}{
	{"data-not-synced", Error},
	{"name-not-synced", Error},
	{"fsync-before-write", Error},
	{"rename-before-sync", Error},
	{"rename-before-dir-sync", Warning},
	{"remove-before-sync", Error},
	{"remove-before-rename", Warning},
	{"dir-sync-before-data", Error},
	{"truncate-in-place", Warning},
	{"overwrite-in-place", Warning},
	{"sync-file-range-not-durable", Error},
	{"direct-io-not-flushed", Error},
	{"fsync-error-ignored", Error},
	{"cross-dir-rename", Warning},
	{"unaligned-write", Info},
	{"unmodeled-write", Warning},
	{"checker-failed", Error},
}

func TestRuleIDsAndSeverities(t *testing.T) {
	var want, got []string
	for _, w := range wantRules {
		want = append(want, w.id+" "+w.sev.String())
	}
	for _, r := range Rules() {
		got = append(got, r.ID+" "+r.Severity.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rules() IDs and severities (-want +got):\n%s", diff)
	}
}

func TestLookup(t *testing.T) {
	for _, w := range wantRules {
		r, ok := Lookup(w.id)
		if !ok {
			t.Errorf("Lookup(%q): not found", w.id)
			continue
		}
		if r.ID != w.id {
			t.Errorf("Lookup(%q).ID = %q", w.id, r.ID)
		}
	}
	for _, id := range []string{"", "nope", "Data-Not-Synced", "data-not-synced ", "data-not-sync"} {
		if r, ok := Lookup(id); ok {
			t.Errorf("Lookup(%q) = %q, want not found", id, r.ID)
		}
	}
}

func TestIDConstants(t *testing.T) {
	for _, id := range []string{
		DataNotSynced, NameNotSynced, FsyncBeforeWrite, RenameBeforeSync,
		RemoveBeforeSync, DirSyncBeforeData, TruncateInPlace, SyncFileRangeNotDurable,
		DirectIONotFlushed, FsyncErrorIgnored, CrossDirRename,
		UnalignedWrite, UnmodeledWrite, CheckerFailed,
	} {
		if _, ok := Lookup(id); !ok {
			t.Errorf("ID constant %q names no rule", id)
		}
	}
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Limits that keep a rule's text something a person reads at a terminal:
// one paragraph of docs, a short fix, examples of a few lines.
const (
	maxTitle        = 72
	maxDoc          = 700
	maxFix          = 400
	maxExampleLines = 10
)

func TestRuleText(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if !kebab.MatchString(r.ID) {
			t.Errorf("%q: ID is not kebab-case", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("%q: ID used twice", r.ID)
		}
		seen[r.ID] = true

		fields := map[string]string{
			"Title": r.Title, "Doc": r.Doc, "Fix": r.Fix,
			"Bad": r.Bad, "Good": r.Good, "Seed": r.Seed,
		}
		for name, text := range fields {
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s: %s is empty", r.ID, name)
			}
			if strings.Contains(strings.ToUpper(text), "TODO") || strings.Contains(strings.ToUpper(text), "FIXME") {
				t.Errorf("%s: %s mentions TODO/FIXME", r.ID, name)
			}
			if text != strings.TrimSpace(text) {
				t.Errorf("%s: %s has leading or trailing space", r.ID, name)
			}
		}
		for name, text := range map[string]string{"Title": r.Title, "Doc": r.Doc, "Fix": r.Fix, "Seed": r.Seed} {
			if strings.Contains(text, "\n") {
				t.Errorf("%s: %s has a line break; it is one paragraph (explain wraps it)", r.ID, name)
			}
			if strings.Contains(text, "  ") {
				t.Errorf("%s: %s has a double space", r.ID, name)
			}
		}
		if len(r.Title) > maxTitle {
			t.Errorf("%s: Title is %d bytes, more than %d", r.ID, len(r.Title), maxTitle)
		}
		if strings.HasSuffix(r.Title, ".") {
			t.Errorf("%s: Title ends with a period", r.ID)
		}
		if len(r.Doc) > maxDoc {
			t.Errorf("%s: Doc is %d bytes, more than %d", r.ID, len(r.Doc), maxDoc)
		}
		if len(r.Fix) > maxFix {
			t.Errorf("%s: Fix is %d bytes, more than %d", r.ID, len(r.Fix), maxFix)
		}
		for name, ex := range map[string]string{"Bad": r.Bad, "Good": r.Good} {
			if n := strings.Count(ex, "\n") + 1; n > maxExampleLines {
				t.Errorf("%s: %s has %d lines, more than %d", r.ID, name, n, maxExampleLines)
			}
		}
		if r.Bad == r.Good {
			t.Errorf("%s: Bad and Good are the same", r.ID)
		}
		if r.Severity < Info || r.Severity > Error {
			t.Errorf("%s: severity %v is not info, warning or error", r.ID, r.Severity)
		}
	}
}

// checker-failed comes from another command than the rest; its docs must
// say so, or a user of `crashsim check` looks for it in vain.
func TestCheckerFailedNamesExplore(t *testing.T) {
	r, _ := Lookup(CheckerFailed)
	if r == nil || !strings.Contains(r.Doc, "crashsim explore") {
		t.Errorf("checker-failed's Doc does not say it is produced by crashsim explore")
	}
}

func TestRulesReturnsACopy(t *testing.T) {
	a := Rules()
	a[0] = nil
	if Rules()[0] == nil {
		t.Fatal("modifying the slice Rules returned changed the registry")
	}
}

func TestParseSeverity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Severity
	}{
		{"info", Info}, {"warning", Warning}, {"error", Error}, {"never", Never},
	} {
		got, err := ParseSeverity(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSeverity(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	for _, in := range []string{"", "Error", "fatal", "warn"} {
		if got, err := ParseSeverity(in); err == nil {
			t.Errorf("ParseSeverity(%q) = %v, want an error", in, got)
		}
	}
	if !(Info < Warning && Warning < Error && Error < Never) {
		t.Error("severities are not ordered info < warning < error < never")
	}
}

func TestSeverityText(t *testing.T) {
	b, err := Warning.MarshalText()
	if err != nil || string(b) != "warning" {
		t.Errorf("Warning.MarshalText() = %q, %v", b, err)
	}
	if _, err := Severity(0).MarshalText(); err == nil {
		t.Error("Severity(0).MarshalText() succeeded")
	}
	var s Severity
	if err := s.UnmarshalText([]byte("info")); err != nil || s != Info {
		t.Errorf("UnmarshalText(info) = %v, %v", s, err)
	}
	if err := s.UnmarshalText([]byte("bad")); err == nil {
		t.Error("UnmarshalText(bad) succeeded")
	}
}

// TestDetectors: every rule a check finds names the code that finds it,
// a detector is run once per model run however many rules share it, and
// the rule explore reports has none.
func TestDetectors(t *testing.T) {
	shared := map[*detector][]string{}
	for _, r := range Rules() {
		if r.ID == CheckerFailed {
			if r.detector != nil {
				t.Errorf("%s has a detector, but no check of a trace finds it", r.ID)
			}
			continue
		}
		if r.detector == nil {
			t.Errorf("%s has no detector: no check finds it", r.ID)
			continue
		}
		shared[r.detector] = append(shared[r.detector], r.ID)
	}
	if len(detectors) != len(shared) || len(newObservers()) != len(shared) {
		t.Errorf("%d detectors, %d observers per run; the rules name %d", len(detectors), len(newObservers()), len(shared))
	}
	want := []string{DataNotSynced, FsyncBeforeWrite, SyncFileRangeNotDurable, DirectIONotFlushed}
	if diff := cmp.Diff(want, shared[dataDetector]); diff != "" {
		t.Errorf("the rules of the data detector (-want +got):\n%s", diff)
	}
	a, b := newObservers(), newObservers()
	for i := range a {
		// Observers without state take no room, and may share an address.
		if reflect.TypeOf(a[i]).Elem().Size() > 0 && a[i] == b[i] {
			t.Errorf("observer %d (%T) is shared between two runs", i, a[i])
		}
	}
}

// TestRuleExamples: what crashsim explain shows is true of crashsim.
// Each rule's Bad example, checked as a trace, has a finding of the rule,
// and its Good example has none (it may have another rule's: a temp
// file's name left to a crash, say). checker-failed is explore's, and
// has no trace that shows it.
func TestRuleExamples(t *testing.T) {
	for _, r := range Rules() {
		if r.detector == nil {
			continue
		}
		for _, ex := range []struct {
			name, text string
			want       bool
		}{{"Bad", r.Bad, true}, {"Good", r.Good, false}} {
			res, err := Run(parser.NewReader(strings.NewReader(ex.text+"\n"), "example.strace", parser.Options{}), Options{})
			if err != nil {
				t.Errorf("%s: %s: %v", r.ID, ex.name, err)
				continue
			}
			got := false
			for f, err := range res.Findings() {
				if err != nil {
					t.Fatal(err)
				}
				got = got || f.Rule.ID == r.ID
			}
			if got != ex.want {
				t.Errorf("%s: %s example has a finding of the rule: %v, want %v", r.ID, ex.name, got, ex.want)
			}
		}
	}
}
