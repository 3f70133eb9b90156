package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/check"
)

// SARIF 2.1.0, the subset GitHub code scanning reads: rule metadata from
// the check registry, one result per finding located at its trace line,
// related locations for the events that explain it.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                `json:"tool"`
	Invocations        []sarifInvocation        `json:"invocations"`
	OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult            `json:"results"`
	// Properties hold crashsimShard ("I/N") in a shard's report, and
	// crashsimConfig, the config file the run read.
	Properties map[string]any `json:"properties,omitempty"`
}

// sarifInvocation carries the exit code, and the blind spots and notes of a
// check: what the trace could not show is about the run, not about a line
// of code.
type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	ExitCode            int                 `json:"exitCode"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Descriptor sarifDescriptor `json:"descriptor"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations,omitempty"`
}

type sarifDescriptor struct {
	ID string `json:"id"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version"`
	SemanticVersion string      `json:"semanticVersion"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	FullDescription      sarifText       `json:"fullDescription"`
	Help                 sarifText       `json:"help"`
	HelpURI              string          `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
	Properties           map[string]any  `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

func level(s check.Severity) string {
	switch s {
	case check.Error:
		return "error"
	case check.Warning:
		return "warning"
	}
	return "note"
}

// ruleName turns a kebab-case ID into the PascalCase name SARIF expects.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// srcRoot is SARIF's name for the checkout; code scanning resolves it.
const srcRoot = "%SRCROOT%"

// traceBase names the directory of a trace that lies outside the source
// root (a temp directory, as crashsim trace uses by default).
const traceBase = "TRACEDIR"

// artifact names a file for SARIF: relative to the source root when below
// it, else relative to its own directory under traceBase, never by an
// absolute path that changes with each checkout or temp directory.
func (o Options) artifact(p string) sarifArtifact {
	abs, err := filepath.Abs(p)
	if err == nil {
		if rel, ok := below(o.SrcRoot, abs); ok {
			return sarifArtifact{URI: rel, URIBaseID: srcRoot}
		}
	}
	return sarifArtifact{URI: filepath.Base(p), URIBaseID: traceBase}
}

// SARIF writes a SARIF 2.1.0 log. Findings with the same fingerprint (the
// same rule at the same call site, for files a loop saves) are one result.
// The results are encoded one at a time as they are written, so that a
// log of a million findings is never whole in memory: a first pass only
// groups the findings by fingerprint.
func SARIF(w io.Writer, res *check.Result, opt Options) error {
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
	// Groups of findings by fingerprint, in order of first appearance:
	// heads[g] is the first finding of group g, next[i] the finding after
	// i in its group (-1: none). Findings are named by their place in the
	// result (or in fs, when grouped by call site), so that a spilled
	// result is read back for a result at a time.
	var fs []*check.Finding
	at := func(i int32) (*check.Finding, error) { return res.At(int(i)) }
	if len(opt.Sources) > 0 && !res.Spilled() {
		fs = group(res.Findings, opt.Sources)
		at = func(i int32) (*check.Finding, error) { return fs[i], nil }
	}
	byPrint := map[[8]byte]int32{}
	var heads, tails []int32
	next := make([]int32, 0, res.Len())
	traceDirs := map[string]bool{}
	arts := artifacts{opt: opt}
	err := each(res, opt, func(f *check.Finding) error {
		i := int32(len(next))
		next = append(next, -1)
		if arts.of(f.Trace).URIBaseID == traceBase {
			traceDirs[filepath.Dir(f.Trace)] = true
		}
		fp := fingerprintSum(f, opt)
		g, ok := byPrint[fp]
		if !ok {
			byPrint[fp] = int32(len(heads))
			heads, tails = append(heads, i), append(tails, i)
			return nil
		}
		next[tails[g]], tails[g] = i, i
		return nil
	})
	if err != nil {
		return err
	}
	byPrint, tails = nil, nil
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
	var bases map[string]sarifArtifact
	if len(traceDirs) == 1 {
		for d := range traceDirs {
			if abs, err := filepath.Abs(d); err == nil {
				bases = map[string]sarifArtifact{traceBase: {URI: "file://" + filepath.ToSlash(abs) + "/"}}
			}
		}
	}
	tool := sarifTool{Driver: sarifDriver{
		Name: "crashsim", Version: opt.tool().Version, SemanticVersion: opt.tool().SemVer,
		InformationURI: "https://github.com/crashsim/crashsim", Rules: srules,
	}}

	// The document as encoding/json writes sarifLog with one run.
	s := newJSONStream(w)
	s.raw("{")
	s.field("$schema", "https://json.schemastore.org/sarif-2.1.0.json", 1, true)
	s.field("version", "2.1.0", 1, false)
	s.key("runs", 1, false)
	s.raw("[\n" + strings.Repeat("  ", 2) + "{")
	s.field("tool", &tool, 3, true)
	s.field("invocations", []sarifInvocation{inv}, 3, false)
	if len(bases) > 0 {
		s.field("originalUriBaseIds", bases, 3, false)
	}
	s.key("results", 3, false)
	var buf []byte
	for g, head := range heads {
		if g == 0 {
			s.raw("[")
		} else {
			s.raw(",")
		}
		s.raw("\n" + strings.Repeat("  ", 4))
		r, err := opt.sarifResult(at, head, next, index, &arts)
		if err == nil {
			buf, err = appendSARIFResult(buf[:0], &r, 4)
		}
		if err != nil {
			return err
		}
		s.bytes(buf)
		if s.err != nil {
			return s.err
		}
	}
	if len(heads) == 0 {
		s.raw("[]")
	} else {
		s.raw("\n" + strings.Repeat("  ", 3) + "]")
	}
	props := map[string]any{}
	if opt.Shard != "" {
		props["crashsimShard"] = opt.Shard
	}
	if opt.Config != "" {
		props["crashsimConfig"] = opt.Config
	}
	if len(props) > 0 {
		s.field("properties", props, 3, false)
	}
	s.raw("\n" + strings.Repeat("  ", 2) + "}\n  ]\n}\n")
	return s.err
}

// sarifResult is the result of one group of findings with the same
// fingerprint, from its first finding i on through next.
func (opt Options) sarifResult(at func(int32) (*check.Finding, error), i int32, next []int32, index map[string]int, arts *artifacts) (sarifResult, error) {
	f, err := at(i)
	if err != nil {
		return sarifResult{}, err
	}
	traceLoc := arts.of(f.Trace)
	first := opt.RelPath(f.Path) + ": " + f.Message
	r := sarifResult{
		RuleID: f.Rule.ID, RuleIndex: index[f.Rule.ID], Level: level(f.Rule.Severity),
		Message:             sarifText{first},
		Locations:           []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: traceLoc, Region: sarifRegion{max(f.Line, 1)}}}},
		PartialFingerprints: map[string]string{FingerprintVersion: Fingerprint(f, opt)},
	}
	paths := []string{opt.RelPath(f.Path)}
	r.Properties = map[string]any{"path": opt.RelPath(f.Path), "models": f.Models}
	if f.StateIndex > 0 {
		r.Properties["stateIndex"] = f.StateIndex
	}
	if loc, ok := opt.Sources[f]; ok {
		r.Locations = []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
			ArtifactLocation: opt.artifact(loc.File), Region: sarifRegion{max(loc.Line, 1)}}}}
		r.Properties["function"] = loc.Function
	}
	r.RelatedLocations = opt.related(f, traceLoc, 0)
	for j := next[i]; j >= 0; j = next[j] {
		f, err := at(j)
		if err != nil {
			return sarifResult{}, err
		}
		paths = append(paths, opt.RelPath(f.Path))
		r.RelatedLocations = append(r.RelatedLocations, opt.related(f, arts.of(f.Trace), len(r.RelatedLocations))...)
	}
	if len(paths) > 1 {
		r.Message.Text = fmt.Sprintf("%s (and %d more files from the same call)", first, len(paths)-1)
	}
	r.Properties["paths"] = paths
	return r, nil
}

// artifacts remembers the artifact of the last trace named, since every
// finding of a trace names the same one and filepath.Abs asks for the
// working directory each time.
type artifacts struct {
	opt   Options
	trace string
	art   sarifArtifact
	ok    bool
}

func (a *artifacts) of(trace string) sarifArtifact {
	if !a.ok || trace != a.trace {
		a.trace, a.art, a.ok = trace, a.opt.artifact(trace), true
	}
	return a.art
}

// related lists the trace lines that explain a finding: the call itself
// when the result is located at its source, then its related events.
func (o Options) related(f *check.Finding, trace sarifArtifact, n int) []sarifLocation {
	var out []sarifLocation
	add := func(line int, msg string) {
		id := n + len(out) + 1
		out = append(out, sarifLocation{
			ID:               &id,
			PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: trace, Region: sarifRegion{max(line, 1)}},
			Message:          &sarifText{msg},
		})
	}
	if _, ok := o.Sources[f]; ok {
		add(f.Line, "the call in the trace: "+f.Path)
	}
	for _, rel := range f.Related {
		add(rel.Line, rel.Syscall+": "+rel.What)
	}
	return out
}
