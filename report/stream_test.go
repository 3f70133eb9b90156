package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/source"
)

// The writers below build the whole document and encode it in one call,
// as JSON and SARIF did before they streamed: the reference the streamed
// output must equal byte for byte.

// jsonWhole writes one document; findings is always an array.
func jsonWhole(w io.Writer, res *check.Result, opt Options) error {
	doc := DocumentJSON{Version: FormatVersion, Tool: opt.tool(), Findings: []FindingJSON{}, Summary: SummaryJSON{Summary: res.Summary, Models: opt.Models, Left: opt.Left,
		Warnings: append([]check.BlindWarning{}, res.Warnings...), Notes: append([]check.Note{}, res.Notes...), Shard: opt.Shard}}
	if doc.Summary.Models == nil {
		doc.Summary.Models = []string{}
	}
	for _, f := range group(res.Findings, opt.Sources) {
		rel := f.Related
		if rel == nil {
			rel = []check.Related{}
		}
		doc.Findings = append(doc.Findings, FindingJSON{
			Rule: f.Rule.ID, Severity: f.Rule.Severity.String(), Path: f.Path, Trace: f.Trace,
			Line: f.Line, PID: f.PID, Message: f.Message, Models: f.Models, Related: rel, State: f.State,
			Fingerprint: Fingerprint(f, opt), RelPath: opt.RelPath(f.Path),
			StateIndex: f.StateIndex,
		})
		if loc, ok := opt.Sources[f]; ok {
			doc.Findings[len(doc.Findings)-1].Source = &SourceJSON{File: opt.relSource(loc.File), Line: loc.Line, Function: loc.Function}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// sarifWhole writes a SARIF 2.1.0 log. Findings with the same fingerprint (the
// same rule at the same call site, for files a loop saves) are one result.
func sarifWhole(w io.Writer, res *check.Result, opt Options) error {
	rules := check.Rules()
	index := map[string]int{}
	var srules []sarifRule
	for i, r := range rules {
		index[r.ID] = i
		srules = append(srules, sarifRule{
			ID: r.ID, Name: ruleName(r.ID),
			ShortDescription:     sarifText{r.Title},
			FullDescription:      sarifText{r.Doc},
			Help:                 sarifText{r.Fix},
			HelpURI:              r.HelpURI,
			DefaultConfiguration: sarifRuleConfig{level(r.Severity)},
			Properties:           map[string]any{"tags": []string{"durability", "crash-consistency"}},
		})
	}
	results := []sarifResult{}
	byPrint := map[string]int{}
	traceDirs := map[string]bool{}
	for _, f := range group(res.Findings, opt.Sources) {
		fp := Fingerprint(f, opt)
		traceLoc := opt.artifact(f.Trace)
		if traceLoc.URIBaseID == traceBase {
			traceDirs[filepath.Dir(f.Trace)] = true
		}
		if i, ok := byPrint[fp]; ok {
			r := &results[i]
			paths := append(r.Properties["paths"].([]string), opt.RelPath(f.Path))
			r.Properties["paths"] = paths
			r.Message.Text = fmt.Sprintf("%s (and %d more files from the same call)", r.Properties["first"], len(paths)-1)
			r.RelatedLocations = append(r.RelatedLocations, opt.related(f, traceLoc, len(r.RelatedLocations))...)
			continue
		}
		r := sarifResult{
			RuleID: f.Rule.ID, RuleIndex: index[f.Rule.ID], Level: level(f.Rule.Severity),
			Message:             sarifText{opt.RelPath(f.Path) + ": " + f.Message},
			Locations:           []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: traceLoc, Region: sarifRegion{max(f.Line, 1)}}}},
			PartialFingerprints: map[string]string{FingerprintVersion: fp},
			Properties:          map[string]any{"path": opt.RelPath(f.Path), "paths": []string{opt.RelPath(f.Path)}, "models": f.Models},
		}
		r.Properties["first"] = r.Message.Text
		if f.StateIndex > 0 {
			r.Properties["stateIndex"] = f.StateIndex
		}
		if loc, ok := opt.Sources[f]; ok {
			r.Locations = []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: opt.artifact(loc.File), Region: sarifRegion{max(loc.Line, 1)}}}}
			r.Properties["function"] = loc.Function
		}
		r.RelatedLocations = opt.related(f, traceLoc, 0)
		byPrint[fp] = len(results)
		results = append(results, r)
	}
	for i := range results {
		delete(results[i].Properties, "first")
	}
	// 1 is "findings" and 6 "blind spots", verdicts of a successful run;
	// the other non-zero statuses are failures.
	inv := sarifInvocation{ExecutionSuccessful: opt.ExitCode <= 1 || opt.ExitCode == 6, ExitCode: opt.ExitCode,
		Notifications: []sarifNotification{}}
	notify := func(id, lvl, msg, trace string, line int) {
		n := sarifNotification{Descriptor: sarifDescriptor{id}, Level: lvl, Message: sarifText{msg}}
		if trace != "" {
			n.Locations = []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: opt.artifact(trace), Region: sarifRegion{max(line, 1)}}}}
		}
		inv.Notifications = append(inv.Notifications, n)
	}
	for _, b := range res.Warnings {
		lvl := "warning"
		if b.Accepted {
			lvl = "note"
		}
		notify(b.ID, lvl, b.Message+". Fix: "+b.Fix+".", b.Trace, b.Line)
	}
	for _, n := range res.Notes {
		notify(n.ID, "note", n.Message, n.Trace, n.Line)
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "crashsim", Version: opt.tool().Version, SemanticVersion: opt.tool().SemVer,
			InformationURI: "https://github.com/crashsim/crashsim", Rules: srules,
		}},
		Invocations: []sarifInvocation{inv},
		Results:     results,
	}
	if len(traceDirs) == 1 {
		for d := range traceDirs {
			if abs, err := filepath.Abs(d); err == nil {
				run.OriginalURIBaseIDs = map[string]sarifArtifact{traceBase: {URI: "file://" + filepath.ToSlash(abs) + "/"}}
			}
		}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	if opt.Shard != "" {
		log.Runs[0].Properties = map[string]any{"crashsimShard": opt.Shard}
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
	src := map[*check.Finding]source.Location{
		a: {File: "/w/save.go", Line: 12, Function: "main.save"},
		b: {File: "/w/save.go", Line: 12, Function: "main.save"},
	}
	blind := []check.BlindWarning{{ID: "blind-raw-args", Trace: "/w/t.strace", Line: 3, Message: "raw", Fix: "record again"}}
	notes := []check.Note{{ID: "note-volatile", Trace: "/w/t.strace", Line: 4, Message: "on tmpfs"}}
	all := []*check.Finding{a, b, c, d}
	return map[string]struct {
		res *check.Result
		opt Options
	}{
		"empty":      {&check.Result{}, Options{}},
		"one":        {sample(), Options{Models: []string{"posix"}}},
		"grouped":    {&check.Result{Findings: all, Warnings: blind, Notes: notes}, Options{Roots: []string{"/w"}, SrcRoot: "/w", Sources: src, ExitCode: 1}},
		"plain":      {&check.Result{Findings: all}, Options{Roots: []string{"/w"}, Models: []string{"posix", "ext4"}, Shard: "2/5", ExitCode: 6}},
		"two traces": {&check.Result{Findings: []*check.Finding{a, finding("/v", 1, 9, "x")}}, Options{}},
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
