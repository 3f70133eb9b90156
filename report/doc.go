// Package report renders findings for people (text), for scripts (JSON)
// and for code-scanning uploads (SARIF 2.1.0). It decides nothing: what is
// a finding is the check package's business. Field names in JSON and SARIF
// are a stable interface.
package report
