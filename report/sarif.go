package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
)

// SARIF 2.1.0, the subset GitHub code scanning reads (wire.SARIFLog):
// rule metadata from the check registry, one result per finding located
// at its trace line, related locations for the events that explain it.

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

// srcRoot is SARIF's name for the checkout (Options.Repo); code scanning
// resolves it.
const srcRoot = "%SRCROOT%"

// traceBase names the directory of a trace that lies outside the source
// root (a temp directory, as crashsim trace uses by default).
const traceBase = "TRACEDIR"

// artifact names a file for SARIF: relative to the source root when below
// it, else relative to its own directory under traceBase, never by an
// absolute path that changes with each checkout or temp directory.
func (o Options) artifact(p string) wire.SARIFArtifact {
	root := o.Repo
	if root == "" {
		root = o.SrcRoot
	}
	abs, err := filepath.Abs(p)
	if err == nil {
		if rel, ok := below(root, abs); ok {
			return wire.SARIFArtifact{URI: rel, URIBaseID: srcRoot}
		}
	}
	return wire.SARIFArtifact{URI: filepath.Base(p), URIBaseID: traceBase}
}

// SARIF writes a SARIF 2.1.0 log. Findings of the same rule at the same
// call site (files a loop saves) are one result, which carries each
// finding's fingerprint.
// The results are encoded one at a time as they are written, so that a
// log of a million findings is never whole in memory: a first pass only
// groups the findings by fingerprint.
func SARIF(w io.Writer, res *check.Result, opt Options) error {
	index := ruleIndex()
	// Groups of findings by fingerprint, in order of first appearance:
	// heads[g] is the first finding of group g, next[i] the finding after
	// i in its group (-1: none). Findings are named by their place in the
	// result (or in fs, when grouped by call site), so that a spilled
	// result is read back for a result at a time.
	var fs []*check.Finding
	at := func(i int32) (*check.Finding, error) { return res.At(int(i)) }
	if !res.Spilled() {
		all, _ := res.List() // in memory: no error
		fs = group(all)
		at = func(i int32) (*check.Finding, error) { return fs[i], nil }
	}
	byPrint := map[[8]byte]int32{}
	var heads, tails []int32
	next := make([]int32, 0, res.Len())
	traceDirs := map[string]bool{}
	arts := artifacts{opt: opt}
	err := each(res, func(f *check.Finding) error {
		i := int32(len(next))
		next = append(next, -1)
		if arts.of(f.Trace).URIBaseID == traceBase {
			traceDirs[filepath.Dir(f.Trace)] = true
		}
		fp := siteSum(f, opt)
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
	run := opt.sarifRun(res, traceDirs)
	out := wire.NewSARIFWriter(w, &wire.SARIFLog{Schema: wire.SARIFSchema, Version: wire.SARIFVersion, Runs: []wire.SARIFRun{run}})
	for _, head := range heads {
		r, err := opt.sarifResult(at, head, next, index, &arts)
		if err != nil {
			return err
		}
		if err := out.Result(&r); err != nil {
			return err
		}
	}
	return out.Close()
}

// ruleIndex is each rule's place in the registry: a SARIF result's
// ruleIndex into the driver's rules.
func ruleIndex() map[string]int {
	index := map[string]int{}
	for i, r := range check.Rules() {
		index[r.ID] = i
	}
	return index
}

// sarifRun is a log's run without its results: crashsim with every rule
// of the registry, the invocation with the exit code, blind spots and
// notes, where TRACEDIR is when the traces the results name lie in one
// directory (traceDirs), and the mark of a shard.
func (opt Options) sarifRun(res *check.Result, traceDirs map[string]bool) wire.SARIFRun {
	var rules []wire.SARIFRule
	for _, r := range check.Rules() {
		rules = append(rules, wire.SARIFRule{
			ID: r.ID, Name: ruleName(r.ID),
			ShortDescription:     wire.SARIFText{Text: r.Title},
			FullDescription:      wire.SARIFText{Text: r.Doc},
			Help:                 wire.SARIFText{Text: r.Fix},
			HelpURI:              r.HelpURI,
			DefaultConfiguration: wire.SARIFRuleConfig{Level: level(r.Severity)},
			Properties:           &wire.SARIFRuleProperties{Tags: []string{"durability", "crash-consistency"}},
		})
	}
	// 1 is "findings" and 6 "blind spots", verdicts of a successful run;
	// the other non-zero statuses are failures.
	inv := wire.SARIFInvocation{ExecutionSuccessful: opt.ExitCode <= 1 || opt.ExitCode == 6, ExitCode: opt.ExitCode,
		Notifications: []wire.SARIFNotification{}}
	notify := func(id, lvl, msg, trace string, line int) {
		n := wire.SARIFNotification{Descriptor: wire.SARIFDescriptor{ID: id}, Level: lvl, Message: wire.SARIFText{Text: msg}}
		if trace != "" {
			n.Locations = []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{
				ArtifactLocation: opt.artifact(trace), Region: wire.SARIFRegion{StartLine: max(line, 1)}}}}
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
	run := wire.SARIFRun{
		Tool: wire.SARIFTool{Driver: wire.SARIFDriver{
			Name: "crashsim", Version: opt.tool().Version, SemanticVersion: opt.tool().SemVer,
			InformationURI: "https://github.com/crashsim/crashsim", Rules: rules,
		}},
		Invocations: []wire.SARIFInvocation{inv},
	}
	if len(traceDirs) == 1 {
		for d := range traceDirs {
			if abs, err := filepath.Abs(d); err == nil {
				run.OriginalURIBaseIDs = map[string]wire.SARIFArtifact{traceBase: {URI: "file://" + filepath.ToSlash(abs) + "/"}}
			}
		}
	}
	if opt.Shard != "" {
		run.Properties = &wire.SARIFRunProperties{Shard: opt.Shard}
	}
	return run
}

// sarifResult is the result of one group of findings of one call site
// (siteSum), from its first finding i on through next.
func (opt Options) sarifResult(at func(int32) (*check.Finding, error), i int32, next []int32, index map[string]int, arts *artifacts) (wire.SARIFResult, error) {
	f, err := at(i)
	if err != nil {
		return wire.SARIFResult{}, err
	}
	traceLoc := arts.of(f.Trace)
	first := opt.RelPath(f.Path) + ": " + f.Message
	r := wire.SARIFResult{
		RuleID: f.Rule.ID, RuleIndex: index[f.Rule.ID], Level: level(f.Rule.Severity),
		Message:             wire.SARIFText{Text: first},
		Locations:           []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: traceLoc, Region: wire.SARIFRegion{StartLine: max(f.Line, 1)}}}},
		PartialFingerprints: map[string]string{wire.FingerprintVersion: Fingerprint(f, opt)},
	}
	paths := []string{opt.RelPath(f.Path)}
	prints := []string{r.PartialFingerprints[wire.FingerprintVersion]}
	props := &wire.SARIFResultProperties{Path: opt.RelPath(f.Path), Models: f.Models}
	if f.StateIndex > 0 {
		props.StateIndex = f.StateIndex
	}
	if loc := f.Source; loc != nil {
		r.Locations = []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{
			ArtifactLocation: opt.artifact(loc.File), Region: wire.SARIFRegion{StartLine: max(loc.Line, 1)}}}}
		fn := loc.Function
		props.Function = &fn
	}
	r.RelatedLocations = opt.related(f, traceLoc, 0)
	for j := next[i]; j >= 0; j = next[j] {
		f, err := at(j)
		if err != nil {
			return wire.SARIFResult{}, err
		}
		paths = append(paths, opt.RelPath(f.Path))
		prints = append(prints, Fingerprint(f, opt))
		r.RelatedLocations = append(r.RelatedLocations, opt.related(f, arts.of(f.Trace), len(r.RelatedLocations))...)
	}
	if len(paths) > 1 {
		r.Message.Text = fmt.Sprintf("%s (and %d more files from the same call)", first, len(paths)-1)
		props.Fingerprints = prints
	}
	props.Paths = paths
	r.Properties = props
	return r, nil
}

// artifacts remembers the artifact of the last trace named, since every
// finding of a trace names the same one and filepath.Abs asks for the
// working directory each time.
type artifacts struct {
	opt   Options
	trace string
	art   wire.SARIFArtifact
	ok    bool
}

func (a *artifacts) of(trace string) wire.SARIFArtifact {
	if !a.ok || trace != a.trace {
		a.trace, a.art, a.ok = trace, a.opt.artifact(trace), true
	}
	return a.art
}

// related lists the trace lines that explain a finding: the call itself
// when the result is located at its source, then its related events.
func (o Options) related(f *check.Finding, trace wire.SARIFArtifact, n int) []wire.SARIFLocation {
	var out []wire.SARIFLocation
	add := func(line int, msg string) {
		id := n + len(out) + 1
		out = append(out, wire.SARIFLocation{
			ID:               &id,
			PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: trace, Region: wire.SARIFRegion{StartLine: max(line, 1)}},
			Message:          &wire.SARIFText{Text: msg},
		})
	}
	if f.Source != nil {
		add(f.Line, "the call in the trace: "+f.Path)
	}
	for _, rel := range f.Related {
		add(rel.Line, rel.Syscall+": "+rel.What)
	}
	return out
}
