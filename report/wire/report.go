package wire

// Version is the version of the JSON report this package writes: the
// "version" member of a Report. It goes up when a field is removed or
// changes meaning, or the document gains a part a reader of the old
// version would misread; a field added with omitempty does not raise it.
// Read accepts every version from 1 to Version.
const Version = 1

// FingerprintVersion names the recipe of Finding.Fingerprint. It is the
// key of a SARIF result's partialFingerprints, and changes when the
// recipe does, so that an old baseline is never compared with new
// fingerprints by accident.
//
// v3: the call site no longer enters it (a run with --stack and one
// without name a finding the same).
const FingerprintVersion = "crashsim/v3"

// Report is crashsim's JSON report: `check`, `trace` and `explore` with
// --format json.
type Report struct {
	Version  int       `json:"version"`
	Tool     Tool      `json:"tool"`
	Findings []Finding `json:"findings"` // an array, empty when there are none
	Summary  Summary   `json:"summary"`
}

// Tool says which crashsim wrote a report.
type Tool struct {
	Name     string `json:"name"`               // "crashsim"
	Version  string `json:"version"`            // the Go module version, "(devel)" for a build from a checkout
	SemVer   string `json:"semanticVersion"`    // Version as semver without the "v"
	Revision string `json:"revision,omitempty"` // the VCS revision it was built from
}

// Finding is one way a crash can lose or corrupt data, located at a line
// of a trace.
type Finding struct {
	Rule     string    `json:"rule"`     // the rule's ID: data-not-synced
	Severity string    `json:"severity"` // error, warning or info
	Path     string    `json:"path"`     // the file's name at the end of the trace, or its last name
	Trace    string    `json:"trace"`    // the trace file, as crashsim was given it
	Line     int       `json:"line"`     // the line of the trace to look at
	PID      int       `json:"pid"`      // of the process that made the call on Line
	Message  string    `json:"message"`  // what a crash can leave and what to change
	Models   []string  `json:"models"`   // the persistence models it happens under
	Related  []Related `json:"related"`  // the events that explain it, an array
	State    *State    `json:"state,omitempty"`
	// Fingerprint is the finding's identity across runs, 16 hex digits
	// (see FingerprintVersion).
	Fingerprint string `json:"fingerprint"`
	// RelPath is Path relative to the root it lies in (Path when none).
	RelPath string `json:"relpath"`
	// Source is the call site in the program, when the trace had stacks.
	Source *Source `json:"source,omitempty"`
	// StateIndex orders explore's findings (one per rejected crash state)
	// across shards; 0, and left out, for the findings of check.
	StateIndex int `json:"state_index,omitempty"`
}

// Related is an event that explains a finding: the write, the fsync, the
// rename. It is in the finding's trace.
type Related struct {
	Line    int    `json:"line"`
	PID     int    `json:"pid"`
	Syscall string `json:"syscall"`
	What    string `json:"what"` // its part in the finding: "first unsynced write"
}

// State is a crash state that shows a finding's loss: what a crash right
// after Line can leave at Path.
type State struct {
	Line      int    `json:"line"`
	Path      string `json:"path"`
	Outcome   string `json:"outcome"`         // missing, initial, latest, earlier, empty, torn or zeros
	Persisted string `json:"persisted"`       // which pending operations reached the disk
	Words     string `json:"words,omitempty"` // the state in words: what follows "a crash can leave PATH"
}

// Source is a call site in the program's own code.
type Source struct {
	File     string `json:"file"` // relative to the source root when below it
	Line     int    `json:"line"`
	Function string `json:"function"`
}

// Counts say what a check looked at and how many findings of each
// severity it reports. An HTML report's data holds them alone.
type Counts struct {
	Events          int `json:"events"`
	Files           int `json:"files"` // files in scope
	Errors          int `json:"errors"`
	WarningFindings int `json:"warningFindings"` // findings of severity warning; the blind spots are Summary.Warnings
	Infos           int `json:"infos"`
}

// Summary closes a report.
type Summary struct {
	Counts
	Models []string `json:"models"` // the models the findings were reported under
	Left   Left     `json:"left"`
	// Warnings are the blind spots: what the trace could not show.
	Warnings []Warning `json:"warnings"`
	// Notes say what was left out of scope on purpose.
	Notes []Note `json:"notes"`
	// Shard is "I/N" in the report of shard I of explore --shard I/N.
	Shard string `json:"shard,omitempty"`
	// Explore is crashsim explore's account of the states it built and
	// checked; nil for the other commands.
	Explore *Explore `json:"explore,omitempty"`
}

// Left counts findings that were found and not reported.
type Left struct {
	Ignored    int `json:"ignored"`    // paths matched by an ignore glob
	Suppressed int `json:"suppressed"` // matched by a [[suppress]] entry of the config
	Baseline   int `json:"baseline"`   // already in the baseline report
}

// Warning is a blind spot a trace has: what it hides, where it was first
// seen and what fixes it. An accepted one (--accept-blind) is reported,
// and does not fail the run.
type Warning struct {
	ID       string `json:"id"` // blind-raw-args, ...
	Message  string `json:"message"`
	Trace    string `json:"trace"`
	Line     int    `json:"line"`
	Fix      string `json:"fix"`
	Accepted bool   `json:"accepted,omitempty"`
}

// Note is something left out of scope on purpose, said so that it is not
// left out quietly: files on a filesystem no power cut spares.
type Note struct {
	ID      string `json:"id"`
	Message string `json:"message"`
	Trace   string `json:"trace,omitempty"`
	Line    int    `json:"line,omitempty"`
}
