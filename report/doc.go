// Package report renders what crashsim found, for each reader:
//
//   - findings as text for people, JSON for scripts (schema in package
//     wire), SARIF 2.1.0 for code scanning, and one self-contained HTML
//     page (a timeline of the trace's files, its crash points and the
//     states each can leave, the findings; html.go);
//   - the crash states of a trace (crashsim states: text and JSON), the
//     events crashsim read (crashsim events), per-file counts (crashsim
//     stats), and the oracle's verdicts;
//   - the rule registry as a table, JSON, the text of crashsim explain,
//     and the Markdown page docs/rules.md;
//   - fingerprints, the identity a finding keeps across runs and
//     checkouts (identity.go), which baselines and code scanning compare.
//
// It decides nothing: what is a finding is the check package's business.
// The JSON and SARIF documents are package wire's, a stable interface:
// report fills wire's values from a check's result and writes them
// through wire's writers, a finding at a time.
package report
