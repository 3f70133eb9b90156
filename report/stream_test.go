package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/crashsim/crashsim/source"
)

// The writers below build the whole document and encode it in one call,
// as JSON and SARIF did before they streamed: the reference the streamed
// output must equal byte for byte.

// jsonWhole writes one document; problems and findings are always
// arrays.
func jsonWhole(w io.Writer, res *check.Result, opt Options) error {
	ps, err := check.Group(res)
	if err != nil {
		return err
	}
	ids := ProblemIDs(ps, opt)
	doc := wire.Report{Version: wire.Version, Tool: opt.tool(), Problems: []wire.Problem{}, Findings: []wire.Finding{}, Summary: wire.Summary{
		Counts: wire.Counts{Events: res.Summary.Events, Files: res.Summary.Files, Errors: res.Summary.Errors, WarningFindings: res.Summary.Warnings, Infos: res.Summary.Infos, Problems: ps.Len()},
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
	var ordered []*check.Finding
	var of []string
	for n, p := range ps.List {
		wp := wire.Problem{ID: ids[n], Rule: p.Rule.ID, Severity: p.Severity.String(), Path: p.Path, Paths: p.Paths,
			Trace: p.Trace, Line: p.Line, Message: p.Message, Fix: p.Fix, Program: p.Program, StateIndex: p.StateIndex, Findings: []string{}}
		if p.Primary >= 0 {
			wp.Findings = append(wp.Findings, Fingerprint(all[p.Primary], opt))
		}
		for _, i := range p.Members {
			if int(i) != p.Primary {
				wp.Findings = append(wp.Findings, Fingerprint(all[i], opt))
			}
			ordered, of = append(ordered, all[i]), append(of, ids[n])
		}
		if loc := p.Source; loc != nil {
			wp.Source = &wire.Source{File: opt.relSource(loc.File), Line: loc.Line, Function: loc.Function}
		}
		doc.Problems = append(doc.Problems, wp)
	}
	for k, f := range ordered {
		rel := []wire.Related{}
		for _, r := range f.Related {
			rel = append(rel, wire.Related{Line: r.Line, PID: r.PID, Syscall: r.Syscall, What: r.What})
		}
		fj := wire.Finding{
			Rule: f.Rule.ID, Severity: f.Rule.Severity.String(), Path: f.Path, Trace: f.Trace,
			Line: f.Line, PID: f.PID, Message: f.Message, Models: f.Models, Related: rel,
			Fingerprint: Fingerprint(f, opt), RelPath: opt.RelPath(f.Path),
			StateIndex: f.StateIndex, Problem: of[k],
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

// sarifWhole writes a SARIF 2.1.0 log, one result per problem, from the
// findings held whole.
func sarifWhole(w io.Writer, res *check.Result, opt Options) error {
	index := ruleIndex()
	ps, err := check.Group(res)
	if err != nil {
		return err
	}
	ids := ProblemIDs(ps, opt)
	results := []wire.SARIFResult{}
	traceDirs := map[string]bool{}
	all, err := res.List()
	if err != nil {
		return err
	}
	for _, f := range all {
		if opt.artifact(f.Trace).URIBaseID == traceBase {
			traceDirs[filepath.Dir(f.Trace)] = true
		}
	}
	for n, p := range ps.List {
		msg := opt.RelPath(p.Path) + ": " + p.Message
		if len(p.Paths) > 1 {
			msg += fmt.Sprintf(" (and %d more files)", len(p.Paths)-1)
		}
		r := wire.SARIFResult{
			RuleID: p.Rule.ID, RuleIndex: index[p.Rule.ID], Level: level(p.Severity),
			Message:             wire.SARIFText{Text: msg},
			Locations:           []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: opt.artifact(p.Trace), Region: wire.SARIFRegion{StartLine: max(p.Line, 1)}}}},
			PartialFingerprints: map[string]string{wire.ProblemVersion: ids[n]},
			Properties:          &wire.SARIFResultProperties{Path: opt.RelPath(p.Path), StateIndex: p.StateIndex, Rules: []string{p.Rule.ID}},
		}
		for _, x := range p.Paths {
			r.Properties.Paths = append(r.Properties.Paths, opt.RelPath(x))
		}
		if loc := p.Source; loc != nil {
			r.Locations = []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{
				ArtifactLocation: opt.artifact(loc.File), Region: wire.SARIFRegion{StartLine: max(loc.Line, 1)}}}}
			fn := loc.Function
			r.Properties.Function = &fn
		}
		// consequence is f's related location as a consequence: an
		// explore finding's carries its state index, and the primary's
		// is among the result's properties.
		consequence := func(f *check.Finding) wire.SARIFLocation {
			what := f.Message
			if s := f.State; s != nil {
				what = fmt.Sprintf("a crash right after line %d can leave %s %s", s.Line, s.Path, s.Describe())
			}
			c := wire.SARIFLocation{PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: opt.artifact(f.Trace), Region: wire.SARIFRegion{StartLine: max(f.Line, 1)}},
				Message: &wire.SARIFText{Text: f.Rule.ID + ": " + opt.RelPath(f.Path) + ": " + what}}
			if f.StateIndex > 0 {
				c.Properties = &wire.SARIFLocationProperties{StateIndex: f.StateIndex}
			}
			return c
		}
		if p.Primary >= 0 {
			f := all[p.Primary]
			r.Properties.Models = f.Models
			r.Properties.Findings = append(r.Properties.Findings, Fingerprint(f, opt))
			r.RelatedLocations = opt.related(f, opt.artifact(f.Trace), 0, p.Source != nil)
			if f.StateIndex > 0 {
				c := consequence(f)
				r.Properties.Consequence = &c
			}
		}
		for _, i := range p.Members {
			if int(i) == p.Primary {
				continue
			}
			f := all[i]
			if r.Properties.Models == nil {
				r.Properties.Models = f.Models
			}
			r.Properties.Findings = append(r.Properties.Findings, Fingerprint(f, opt))
			if !slices.Contains(r.Properties.Rules, f.Rule.ID) {
				r.Properties.Rules = append(r.Properties.Rules, f.Rule.ID)
			}
			id := len(r.RelatedLocations) + 1
			c := consequence(f)
			c.ID = &id
			r.RelatedLocations = append(r.RelatedLocations, c)
		}
		if opt.Shard == "" {
			r.CapRelated()
		}
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
			if name == "grouped" && w.format == "sarif" && !bytes.Contains(got.Bytes(), []byte("(and 1 more files)")) {
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
