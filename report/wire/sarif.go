package wire

import "fmt"

// The part of SARIF 2.1.0 crashsim writes (--format sarif), which is what
// GitHub code scanning reads. Member names are SARIF's; the properties
// bags hold crashsim's own members, named below.

// SARIFLog is a SARIF log; crashsim writes one run.
type SARIFLog struct {
	Schema  string     `json:"$schema"` // SARIFSchema
	Version string     `json:"version"` // "2.1.0"
	Runs    []SARIFRun `json:"runs"`
}

// The values of SARIFLog's Schema and Version.
const (
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	SARIFVersion = "2.1.0"
)

// SARIFRun is one run of crashsim.
type SARIFRun struct {
	Tool        SARIFTool         `json:"tool"`
	Invocations []SARIFInvocation `json:"invocations"`
	// OriginalURIBaseIDs says where TRACEDIR is, when every trace named
	// by a result lies in one directory outside the source root.
	OriginalURIBaseIDs map[string]SARIFArtifact `json:"originalUriBaseIds,omitempty"`
	Results            []SARIFResult            `json:"results"`
	Properties         *SARIFRunProperties      `json:"properties,omitempty"`
}

// SARIFRunProperties are crashsim's own facts about a run: the config
// file it read, and the mark of the report of one shard of explore
// --shard.
type SARIFRunProperties struct {
	Config string `json:"crashsimConfig,omitempty"` // the config file the run read
	Shard  string `json:"crashsimShard,omitempty"`  // "I/N"
	Run    *RunID `json:"crashsimRun,omitempty"`    // an explore run's identity
}

// SARIFInvocation carries the exit code, and the blind spots and notes of
// a check: what the trace could not show is about the run, not about a
// line of code.
type SARIFInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	ExitCode            int                 `json:"exitCode"`
	Notifications       []SARIFNotification `json:"toolExecutionNotifications"`
}

// SARIFNotification is a blind spot (level warning, or note once
// accepted) or a note.
type SARIFNotification struct {
	Descriptor SARIFDescriptor `json:"descriptor"` // the blind spot's or note's ID
	Level      string          `json:"level"`
	Message    SARIFText       `json:"message"`
	Locations  []SARIFLocation `json:"locations,omitempty"`
}

// SARIFDescriptor names a notification's kind.
type SARIFDescriptor struct {
	ID string `json:"id"`
}

// SARIFTool is crashsim, with its rules.
type SARIFTool struct {
	Driver SARIFDriver `json:"driver"`
}

// SARIFDriver is crashsim, with every rule of its registry.
type SARIFDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version"`
	SemanticVersion string      `json:"semanticVersion"`
	InformationURI  string      `json:"informationUri"`
	Rules           []SARIFRule `json:"rules"`
}

// SARIFText is a message.
type SARIFText struct {
	Text string `json:"text"`
}

// SARIFRule is a rule's metadata, from the same registry as `crashsim
// rules` and `crashsim explain`.
type SARIFRule struct {
	ID                   string               `json:"id"`
	Name                 string               `json:"name"`             // the ID in PascalCase
	ShortDescription     SARIFText            `json:"shortDescription"` // the title
	FullDescription      SARIFText            `json:"fullDescription"`  // the docs
	Help                 SARIFText            `json:"help"`             // the fix
	HelpURI              string               `json:"helpUri,omitempty"`
	DefaultConfiguration SARIFRuleConfig      `json:"defaultConfiguration"`
	Properties           *SARIFRuleProperties `json:"properties,omitempty"`
}

// SARIFRuleConfig holds a rule's level: error, warning or note.
type SARIFRuleConfig struct {
	Level string `json:"level"`
}

// SARIFRuleProperties tag every rule.
type SARIFRuleProperties struct {
	Tags []string `json:"tags"`
}

// SARIFResult is one finding, or the findings of one call site that a
// loop makes for several files.
type SARIFResult struct {
	RuleID    string    `json:"ruleId"`
	RuleIndex int       `json:"ruleIndex"` // into the driver's rules
	Level     string    `json:"level"`
	Message   SARIFText `json:"message"`
	// Locations is the call site in the source, when stacks named it, or
	// the trace line.
	Locations []SARIFLocation `json:"locations"`
	// RelatedLocations are the trace lines that explain the findings,
	// numbered from 1.
	RelatedLocations []SARIFLocation `json:"relatedLocations,omitempty"`
	// PartialFingerprints hold the first finding's fingerprint under
	// FingerprintVersion.
	PartialFingerprints map[string]string      `json:"partialFingerprints"`
	Properties          *SARIFResultProperties `json:"properties,omitempty"`
}

// MaxRelatedLocations is the most related locations a result holds:
// GitHub's code scanning refuses a whole SARIF file in which one result
// has more ("more related locations per result than allowed (1626 >
// 1000)"), and a problem has one for each of its consequences: the
// program-level problem of a program that synced nothing has one for
// each file it wrote, an explore problem one for each rejected state.
const MaxRelatedLocations = 1000

// CapRelated keeps at most MaxRelatedLocations of r's related locations:
// past that many, the last one kept stands at the first left out and
// says how many are not listed. The result's properties still name
// every finding (findings), and the JSON report holds each. A shard's
// report is not capped: crashsim merge joins the shards' results and
// caps the joined one.
func (r *SARIFResult) CapRelated() {
	n := len(r.RelatedLocations)
	if n <= MaxRelatedLocations {
		return
	}
	keep := MaxRelatedLocations - 1
	first := r.RelatedLocations[keep]
	id := keep + 1
	r.RelatedLocations = append(r.RelatedLocations[:keep:keep], SARIFLocation{
		ID:               &id,
		PhysicalLocation: first.PhysicalLocation,
		Message: &SARIFText{Text: fmt.Sprintf("%d more related locations from here on, not listed: code scanning takes at most %d a result "+
			"(properties.findings names every finding, and crashsim's JSON report holds each)", n-keep, MaxRelatedLocations)},
	})
}

// MaxResults is the most results a run holds: code scanning refuses a
// whole SARIF file whose run has more ("more results per run than
// allowed"), and a check of many files without call sites can have a
// problem for each.
const MaxResults = 25000

// ResultsCut is the id of the notification a run carries when it holds
// MaxResults results of more problems (CutResults).
const ResultsCut = "crashsim-results-cut"

// CutResults keeps the first MaxResults of a run's n problems' results
// (the caller writes results[:CutResults(...)]) and, past that many,
// adds to its invocation a notification that says how many are left
// out: the exit status and the JSON report count and hold them all. It
// returns how many to write.
func CutResults(run *SARIFRun, n int) int {
	if n <= MaxResults || len(run.Invocations) == 0 {
		return n
	}
	inv := &run.Invocations[0]
	inv.Notifications = append(inv.Notifications, SARIFNotification{
		Descriptor: SARIFDescriptor{ID: ResultsCut},
		Level:      "warning",
		Message: SARIFText{Text: fmt.Sprintf("%d problems, %d of them not in this log: code scanning takes at most %d results a run. "+
			"The exit status counts them all and crashsim's JSON report holds each; --stack groups the findings of one call site into one problem", n, n-MaxResults, MaxResults)},
	})
	return MaxResults
}

// SARIFResultProperties are crashsim's members of a result.
type SARIFResultProperties struct {
	// Function is the function of the call site, when stacks named it.
	Function *string  `json:"function,omitempty"`
	Models   []string `json:"models"`
	Path     string   `json:"path"`  // the first finding's RelPath
	Paths    []string `json:"paths"` // the RelPath of each finding
	// StateIndex orders explore's results across shards (see
	// Finding.StateIndex).
	StateIndex int `json:"stateIndex,omitempty"`
	// Findings are the fingerprints of the problem's findings, its
	// primary first; a baseline reads them.
	Findings []string `json:"findings,omitempty"`
	// Rules are the rules of its findings, each once, the primary's
	// first.
	Rules []string `json:"rules,omitempty"`
	// Consequence is, for explore's rejected states, the related
	// location its primary finding would be in a problem it joined (its
	// state in words): crashsim merge joins one shard's problem into
	// another's, of the same id, with it.
	Consequence *SARIFLocation `json:"consequence,omitempty"`
}

// SARIFLocation is a line of an artifact: a trace or a source file.
type SARIFLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation SARIFPhysicalLocation `json:"physicalLocation"`
	Message          *SARIFText            `json:"message,omitempty"`
	// Properties are crashsim's: an explore finding's state index on
	// the related location of a consequence.
	Properties *SARIFLocationProperties `json:"properties,omitempty"`
}

// SARIFLocationProperties are crashsim's members of a location.
type SARIFLocationProperties struct {
	// StateIndex is the consequence's finding's (Finding.StateIndex),
	// by which crashsim merge orders the consequences of a problem
	// that several shards found.
	StateIndex int `json:"stateIndex,omitempty"`
}

// SARIFPhysicalLocation is a line of a file.
type SARIFPhysicalLocation struct {
	ArtifactLocation SARIFArtifact `json:"artifactLocation"`
	Region           SARIFRegion   `json:"region"`
}

// SARIFArtifact names a file relative to a base: %SRCROOT% (the
// checkout) or TRACEDIR (the directory of a trace outside it).
type SARIFArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// SARIFRegion is a line, from 1.
type SARIFRegion struct {
	StartLine int `json:"startLine"`
}
