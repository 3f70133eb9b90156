package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/crashsim/crashsim/source"
)

// The writers below build the whole document and encode it in one call,
// as JSON and SARIF did before they streamed: the reference the streamed
// output must equal byte for byte.

// jsonWhole writes one document; findings is always an array.
func jsonWhole(w io.Writer, res *check.Result, opt Options) error {
	doc := wire.Report{Version: wire.Version, Tool: opt.tool(), Findings: []wire.Finding{}, Summary: wire.Summary{
		Counts: wire.Counts{Events: res.Summary.Events, Files: res.Summary.Files, Errors: res.Summary.Errors, WarningFindings: res.Summary.Warnings, Infos: res.Summary.Infos},
		Models: opt.Models, Left: opt.Left, Warnings: []wire.Warning{}, Notes: []wire.Note{}, Shard: opt.Shard}}
	if doc.Summary.Models == nil {
		doc.Summary.Models = []string{}
	}
	for _, b := range res.Warnings {
		doc.Summary.Warnings = append(doc.Summary.Warnings, wire.Warning{ID: b.ID, Message: b.Message, Trace: b.Trace, Line: b.Line, Fix: b.Fix, Accepted: b.Accepted})
	}
	for _, n := range res.Notes {
		doc.Summary.Notes = append(doc.Summary.Notes, wire.Note{ID: n.ID, Message: n.Message, Trace: n.Trace, Line: n.Line})
	}
	all, err := res.List()
	if err != nil {
		return err
	}
	for _, f := range group(all) {
		rel := []wire.Related{}
		for _, r := range f.Related {
			rel = append(rel, wire.Related{Line: r.Line, PID: r.PID, Syscall: r.Syscall, What: r.What})
		}
		fj := wire.Finding{
			Rule: f.Rule.ID, Severity: f.Rule.Severity.String(), Path: f.Path, Trace: f.Trace,
			Line: f.Line, PID: f.PID, Message: f.Message, Models: f.Models, Related: rel,
			Fingerprint: Fingerprint(f, opt), RelPath: opt.RelPath(f.Path),
			StateIndex: f.StateIndex,
		}
		if s := f.State; s != nil {
			fj.State = &wire.State{Line: s.Line, Path: s.Path, Outcome: s.Outcome, Persisted: s.Persisted, Words: s.Words}
		}
		if loc := f.Source; loc != nil {
			fj.Source = &wire.Source{File: opt.relSource(loc.File), Line: loc.Line, Function: loc.Function}
		}
		doc.Findings = append(doc.Findings, fj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// sarifWhole writes a SARIF 2.1.0 log. Findings of the same rule at the
// same call site (files a loop saves) are one result, with each finding's
// fingerprint.
func sarifWhole(w io.Writer, res *check.Result, opt Options) error {
	index := ruleIndex()
	results := []wire.SARIFResult{}
	byPrint := map[[8]byte]int{}
	firsts := map[int]string{}
	traceDirs := map[string]bool{}
	all, err := res.List()
	if err != nil {
		return err
	}
	for _, f := range group(all) {
		fp := Fingerprint(f, opt)
		site := siteSum(f, opt)
		traceLoc := opt.artifact(f.Trace)
		if traceLoc.URIBaseID == traceBase {
			traceDirs[filepath.Dir(f.Trace)] = true
		}
		if i, ok := byPrint[site]; ok {
			r := &results[i]
			if len(r.Properties.Fingerprints) == 0 {
				r.Properties.Fingerprints = []string{r.PartialFingerprints[wire.FingerprintVersion]}
			}
			r.Properties.Fingerprints = append(r.Properties.Fingerprints, fp)
			r.Properties.Paths = append(r.Properties.Paths, opt.RelPath(f.Path))
			r.Message.Text = fmt.Sprintf("%s (and %d more files from the same call)", firsts[i], len(r.Properties.Paths)-1)
			r.RelatedLocations = append(r.RelatedLocations, opt.related(f, traceLoc, len(r.RelatedLocations))...)
			continue
		}
		r := wire.SARIFResult{
			RuleID: f.Rule.ID, RuleIndex: index[f.Rule.ID], Level: level(f.Rule.Severity),
			Message:             wire.SARIFText{Text: opt.RelPath(f.Path) + ": " + f.Message},
			Locations:           []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: traceLoc, Region: wire.SARIFRegion{StartLine: max(f.Line, 1)}}}},
			PartialFingerprints: map[string]string{wire.FingerprintVersion: fp},
			Properties:          &wire.SARIFResultProperties{Path: opt.RelPath(f.Path), Paths: []string{opt.RelPath(f.Path)}, Models: f.Models},
		}
		firsts[len(results)] = r.Message.Text
		if f.StateIndex > 0 {
			r.Properties.StateIndex = f.StateIndex
		}
		if loc := f.Source; loc != nil {
			r.Locations = []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{
				ArtifactLocation: opt.artifact(loc.File), Region: wire.SARIFRegion{StartLine: max(loc.Line, 1)}}}}
			fn := loc.Function
			r.Properties.Function = &fn
		}
		r.RelatedLocations = opt.related(f, traceLoc, 0)
		byPrint[site] = len(results)
		results = append(results, r)
	}
	// The run without its results is the writer's own: the results are
	// what it streams.
	run := opt.sarifRun(res, traceDirs)
	run.Results = results
	log := wire.SARIFLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []wire.SARIFRun{run},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

// streamCases are results that exercise every branch of the writers: no
// findings, one, findings of one call site grouped into one SARIF result,
// sources, a state index, a shard, blind spots and notes.
func streamCases() map[string]struct {
	res *check.Result
	opt Options
} {
	a := finding("/w", 1, 40, "t1")
	b := finding("/w", 1, 50, "t2")
	b.Path = "/w/data/other.json"
	c := finding("/w", 2, 60, "t3")
	c.Path = "/w/data/third.json"
	c.StateIndex = 3
	d := finding("/w", 2, 70, "t4")
	d.Related = nil
	d.State = &check.State{Line: 70, Path: "/w/data/config.json", Outcome: "empty", Persisted: "none", Words: "empty"}
	a.Source = &source.Location{File: "/w/save.go", Line: 12, Function: "main.save"}
	b.Source = &source.Location{File: "/w/save.go", Line: 12, Function: "main.save"}
	blind := []check.BlindWarning{{ID: "blind-raw-args", Trace: "/w/t.strace", Line: 3, Message: "raw", Fix: "record again"}}
	notes := []check.Note{{ID: "note-volatile", Trace: "/w/t.strace", Line: 4, Message: "on tmpfs"}}
	grouped := resultOf(a, b, c, d)
	grouped.Warnings, grouped.Notes = blind, notes
	// The same findings without their call sites.
	var plain []*check.Finding
	for _, f := range []*check.Finding{a, b, c, d} {
		g := *f
		g.Source = nil
		plain = append(plain, &g)
	}
	return map[string]struct {
		res *check.Result
		opt Options
	}{
		"empty":      {&check.Result{}, Options{}},
		"one":        {sample(), Options{Models: []string{"posix"}}},
		"grouped":    {grouped, Options{Roots: []string{"/w"}, SrcRoot: "/w", ExitCode: 1}},
		"plain":      {resultOf(plain...), Options{Roots: []string{"/w"}, Models: []string{"posix", "ext4"}, Shard: "2/5", ExitCode: 6}},
		"two traces": {resultOf(a, finding("/v", 1, 9, "x")), Options{}},
	}
}

func TestStreamedEqualsWhole(t *testing.T) {
	for name, c := range streamCases() {
		for _, w := range []struct {
			format        string
			stream, whole func(io.Writer, *check.Result, Options) error
		}{{"json", JSON, jsonWhole}, {"sarif", SARIF, sarifWhole}} {
			var got, want bytes.Buffer
			if err := w.stream(&got, c.res, c.opt); err != nil {
				t.Fatal(err)
			}
			if err := w.whole(&want, c.res, c.opt); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s %s: streamed output differs:\n%s", name, w.format, firstLineDiff(want.String(), got.String()))
			}
			if name == "grouped" && w.format == "sarif" && !bytes.Contains(got.Bytes(), []byte("(and 1 more files from the same call)")) {
				t.Errorf("grouped sarif: the two findings of one call site are not one result")
			}
			if !json.Valid(got.Bytes()) {
				t.Errorf("%s %s: not JSON", name, w.format)
			}
		}
	}
}

// TestStreamWriteError: a failing writer is an error, not a short report
// that looks whole.
func TestStreamWriteError(t *testing.T) {
	c := streamCases()["grouped"]
	for _, write := range []func(io.Writer, *check.Result, Options) error{JSON, SARIF} {
		if err := write(failWriter{}, c.res, c.opt); err == nil {
			t.Error("no error from a writer that failed")
		}
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) {
	return 0, fmt.Errorf("disk full")
}

func firstLineDiff(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w, g)
		}
	}
	return ""
}
