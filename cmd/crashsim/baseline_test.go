package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/report"
	"github.com/google/go-cmp/cmp"
)

// baselineWhole reads a baseline as crashsim did before it streamed them:
// the whole file, one json.Unmarshal. The reference for readBaseline.
func baselineWhole(b []byte) (prints []string, kind string, missing bool, err error) {
	var doc struct {
		Findings *[]struct {
			Fingerprint string `json:"fingerprint"`
		} `json:"findings"`
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, "", false, err
	}
	switch {
	case doc.Findings != nil:
		for _, f := range *doc.Findings {
			missing = missing || f.Fingerprint == ""
			prints = append(prints, f.Fingerprint)
		}
		return prints, "findings", missing, nil
	case doc.Runs != nil:
		for _, r := range doc.Runs {
			for _, res := range r.Results {
				fp := res.PartialFingerprints[report.FingerprintVersion]
				missing = missing || fp == ""
				prints = append(prints, fp)
			}
		}
		return prints, "runs", missing, nil
	}
	return nil, "", false, nil
}

// TestBaselineStreamed: the streamed reading of a baseline accepts,
// refuses and finds what reading it whole did, on real reports and on
// odd documents.
func TestBaselineStreamed(t *testing.T) {
	dir := t.TempDir()
	docs := map[string]string{
		"empty object":     `{}`,
		"null findings":    `{"findings": null, "runs": [{"results": [{"partialFingerprints": {"crashsim/v2": "0123456789abcdef"}}]}]}`,
		"both":             `{"runs": [{"results": [{"partialFingerprints": {"crashsim/v2": "1111111111111111"}}]}], "findings": [{"fingerprint": "2222222222222222"}]}`,
		"empty runs":       `{"runs": []}`,
		"run no results":   `{"runs": [{"tool": {"driver": {"name": "x"}}}]}`,
		"missing":          `{"findings": [{"rule": "data-not-synced"}, {"fingerprint": "0123456789abcdef"}]}`,
		"missing sarif":    `{"runs": [{"results": [{"partialFingerprints": {"crashsim/v1": "0123456789abcdef"}}]}]}`,
		"twice":            `{"findings": [{"fingerprint": "1111111111111111"}], "findings": [{"fingerprint": "2222222222222222"}]}`,
		"upper case":       `{"Findings": [{"Fingerprint": "3333333333333333"}]}`,
		"not hex":          `{"findings": [{"fingerprint": "not a fingerprint"}, {"fingerprint": "0123456789abcdef"}]}`,
		"trailing":         `{"findings": []} x`,
		"truncated":        `{"findings": [{"fingerprint": "0123`,
		"array":            `[1, 2]`,
		"text":             "line 1\nline 2\n",
		"findings object":  `{"findings": {"fingerprint": "0123456789abcdef"}}`,
		"findings numbers": `{"findings": [1]}`,
	}
	// And real reports of a fixture, in both formats.
	trace := "../../fixtures/traces/git-commit/f-ttt-y-xx.strace"
	for _, format := range []string{"json", "sarif"} {
		out, errs, code := runCLI(t, "check", "--fail-on", "never", "--format", format, trace)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		docs["report "+format] = out
	}
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(file, []byte(docs[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		prints, kind, missing, wholeErr := baselineWhole([]byte(docs[name]))
		got, err := readBaseline(file)
		switch {
		case wholeErr != nil || kind == "" || missing:
			if err == nil {
				t.Errorf("%s: read whole it is refused (%v, kind %q, missing %v); streamed it is not", name, wholeErr, kind, missing)
			}
			continue
		case err != nil:
			t.Errorf("%s: refused: %v", name, err)
			continue
		}
		want := baseline{}
		for _, fp := range prints {
			if k, ok := fingerprintKey(fp); ok {
				want[k] = struct{}{}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: fingerprints (-whole +streamed):\n%s", name, diff)
		}
		for _, fp := range prints {
			if _, ok := fingerprintKey(fp); ok && !got.Has(fp) {
				t.Errorf("%s: %s not in the baseline", name, fp)
			}
		}
		if strings.HasPrefix(name, "report") && len(got) < 5 {
			t.Errorf("%s: only %d fingerprints", name, len(got))
		}
	}
}
