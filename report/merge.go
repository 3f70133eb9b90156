package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/check"
)

// A Shard is the report of one shard of explore --shard I/N, as read.
type Shard struct {
	Name string // for errors: the file it came from
	Data []byte
}

// Merged says what a merge wrote.
type Merged struct {
	Format   string           // "json" or "sarif"
	Severity []check.Severity // of each merged finding, in order
}

// Merge joins the reports of every shard of one explore --shard run, all
// JSON or all SARIF, into the report the run would have written in one
// piece: the findings in the order of their states (state_index, the same
// order in every shard), the counts summed, the shard marks dropped. It
// refuses reports that are not shards, a shard missing or given twice,
// and shards whose runs differ (events, files or models).
func Merge(w io.Writer, shards []Shard) (*Merged, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("merge: no reports")
	}
	format := ""
	for _, s := range shards {
		f, err := sniff(s)
		if err != nil {
			return nil, err
		}
		if format != "" && f != format {
			return nil, fmt.Errorf("merge: %s is %s, %s is %s: merge reports of one format", shards[0].Name, format, s.Name, f)
		}
		format = f
	}
	if format == "sarif" {
		return mergeSARIF(w, shards)
	}
	return mergeJSON(w, shards)
}

// sniff tells a SARIF log from a crashsim JSON document.
func sniff(s Shard) (string, error) {
	var probe struct {
		Version  json.RawMessage `json:"version"` // SARIF's is "2.1.0", crashsim's JSON a number
		Runs     json.RawMessage `json:"runs"`
		Findings json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(s.Data, &probe); err != nil {
		return "", fmt.Errorf("merge: %s: not a JSON or SARIF report: %w", s.Name, err)
	}
	switch {
	case probe.Runs != nil && string(probe.Version) == `"2.1.0"`:
		return "sarif", nil
	case probe.Findings != nil:
		return "json", nil
	}
	return "", fmt.Errorf("merge: %s: neither crashsim's JSON (no \"findings\") nor SARIF 2.1.0", s.Name)
}

// shardSet checks that marks ("I/N", one per report) name each shard of
// one run exactly once.
func shardSet(shards []Shard, marks []string) error {
	n := 0
	seen := map[int]string{}
	for k, m := range marks {
		name := shards[k].Name
		if m == "" {
			return fmt.Errorf("merge: %s is not the report of a shard (crashsim explore --shard I/N writes one)", name)
		}
		i, count, err := ParseShard(m)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", name, err)
		}
		if n != 0 && count != n {
			return fmt.Errorf("merge: %s is a shard of %d, %s of %d: merge the shards of one run", shards[0].Name, n, name, count)
		}
		n = count
		if prev, ok := seen[i]; ok {
			return fmt.Errorf("merge: %s and %s are both shard %d/%d", prev, name, i, n)
		}
		seen[i] = name
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("merge: shard %s of %d missing: the merge of fewer shards is not the report of the run", strings.Join(missing, ", "), n)
	}
	return nil
}

// ParseShard reads "I/N" with 1 <= I <= N.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q: want I/N with 1 <= I <= N, such as 2/5", s)
	}
	return i, n, nil
}

func mergeJSON(w io.Writer, shards []Shard) (*Merged, error) {
	var out DocumentJSON
	marks := make([]string, len(shards))
	for k, s := range shards {
		var doc DocumentJSON
		dec := json.NewDecoder(bytes.NewReader(s.Data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", s.Name, err)
		}
		marks[k] = doc.Summary.Shard
		sum := doc.Summary
		if k == 0 {
			out.Version, out.Tool = doc.Version, doc.Tool
			out.Summary = sum
			out.Summary.Errors, out.Summary.Summary.Warnings, out.Summary.Infos = 0, 0, 0
			out.Summary.Shard = ""
			if sum.Explore != nil {
				x := *sum.Explore
				x.CrashPoints = append([]ExplorePointJSON(nil), x.CrashPoints...)
				x.Checked, x.Rejected = 0, 0
				for i := range x.CrashPoints {
					x.CrashPoints[i].Checked = 0
				}
				out.Summary.Explore = &x
			}
		} else if sum.Events != out.Summary.Events || sum.Files != out.Summary.Files || strings.Join(sum.Models, ",") != strings.Join(out.Summary.Models, ",") {
			return nil, fmt.Errorf("merge: %s and %s come from different runs (%d events, %d files, models %v; then %d, %d, %v)",
				shards[0].Name, s.Name, out.Summary.Events, out.Summary.Files, out.Summary.Models, sum.Events, sum.Files, sum.Models)
		}
		mergeExplore(out.Summary.Explore, sum.Explore)
		out.Summary.Errors += sum.Errors
		out.Summary.Summary.Warnings += sum.Summary.Warnings
		out.Summary.Infos += sum.Infos
		out.Findings = append(out.Findings, doc.Findings...)
	}
	if err := shardSet(shards, marks); err != nil {
		return nil, err
	}
	sort.SliceStable(out.Findings, func(i, j int) bool { return out.Findings[i].StateIndex < out.Findings[j].StateIndex })
	m := &Merged{Format: "json"}
	for _, f := range out.Findings {
		sev, err := check.ParseSeverity(f.Severity)
		if err != nil {
			return nil, fmt.Errorf("merge: finding at line %d: %w", f.Line, err)
		}
		m.Severity = append(m.Severity, sev)
	}
	if out.Findings == nil {
		out.Findings = []FindingJSON{}
	}
	return m, encode(w, out)
}

func mergeSARIF(w io.Writer, shards []Shard) (*Merged, error) {
	var out sarifLog
	marks := make([]string, len(shards))
	var results []sarifResult
	for k, s := range shards {
		var log sarifLog
		if err := json.Unmarshal(s.Data, &log); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", s.Name, err)
		}
		if len(log.Runs) != 1 {
			return nil, fmt.Errorf("merge: %s holds %d runs; crashsim writes one", s.Name, len(log.Runs))
		}
		run := log.Runs[0]
		marks[k], _ = run.Properties["crashsimShard"].(string)
		if k == 0 {
			out = log
		}
		// A shard with no results names no trace directory.
		if out.Runs[0].OriginalURIBaseIDs == nil {
			out.Runs[0].OriginalURIBaseIDs = run.OriginalURIBaseIDs
		}
		results = append(results, run.Results...)
	}
	if err := shardSet(shards, marks); err != nil {
		return nil, err
	}
	index := func(r sarifResult) float64 { v, _ := r.Properties["stateIndex"].(float64); return v }
	sort.SliceStable(results, func(i, j int) bool { return index(results[i]) < index(results[j]) })
	if results == nil {
		results = []sarifResult{}
	}
	out.Runs[0].Results = results
	out.Runs[0].Properties = nil
	m := &Merged{Format: "sarif"}
	for _, r := range results {
		switch r.Level {
		case "error":
			m.Severity = append(m.Severity, check.Error)
		case "warning":
			m.Severity = append(m.Severity, check.Warning)
		default:
			m.Severity = append(m.Severity, check.Info)
		}
	}
	return m, encode(w, out)
}

// encode writes v as JSON and SARIF do: indented, HTML left alone.
func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
