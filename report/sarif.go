package report

import (
	"fmt"
	"io"
	"net/url"
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

// uriPath is a slash-separated path as a URI's path: a byte that may not
// stand in one as it is (a space, '%', a byte that is not UTF-8, a bidi
// control) is percent-encoded, as URIs keep any byte reversibly.
func uriPath(p string) string { return (&url.URL{Path: p}).EscapedPath() }

// srcRoot is SARIF's name for the checkout (Options.Repo); code scanning
// resolves it.
const srcRoot = "%SRCROOT%"

// traceBase names the directory of a trace that lies outside the source
// root (a temp directory, as crashsim trace uses by default).
const traceBase = "TRACEDIR"

// artifact names a file for SARIF: relative to the repository (Repo, else
// the source root) when below it, else relative to its own directory under traceBase, never by an
// absolute path that changes with each checkout or temp directory.
func (o Options) artifact(p string) wire.SARIFArtifact {
	root := o.Repo
	if root == "" {
		root = o.SrcRoot
	}
	abs, err := filepath.Abs(p)
	if err == nil {
		if rel, ok := below(root, abs); ok {
			return wire.SARIFArtifact{URI: uriPath(rel), URIBaseID: srcRoot}
		}
	}
	return wire.SARIFArtifact{URI: uriPath(filepath.Base(p)), URIBaseID: traceBase}
}

// SARIF writes a SARIF 2.1.0 log: one result per problem (check.Group),
// its ruleId the problem's rule, located at its call site or its
// primary's trace line, its consequences among its related locations,
// its id in partialFingerprints. The results are encoded one at a time as
// they are written, so that a log of a million findings is never whole in
// memory.
func SARIF(w io.Writer, res *check.Result, opt Options) error {
	index := ruleIndex()
	ps, ids, err := problems(res, opt)
	if err != nil {
		return err
	}
	traceDirs := map[string]bool{}
	arts := artifacts{opt: opt}
	// Only each finding's trace is needed here: Brief reads no more of a
	// spilled one than what names it.
	var brief check.Finding
	for i := range res.Len() {
		if err := res.Brief(i, &brief); err != nil {
			return err
		}
		if arts.of(brief.Trace).URIBaseID == traceBase {
			traceDirs[filepath.Dir(brief.Trace)] = true
		}
	}
	run := opt.sarifRun(res, traceDirs)
	// A shard's log is cut to code scanning's limits once merged.
	whole := opt.Shard == ""
	list := ps.List
	if whole {
		list = list[:wire.CutResults(&run, len(list))]
	}
	out := wire.NewSARIFWriter(w, &wire.SARIFLog{Schema: wire.SARIFSchema, Version: wire.SARIFVersion, Runs: []wire.SARIFRun{run}})
	var reuse check.Finding
	var st check.State
	for n, p := range list {
		r, err := opt.sarifResult(res, p, ids[n], index, &arts, &reuse, &st)
		if err != nil {
			return err
		}
		if whole {
			r.CapRelated()
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
		notify(b.ID, lvl, name(b.Message+". Fix: "+b.Fix+"."), b.Trace, b.Line)
	}
	for _, n := range res.Notes {
		notify(n.ID, "note", name(n.Message), n.Trace, n.Line)
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
				run.OriginalURIBaseIDs = map[string]wire.SARIFArtifact{traceBase: {URI: "file://" + uriPath(filepath.ToSlash(abs)) + "/"}}
			}
		}
	}
	if opt.Shard != "" || opt.Config != "" || opt.Run != nil {
		run.Properties = &wire.SARIFRunProperties{Config: name(opt.Config), Shard: opt.Shard, Run: opt.Run}
	}
	return run
}

// sarifResult is the result of one problem: its primary's related
// events, then one related location per consequence.
//
// Each finding is read into reuse and st (Result.AtReuse): what the
// result keeps of one (its models, strings) is never in their room.
func (opt Options) sarifResult(res *check.Result, p *check.Problem, id string, index map[string]int, arts *artifacts, reuse *check.Finding, st *check.State) (wire.SARIFResult, error) {
	traceLoc := arts.of(p.Trace)
	msg := name(opt.RelPath(p.Path) + ": " + p.Message)
	if n := len(p.Paths) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more files)", n)
	}
	r := wire.SARIFResult{
		RuleID: p.Rule.ID, RuleIndex: index[p.Rule.ID], Level: level(p.Severity),
		Message:             wire.SARIFText{Text: msg},
		Locations:           []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: traceLoc, Region: wire.SARIFRegion{StartLine: max(p.Line, 1)}}}},
		PartialFingerprints: map[string]string{wire.ProblemVersion: id},
		RelatedLocations:    []wire.SARIFLocation{},
	}
	props := &wire.SARIFResultProperties{Path: name(opt.RelPath(p.Path)), StateIndex: p.StateIndex}
	for _, x := range p.Paths {
		props.Paths = append(props.Paths, name(opt.RelPath(x)))
	}
	if loc := p.Source; loc != nil {
		r.Locations = []wire.SARIFLocation{{PhysicalLocation: wire.SARIFPhysicalLocation{
			ArtifactLocation: opt.artifact(loc.File), Region: wire.SARIFRegion{StartLine: max(loc.Line, 1)}}}}
		fn := name(loc.Function)
		props.Function = &fn
	}
	addRule := func(id string) {
		for _, x := range props.Rules {
			if x == id {
				return
			}
		}
		props.Rules = append(props.Rules, id)
	}
	addRule(p.Rule.ID)
	if p.Primary >= 0 {
		f, err := res.AtReuse(p.Primary, reuse, st)
		if err != nil {
			return r, err
		}
		props.Models = f.Models
		props.Findings = append(props.Findings, Fingerprint(f, opt))
		r.RelatedLocations = opt.related(f, traceLoc, 0, p.Source != nil)
		if f.StateIndex > 0 {
			c := opt.consequence(f, arts)
			props.Consequence = &c
		}
	}
	for _, i := range p.Members {
		if int(i) == p.Primary {
			continue
		}
		f, err := res.AtReuse(int(i), reuse, st)
		if err != nil {
			return r, err
		}
		if props.Models == nil {
			props.Models = f.Models
		}
		props.Findings = append(props.Findings, Fingerprint(f, opt))
		addRule(f.Rule.ID)
		c := opt.consequence(f, arts)
		id := len(r.RelatedLocations) + 1
		c.ID = &id
		r.RelatedLocations = append(r.RelatedLocations, c)
	}
	r.Properties = props
	return r, nil
}

// consequence is the related location of a finding that is not its
// problem's primary: where it is in the trace, and what a crash leaves
// (its state in words, else its message). An explore finding's carries
// its state index.
func (opt Options) consequence(f *check.Finding, arts *artifacts) wire.SARIFLocation {
	what := f.Message
	if s := f.State; s != nil {
		what = s.Sentence(f.Trace, func(s string) string { return s })
	}
	c := wire.SARIFLocation{
		PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: arts.of(f.Trace), Region: wire.SARIFRegion{StartLine: max(f.Line, 1)}},
		Message:          &wire.SARIFText{Text: name(f.Rule.ID + ": " + opt.RelPath(f.Path) + ": " + what)},
	}
	if f.StateIndex > 0 {
		c.Properties = &wire.SARIFLocationProperties{StateIndex: f.StateIndex}
	}
	return c
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
// when the result is located at its source (atSource), then its related
// events.
func (o Options) related(f *check.Finding, trace wire.SARIFArtifact, n int, atSource bool) []wire.SARIFLocation {
	var out []wire.SARIFLocation
	add := func(line int, msg string) {
		id := n + len(out) + 1
		out = append(out, wire.SARIFLocation{
			ID:               &id,
			PhysicalLocation: wire.SARIFPhysicalLocation{ArtifactLocation: trace, Region: wire.SARIFRegion{StartLine: max(line, 1)}},
			Message:          &wire.SARIFText{Text: name(msg)},
		})
	}
	if atSource {
		add(f.Line, "the call in the trace: "+f.Path)
	}
	for _, rel := range f.Related {
		add(rel.Line, rel.Syscall+": "+rel.What)
	}
	return out
}
