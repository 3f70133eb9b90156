package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/check"
)

// SARIF 2.1.0, the subset GitHub code scanning reads: rule metadata from
// the check registry, one result per finding located at its trace line,
// related locations for the events that explain it.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
	// Properties hold crashsimShard ("I/N") in a shard's report.
	Properties map[string]any `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	FullDescription      sarifText       `json:"fullDescription"`
	Help                 sarifText       `json:"help"`
	HelpURI              string          `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
	Properties           map[string]any  `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

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

// uri makes a trace path relative to the working directory when it lies
// below it, so code scanning can link it to the repository.
func uri(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		if wd, err := filepath.Abs("."); err == nil {
			if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(p)
}

// SARIF writes a SARIF 2.1.0 log.
func SARIF(w io.Writer, res *check.Result, opt Options) error {
	rules := check.Rules()
	index := map[string]int{}
	var srules []sarifRule
	for i, r := range rules {
		index[r.ID] = i
		srules = append(srules, sarifRule{
			ID: r.ID, Name: ruleName(r.ID),
			ShortDescription:     sarifText{r.Title},
			FullDescription:      sarifText{r.Doc},
			Help:                 sarifText{r.Fix},
			HelpURI:              r.HelpURI,
			DefaultConfiguration: sarifRuleConfig{level(r.Severity)},
			Properties:           map[string]any{"tags": []string{"durability", "crash-consistency"}},
		})
	}
	results := []sarifResult{}
	for _, f := range res.Findings {
		sum := sha256.Sum256([]byte(f.Rule.ID + "\x00" + f.Path))
		r := sarifResult{
			RuleID: f.Rule.ID, RuleIndex: index[f.Rule.ID], Level: level(f.Rule.Severity),
			Message: sarifText{f.Path + ": " + f.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: sarifArtifact{uri(f.Trace)}, Region: sarifRegion{max(f.Line, 1)}}}},
			PartialFingerprints: map[string]string{"crashsim/v1": hex.EncodeToString(sum[:8])},
			Properties:          map[string]any{"path": f.Path, "models": f.Models, "pid": f.PID},
		}
		if f.StateIndex > 0 {
			r.Properties["stateIndex"] = f.StateIndex
		}
		for i, rel := range f.Related {
			id := i + 1
			r.RelatedLocations = append(r.RelatedLocations, sarifLocation{
				ID:               &id,
				PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifact{uri(rel.Trace)}, Region: sarifRegion{max(rel.Line, 1)}},
				Message:          &sarifText{rel.Syscall + ": " + rel.What},
			})
		}
		results = append(results, r)
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "crashsim", InformationURI: "https://github.com/crashsim/crashsim", Rules: srules}},
			Results: results,
		}},
	}
	if opt.Shard != "" {
		log.Runs[0].Properties = map[string]any{"crashsimShard": opt.Shard}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}
