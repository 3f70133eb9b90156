package wire

import (
	"slices"
)

// The values of this package written by hand, as encoding/json writes
// them from their tags: the members in the order of the fields, a nil
// slice or map as null, omitempty members left out when empty.

// typed writes v when it is one of this package's types, or a pointer to
// one or a slice of them, and reports whether it was.
func (e *Encoder) typed(v any) bool {
	switch v := v.(type) {
	case *Report:
		e.report(v)
	case Report:
		e.report(&v)
	case *Finding:
		e.finding(v)
	case Finding:
		e.finding(&v)
	case []Finding:
		writeSlice(e, v, (*Encoder).finding)
	case *Problem:
		e.problem(v)
	case Problem:
		e.problem(&v)
	case []Problem:
		writeSlice(e, v, (*Encoder).problem)
	case *Related:
		e.related(v)
	case []Related:
		writeSlice(e, v, (*Encoder).related)
	case *State:
		e.state(v)
	case *Source:
		e.source(v)
	case *Tool:
		e.tool(v)
	case Tool:
		e.tool(&v)
	case *Counts:
		e.counts(v)
	case Counts:
		e.counts(&v)
	case *Summary:
		e.summary(v)
	case Summary:
		e.summary(&v)
	case *Left:
		e.left(v)
	case []Warning:
		writeSlice(e, v, (*Encoder).warning)
	case []Note:
		writeSlice(e, v, (*Encoder).note)
	case *SARIFLog:
		e.sarifLog(v)
	case *SARIFRun:
		e.sarifRun(v)
	case *SARIFResult:
		e.sarifResult(v)
	case []SARIFResult:
		writeSlice(e, v, (*Encoder).sarifResult)
	case *SARIFTool:
		e.sarifTool(v)
	case []SARIFInvocation:
		writeSlice(e, v, (*Encoder).sarifInvocation)
	case []SARIFLocation:
		e.sarifLocations(v)
	case map[string]SARIFArtifact:
		e.sarifBases(v)
	case *SARIFRunProperties:
		e.sarifRunProperties(v)
	case *Explore:
		e.explore(v)
	default:
		return false
	}
	return true
}

// writeSlice writes a slice of values: null when it is nil.
func writeSlice[T any](e *Encoder, v []T, write func(*Encoder, *T)) {
	if v == nil {
		e.Null()
		return
	}
	e.BeginArray()
	for i := range v {
		write(e, &v[i])
	}
	e.EndArray()
}

func (e *Encoder) report(r *Report) {
	e.BeginObject()
	e.IntField("version", r.Version)
	e.Key("tool")
	e.tool(&r.Tool)
	e.Key("problems")
	writeSlice(e, r.Problems, (*Encoder).problem)
	e.Key("findings")
	writeSlice(e, r.Findings, (*Encoder).finding)
	e.Key("summary")
	e.summary(&r.Summary)
	e.EndObject()
}

func (e *Encoder) finding(f *Finding) {
	e.BeginObject()
	e.StringField("rule", f.Rule)
	e.StringField("severity", f.Severity)
	e.StringField("path", f.Path)
	e.StringField("trace", f.Trace)
	e.IntField("line", f.Line)
	e.IntField("pid", f.PID)
	e.StringField("message", f.Message)
	e.Key("models")
	e.Strings(f.Models)
	e.Key("related")
	writeSlice(e, f.Related, (*Encoder).related)
	if f.State != nil {
		e.Key("state")
		e.state(f.State)
	}
	e.StringField("fingerprint", f.Fingerprint)
	e.StringField("relpath", f.RelPath)
	if f.Source != nil {
		e.Key("source")
		e.source(f.Source)
	}
	if f.StateIndex != 0 {
		e.IntField("state_index", f.StateIndex)
	}
	if f.Problem != "" {
		e.StringField("problem", f.Problem)
	}
	e.EndObject()
}

func (e *Encoder) problem(p *Problem) {
	e.BeginObject()
	e.StringField("id", p.ID)
	e.StringField("rule", p.Rule)
	e.StringField("severity", p.Severity)
	e.StringField("path", p.Path)
	e.Key("paths")
	e.Strings(p.Paths)
	e.StringField("trace", p.Trace)
	e.IntField("line", p.Line)
	if p.Source != nil {
		e.Key("source")
		e.source(p.Source)
	}
	e.StringField("message", p.Message)
	e.StringField("fix", p.Fix)
	if p.Program {
		e.Key("program")
		e.Bool(true)
	}
	e.Key("findings")
	e.Strings(p.Findings)
	if p.StateIndex != 0 {
		e.IntField("state_index", p.StateIndex)
	}
	e.EndObject()
}

func (e *Encoder) related(r *Related) {
	e.BeginObject()
	e.IntField("line", r.Line)
	e.IntField("pid", r.PID)
	e.StringField("syscall", r.Syscall)
	e.StringField("what", r.What)
	if r.Trace != "" {
		e.StringField("trace", r.Trace)
	}
	e.EndObject()
}

func (e *Encoder) state(s *State) {
	e.BeginObject()
	e.IntField("line", s.Line)
	e.StringField("path", s.Path)
	e.StringField("outcome", s.Outcome)
	e.StringField("persisted", s.Persisted)
	if s.Words != "" {
		e.StringField("words", s.Words)
	}
	if s.Trace != "" {
		e.StringField("trace", s.Trace)
	}
	e.EndObject()
}

func (e *Encoder) source(s *Source) {
	e.BeginObject()
	e.StringField("file", s.File)
	e.IntField("line", s.Line)
	e.StringField("function", s.Function)
	e.EndObject()
}

func (e *Encoder) tool(t *Tool) {
	e.BeginObject()
	e.StringField("name", t.Name)
	e.StringField("version", t.Version)
	e.StringField("semanticVersion", t.SemVer)
	if t.Revision != "" {
		e.StringField("revision", t.Revision)
	}
	e.EndObject()
}

func (e *Encoder) counts(c *Counts) {
	e.BeginObject()
	e.countFields(c)
	e.EndObject()
}

func (e *Encoder) countFields(c *Counts) {
	e.IntField("events", c.Events)
	e.IntField("files", c.Files)
	e.IntField("errors", c.Errors)
	e.IntField("warningFindings", c.WarningFindings)
	e.IntField("infos", c.Infos)
	e.IntField("problems", c.Problems)
}

func (e *Encoder) summary(s *Summary) {
	e.BeginObject()
	e.countFields(&s.Counts)
	e.Key("models")
	e.Strings(s.Models)
	e.Key("left")
	e.left(&s.Left)
	e.Key("warnings")
	writeSlice(e, s.Warnings, (*Encoder).warning)
	e.Key("notes")
	writeSlice(e, s.Notes, (*Encoder).note)
	if s.Shard != "" {
		e.StringField("shard", s.Shard)
	}
	if s.Run != nil {
		e.Key("run")
		e.runID(s.Run)
	}
	if s.Explore != nil {
		e.Key("explore")
		e.explore(s.Explore)
	}
	if s.Config != "" {
		e.StringField("config", s.Config)
	}
	e.EndObject()
}

func (e *Encoder) left(l *Left) {
	e.BeginObject()
	e.IntField("ignored", l.Ignored)
	e.IntField("suppressed", l.Suppressed)
	e.IntField("baseline", l.Baseline)
	e.EndObject()
}

func (e *Encoder) warning(w *Warning) {
	e.BeginObject()
	e.StringField("id", w.ID)
	e.StringField("message", w.Message)
	e.StringField("trace", w.Trace)
	e.IntField("line", w.Line)
	e.StringField("fix", w.Fix)
	if w.Accepted {
		e.Key("accepted")
		e.Bool(true)
	}
	e.EndObject()
}

func (e *Encoder) note(n *Note) {
	e.BeginObject()
	e.StringField("id", n.ID)
	e.StringField("message", n.Message)
	if n.Trace != "" {
		e.StringField("trace", n.Trace)
	}
	if n.Line != 0 {
		e.IntField("line", n.Line)
	}
	e.EndObject()
}

func (e *Encoder) sarifLog(l *SARIFLog) {
	e.BeginObject()
	e.StringField("$schema", l.Schema)
	e.StringField("version", l.Version)
	e.Key("runs")
	writeSlice(e, l.Runs, (*Encoder).sarifRun)
	e.EndObject()
}

func (e *Encoder) sarifRun(r *SARIFRun) {
	e.BeginObject()
	e.sarifRunHead(r)
	e.Key("results")
	writeSlice(e, r.Results, (*Encoder).sarifResult)
	e.sarifRunTail(r)
	e.EndObject()
}

// sarifRunHead writes the members of a run before its results.
func (e *Encoder) sarifRunHead(r *SARIFRun) {
	e.Key("tool")
	e.sarifTool(&r.Tool)
	e.Key("invocations")
	writeSlice(e, r.Invocations, (*Encoder).sarifInvocation)
	if len(r.OriginalURIBaseIDs) > 0 {
		e.Key("originalUriBaseIds")
		e.sarifBases(r.OriginalURIBaseIDs)
	}
}

// sarifRunTail writes the members of a run after its results.
func (e *Encoder) sarifRunTail(r *SARIFRun) {
	if r.Properties != nil {
		e.Key("properties")
		e.sarifRunProperties(r.Properties)
	}
}

func (e *Encoder) sarifRunProperties(p *SARIFRunProperties) {
	e.BeginObject()
	if p.Config != "" {
		e.StringField("crashsimConfig", p.Config)
	}
	if p.Shard != "" {
		e.StringField("crashsimShard", p.Shard)
	}
	if p.Run != nil {
		e.Key("crashsimRun")
		e.runID(p.Run)
	}
	e.EndObject()
}

func (e *Encoder) runID(r *RunID) {
	e.BeginObject()
	e.StringField("trace", r.Trace)
	e.StringField("checker", r.Checker)
	e.StringField("options", r.Options)
	e.EndObject()
}

func (e *Encoder) sarifBases(m map[string]SARIFArtifact) {
	if m == nil {
		e.Null()
		return
	}
	e.BeginObject()
	for _, k := range sortedKeys(m) {
		e.Key(k)
		a := m[k]
		e.sarifArtifact(&a)
	}
	e.EndObject()
}

func (e *Encoder) sarifTool(t *SARIFTool) {
	e.BeginObject()
	e.Key("driver")
	d := &t.Driver
	e.BeginObject()
	e.StringField("name", d.Name)
	e.StringField("version", d.Version)
	e.StringField("semanticVersion", d.SemanticVersion)
	e.StringField("informationUri", d.InformationURI)
	e.Key("rules")
	writeSlice(e, d.Rules, (*Encoder).sarifRule)
	e.EndObject()
	e.EndObject()
}

func (e *Encoder) sarifRule(r *SARIFRule) {
	e.BeginObject()
	e.StringField("id", r.ID)
	e.StringField("name", r.Name)
	e.Key("shortDescription")
	e.sarifText(&r.ShortDescription)
	e.Key("fullDescription")
	e.sarifText(&r.FullDescription)
	e.Key("help")
	e.sarifText(&r.Help)
	if r.HelpURI != "" {
		e.StringField("helpUri", r.HelpURI)
	}
	e.Key("defaultConfiguration")
	e.BeginObject()
	e.StringField("level", r.DefaultConfiguration.Level)
	e.EndObject()
	if p := r.Properties; p != nil {
		e.Key("properties")
		e.BeginObject()
		e.Key("tags")
		e.Strings(p.Tags)
		e.EndObject()
	}
	e.EndObject()
}

func (e *Encoder) sarifInvocation(inv *SARIFInvocation) {
	e.BeginObject()
	e.Key("executionSuccessful")
	e.Bool(inv.ExecutionSuccessful)
	e.IntField("exitCode", inv.ExitCode)
	e.Key("toolExecutionNotifications")
	writeSlice(e, inv.Notifications, (*Encoder).sarifNotification)
	e.EndObject()
}

func (e *Encoder) sarifNotification(n *SARIFNotification) {
	e.BeginObject()
	e.Key("descriptor")
	e.BeginObject()
	e.StringField("id", n.Descriptor.ID)
	e.EndObject()
	e.StringField("level", n.Level)
	e.Key("message")
	e.sarifText(&n.Message)
	if len(n.Locations) > 0 {
		e.Key("locations")
		e.sarifLocations(n.Locations)
	}
	e.EndObject()
}

func (e *Encoder) sarifText(t *SARIFText) {
	e.BeginObject()
	e.StringField("text", t.Text)
	e.EndObject()
}

func (e *Encoder) sarifResult(r *SARIFResult) {
	e.BeginObject()
	e.StringField("ruleId", r.RuleID)
	e.IntField("ruleIndex", r.RuleIndex)
	e.StringField("level", r.Level)
	e.Key("message")
	e.sarifText(&r.Message)
	e.Key("locations")
	e.sarifLocations(r.Locations)
	if len(r.RelatedLocations) > 0 {
		e.Key("relatedLocations")
		e.sarifLocations(r.RelatedLocations)
	}
	e.Key("partialFingerprints")
	if r.PartialFingerprints == nil {
		e.Null()
	} else {
		e.BeginObject()
		for _, k := range sortedKeys(r.PartialFingerprints) {
			e.StringField(k, r.PartialFingerprints[k])
		}
		e.EndObject()
	}
	if p := r.Properties; p != nil {
		e.Key("properties")
		e.BeginObject()
		if p.Function != nil {
			e.StringField("function", *p.Function)
		}
		e.Key("models")
		e.Strings(p.Models)
		e.StringField("path", p.Path)
		e.Key("paths")
		e.Strings(p.Paths)
		if p.StateIndex != 0 {
			e.IntField("stateIndex", p.StateIndex)
		}
		if len(p.Findings) > 0 {
			e.Key("findings")
			e.Strings(p.Findings)
		}
		if len(p.Rules) > 0 {
			e.Key("rules")
			e.Strings(p.Rules)
		}
		if p.Consequence != nil {
			e.Key("consequence")
			e.sarifLocation(p.Consequence)
		}
		e.EndObject()
	}
	e.EndObject()
}

func (e *Encoder) sarifLocations(locs []SARIFLocation) {
	writeSlice(e, locs, (*Encoder).sarifLocation)
}

func (e *Encoder) sarifLocation(l *SARIFLocation) {
	e.BeginObject()
	if l.ID != nil {
		e.IntField("id", *l.ID)
	}
	e.Key("physicalLocation")
	e.BeginObject()
	e.Key("artifactLocation")
	e.sarifArtifact(&l.PhysicalLocation.ArtifactLocation)
	e.Key("region")
	e.BeginObject()
	e.IntField("startLine", l.PhysicalLocation.Region.StartLine)
	e.EndObject()
	e.EndObject()
	if l.Message != nil {
		e.Key("message")
		e.sarifText(l.Message)
	}
	if p := l.Properties; p != nil {
		e.Key("properties")
		e.BeginObject()
		if p.StateIndex != 0 {
			e.IntField("stateIndex", p.StateIndex)
		}
		e.EndObject()
	}
	e.EndObject()
}

func (e *Encoder) sarifArtifact(a *SARIFArtifact) {
	e.BeginObject()
	e.StringField("uri", a.URI)
	if a.URIBaseID != "" {
		e.StringField("uriBaseId", a.URIBaseID)
	}
	e.EndObject()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
