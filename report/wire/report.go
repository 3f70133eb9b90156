package wire

// Version is the version of the JSON report this package writes: the
// "version" member of a Report. It goes up when a field is removed or
// changes meaning, or the document gains a part a reader of the old
// version would misread; a field added with omitempty does not raise it.
// Read accepts every version from 1 to Version.
const Version = 2

// FingerprintVersion names the recipe of Finding.Fingerprint. It is the
// key of a SARIF result's partialFingerprints, and changes when the
// recipe does, so that an old baseline is never compared with new
// fingerprints by accident.
//
// v3: the call site no longer enters it (a run with --stack and one
// without name a finding the same).
const FingerprintVersion = "crashsim/v3"

// ProblemVersion names the recipe of Problem.ID: the key of a SARIF
// result's partialFingerprints from report version 2 on, when a result
// is a problem.
const ProblemVersion = "crashsim/problem/v1"

// Report is crashsim's JSON report: `check`, `trace` and `explore` with
// --format json.
type Report struct {
	Version  int       `json:"version"`
	Tool     Tool      `json:"tool"`
	Problems []Problem `json:"problems"` // an array, empty when there are none; absent before version 2
	Findings []Finding `json:"findings"` // an array, empty when there are none
	Summary  Summary   `json:"summary"`
}

// Problem is one change the user must make: a mistake at one place (a
// call site, else a file), with the findings it causes.
type Problem struct {
	// ID is the problem's identity across runs, 16 hex digits, as a
	// finding's Fingerprint is (see FingerprintVersion).
	ID       string   `json:"id"`
	Rule     string   `json:"rule"`     // the mistake's rule
	Severity string   `json:"severity"` // of its worst finding
	Path     string   `json:"path"`     // its primary finding's path
	Paths    []string `json:"paths"`    // every file it is about
	Trace    string   `json:"trace"`
	Line     int      `json:"line"` // its primary finding's trace line
	// Source is the call site where the fix goes, when known.
	Source  *Source `json:"source,omitempty"`
	Message string  `json:"message"` // what a crash can leave and what to change
	Fix     string  `json:"fix"`     // the change, in full
	// Program says the program never asked for durability: the problem
	// is the program's as a whole.
	Program bool `json:"program,omitempty"`
	// Findings are the fingerprints of its findings, its primary first.
	Findings []string `json:"findings"`
	// StateIndex is its primary finding's, for explore's rejected
	// states (the lowest of its findings').
	StateIndex int `json:"state_index,omitempty"`
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
	// Problem is the ID of the problem the finding belongs to; absent
	// before version 2.
	Problem string `json:"problem,omitempty"`
}

// Related is an event that explains a finding: the write, the fsync, the
// rename. It is in the finding's trace, or in Trace when that is set.
type Related struct {
	Line    int    `json:"line"`
	PID     int    `json:"pid"`
	Syscall string `json:"syscall"`
	What    string `json:"what"` // its part in the finding: "first unsynced write"
	// Trace is the file the event is in when it is not the finding's:
	// another file of a -ff set.
	Trace string `json:"trace,omitempty"`
}

// State is a crash state that shows a finding's loss: what a crash right
// after Line can leave at Path.
type State struct {
	Line      int    `json:"line"`
	Path      string `json:"path"`
	Outcome   string `json:"outcome"`         // missing, initial, latest, earlier, empty, torn or zeros
	Persisted string `json:"persisted"`       // which pending operations reached the disk
	Words     string `json:"words,omitempty"` // the state in words: what follows "a crash can leave PATH"
	// Trace is the file Line is in when it is not the finding's: another
	// file of a -ff set.
	Trace string `json:"trace,omitempty"`
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
	Problems        int `json:"problems"` // problems reported; 0 before version 2
}

// Summary closes a report.
type Summary struct {
	Counts
	Models []string `json:"models"` // the models the findings were reported under
	Left   Left     `json:"left"`
	// Warnings are the blind spots: what the trace could not show, or
	// what explore left unchecked (blind-states-unchecked).
	Warnings []Warning `json:"warnings"`
	// Notes say what was left out of scope on purpose.
	Notes []Note `json:"notes"`
	// Shard is "I/N" in the report of shard I of explore --shard I/N.
	Shard string `json:"shard,omitempty"`
	// Run is the identity of an explore run, which every shard of it
	// shares; nil for the other commands.
	Run *RunID `json:"run,omitempty"`
	// Explore is crashsim explore's account of the states it built and
	// checked; nil for the other commands.
	Explore *Explore `json:"explore,omitempty"`
	// Config is the config file the run read (.crashsim.toml or
	// --config), absent when it read none: its ignore globs and
	// suppressions decide what the report holds.
	Config string `json:"config,omitempty"`
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

// RunID is what makes the reports of explore's shards parts of one run:
// the same trace, the same checker, the same options deciding which
// states are built and checked. Merge refuses shards whose RunIDs differ,
// and a shard without one.
type RunID struct {
	Trace   string `json:"trace"`   // "sha256:" and the hex of the SHA-256 of the trace's bytes
	Checker string `json:"checker"` // "sha256:" and the hex of the SHA-256 of the checker command
	// Options are the options that decide the states built and checked,
	// as flags: --model posix --max-states 10000 ...
	Options string `json:"options"`
}
