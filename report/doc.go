// Package report renders findings for people (text), for scripts (JSON)
// and for code-scanning uploads (SARIF 2.1.0), and the crash states of a
// trace (states, the HTML page). It decides nothing: what is a finding is
// the check package's business. The JSON and SARIF documents are package
// wire's, a stable interface: report fills wire's values from a check's
// result and writes them through wire's writers, a finding at a time.
package report
