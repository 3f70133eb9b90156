// Package check holds crashsim's rules: the kinds of finding it reports
// about what a power cut could leave on disk.
//
// A rule is one kind of durability mistake, such as data that no fsync
// covers or a rename that publishes a file before its data is durable. Each
// has a stable kebab-case ID (data-not-synced), a one-line title, a
// severity (info, warning or error), a paragraph saying what a crash can
// leave and why, the fix, a short syscall sequence showing the mistake and
// one showing the fix, and the program or mistake it comes from.
//
// The registry in this package, read through [Rules] and [Lookup], is the
// single place those descriptions live. `crashsim rules`, `crashsim explain
// ID` and the rule metadata of SARIF output all render from it, so a rule's
// words are written once. Like an Analyzer of go/analysis, a rule is a
// value that also names its detector: the code that observes the model
// as a trace is replayed and reports the rule's findings. [Run] runs the
// registry's detectors, each once per model; rules that are one question
// with different reasons share one.
//
// A [Result] holds a check's findings, in memory or, past
// Options.SpillAt, in a temp file: read them with [Result.Findings], an
// iterator that works either way. Its [Summary] counts them by severity,
// and stays true through [Result.Filter] and [Result.Join].
//
// Severity orders findings for --fail-on: [Info] < [Warning] < [Error], and
// the threshold [Never] is above them all.
package check
