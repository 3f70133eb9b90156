// Package check holds crashsim's rules: the kinds of finding it reports
// about what a power cut could leave on disk.
//
// A rule is one kind of durability mistake, such as data that no fsync
// covers or a rename that publishes a file before its data is durable. Each
// has a stable kebab-case ID (data-not-synced), a one-line title, a
// severity (info, warning or error), a paragraph saying what a crash can
// leave and why, the fix, a short syscall sequence showing the mistake and
// one showing the fix, and the seed or real program it comes from.
//
// The registry in this package, read through [Rules] and [Lookup], is the
// single place those descriptions live. `crashsim rules`, `crashsim explain
// ID` and the rule metadata of SARIF output all render from it, so a rule's
// words are written once. The checks that produce findings refer to rules by
// the ID constants declared here.
//
// Severity orders findings for --fail-on: [Info] < [Warning] < [Error], and
// the threshold [Never] is above them all.
package check
