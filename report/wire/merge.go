package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/textesc"
)

// A Shard is the report of one shard of explore --shard I/N, JSON or
// SARIF, as Merge reads it: twice, as it streams.
type Shard struct {
	Name string // for errors: the file it came from
	Data io.ReaderAt
	Size int64
}

// Merged says what Merge wrote.
type Merged struct {
	Format string // "json" or "sarif"
	// Errors, Warnings and Infos count the merged findings by severity
	// (a SARIF result's level note is info).
	Errors, Warnings, Infos int
	// Blind counts the blind spots a shard reports and does not accept
	// (each shard reports the run's own): the most of any shard.
	Blind int
}

// Merge joins the reports of every shard of one explore --shard run, all
// JSON or all SARIF, into the report the run would have written in one
// piece: a problem that several shards found (the same id) joined into
// one (mergeProblems), the findings problem by problem and in each in
// the order of their states (state_index, the same order in every
// shard; a stable sort of the shards' findings in the order the shards
// are given), the counts summed (the explore
// account's checker runs too: every shard builds every state and checks
// its share), the shard marks dropped. It refuses reports that are not shards, a shard missing or
// given twice, shards of different runs (their RunIDs, events, files,
// models or the states they built differ) or without a RunID, and a
// number no report crashsim writes holds (a negative count, a sum past
// the largest int, a mark other than plain I/N), before it writes
// anything.
//
// A first pass reads each shard through, checking it and noting where
// each problem and JSON finding starts; the second reads them there.
// SARIF results (one for each problem) stream in state order and are
// held until joined; a shard whose results are not in state order is
// read in that order through an index of where each starts.
func Merge(w io.Writer, shards []Shard) (*Merged, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("merge: no reports")
	}
	scans := make([]*scan, len(shards))
	for k, s := range shards {
		sc, err := scanShard(s)
		if err != nil {
			return nil, err
		}
		if k > 0 && sc.format != scans[0].format {
			return nil, fmt.Errorf("merge: %s is %s, %s is %s: merge reports of one format", shards[0].Name, scans[0].format, s.Name, sc.format)
		}
		scans[k] = sc
	}
	var m *Merged
	var err error
	if scans[0].format == "sarif" {
		m, err = mergeSARIF(w, shards, scans)
	} else {
		m, err = mergeJSON(w, shards, scans)
	}
	if m != nil {
		for _, sc := range scans {
			m.Blind = max(m.Blind, sc.blind())
		}
	}
	return m, err
}

// blind counts the blind spots a shard reports and does not accept: in
// JSON, its summary's warnings not accepted; in SARIF, the notifications
// of a blind spot at level warning (an accepted one is a note).
func (sc *scan) blind() int {
	n := 0
	if r := sc.doc.Report; r != nil {
		for _, w := range r.Summary.Warnings {
			if !w.Accepted {
				n++
			}
		}
		return n
	}
	if l := sc.doc.Log; l != nil {
		for _, run := range l.Runs {
			for _, inv := range run.Invocations {
				for _, note := range inv.Notifications {
					if strings.HasPrefix(note.Descriptor.ID, "blind-") && note.Level == "warning" {
						n++
					}
				}
			}
		}
	}
	return n
}

// scan is what the first pass learnt of a shard.
type scan struct {
	format string // "json" or "sarif"
	doc    Document
	counts Merged
	sorted bool    // its findings are in state order
	index  []entry // where each SARIF result starts, in state order, when not sorted
	// problems is where each problem starts (JSON, version 2 on), in
	// state order.
	problems []entry
	// findings are the JSON findings, in the shard's order: where each
	// starts, its problem and its fingerprint.
	findings []placed
}

// placed is a JSON finding of a shard: its state index, where it starts,
// the id of its problem and its fingerprint.
type placed struct {
	entry
	problem, fingerprint string
}

// entry is a finding's state index and where it starts in its shard.
type entry struct {
	state int
	off   int64
}

func scanShard(s Shard) (*scan, error) {
	sc := &scan{sorted: true}
	r := NewReader(io.NewSectionReader(s.Data, 0, s.Size))
	last := 0
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errNeither) {
			return nil, fmt.Errorf("merge: %s: neither crashsim's JSON (no \"findings\") nor SARIF %s", s.Name, SARIFVersion)
		}
		if err != nil {
			return nil, fmt.Errorf("merge: %s: not a JSON or SARIF report: %w", s.Name, err)
		}
		if it.Problem != nil {
			sc.problems = append(sc.problems, entry{it.Problem.StateIndex, r.off})
			continue
		}
		if err := sc.counts.add(it); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", s.Name, err)
		}
		st := stateIndex(it)
		if line := itemLine(it); st < 0 || line < 0 {
			return nil, fmt.Errorf("merge: %s: a finding at line %d of state %d: not a report crashsim writes", s.Name, line, st)
		}
		if f := it.Finding; f != nil {
			sc.findings = append(sc.findings, placed{entry{st, r.off}, f.Problem, f.Fingerprint})
		}
		sc.sorted = sc.sorted && st >= last
		last = st
	}
	sc.doc = r.Document()
	switch {
	case sc.doc.Report != nil:
		sc.format = "json"
	case sc.doc.Log.Version == SARIFVersion:
		sc.format = "sarif"
		if n := len(sc.doc.Log.Runs); n != 1 {
			return nil, fmt.Errorf("merge: %s holds %d runs; crashsim writes one", s.Name, n)
		}
	default:
		return nil, fmt.Errorf("merge: %s: neither crashsim's JSON (no \"findings\") nor SARIF %s", s.Name, SARIFVersion)
	}
	slices.SortStableFunc(sc.problems, func(a, b entry) int { return a.state - b.state })
	if !sc.sorted && sc.format == "sarif" {
		// A JSON shard's findings are read through sc.findings.
		if err := sc.indexShard(s); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// indexShard lists where each finding of s starts, in state order.
func (sc *scan) indexShard(s Shard) error {
	r := NewReader(io.NewSectionReader(s.Data, 0, s.Size))
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("merge: %s: %w", s.Name, err)
		}
		if it.Problem != nil {
			continue
		}
		sc.index = append(sc.index, entry{stateIndex(it), r.off})
	}
	slices.SortStableFunc(sc.index, func(a, b entry) int { return a.state - b.state })
	return nil
}

func stateIndex(it Item) int {
	if it.Finding != nil {
		return it.Finding.StateIndex
	}
	if p := it.Result.Properties; p != nil {
		return p.StateIndex
	}
	return 0
}

// itemLine is the trace line a finding or result names.
func itemLine(it Item) int {
	if it.Finding != nil {
		return it.Finding.Line
	}
	if locs := it.Result.Locations; len(locs) > 0 {
		return locs[0].PhysicalLocation.Region.StartLine
	}
	return 0
}

// add counts a finding by its severity, or a result by its level.
func (m *Merged) add(it Item) error {
	sev := "info"
	if it.Finding != nil {
		sev = it.Finding.Severity
	} else if l := it.Result.Level; l == "error" || l == "warning" {
		sev = l
	}
	switch sev {
	case "error":
		m.Errors++
	case "warning":
		m.Warnings++
	case "info":
		m.Infos++
	default:
		return fmt.Errorf("finding at line %d: unknown severity %s (want error, warning or info)", it.Finding.Line, excerpt(sev))
	}
	return nil
}

func (m *Merged) sum(o Merged) {
	m.Errors += o.Errors
	m.Warnings += o.Warnings
	m.Infos += o.Infos
}

// shardSet checks that marks ("I/N", one per report) name each shard of
// one run exactly once. Its work is bounded by the number of reports, not
// by N: a forged mark of 1/100000000 costs no more than 1/2.
func shardSet(shards []Shard, marks []string) error {
	n := 0
	seen := make(map[int]string, len(marks))
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
	if len(seen) == n {
		return nil
	}
	// Name the first few missing shards, from the gaps between those
	// given.
	given := make([]int, 0, len(seen))
	for i := range seen {
		given = append(given, i)
	}
	slices.Sort(given)
	var missing []string
	more, prev := 0, 0
	for _, i := range append(given, n+1) {
		for j := prev + 1; j < i; j++ {
			if len(missing) == maxNamedMissing {
				more = n - len(seen) - len(missing)
				break
			}
			missing = append(missing, strconv.Itoa(j))
		}
		if more > 0 {
			break
		}
		prev = i
	}
	list := strings.Join(missing, ", ")
	if more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Errorf("merge: shard %s of %d missing: the merge of fewer shards is not the report of the run", list, n)
}

// maxNamedMissing is how many missing shards an error names.
const maxNamedMissing = 10

// MaxShards bounds N in a shard mark I/N: explore --shard refuses more,
// and merge reads no mark of more.
const MaxShards = 1 << 16

// ParseShard reads "I/N" with 1 <= I <= N <= MaxShards, each a decimal
// number without sign, spaces or leading zeros.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, ok1 := decimal(a)
	n, ok2 := decimal(b)
	if !ok || !ok1 || !ok2 || n < 1 || i < 1 || i > n || n > MaxShards {
		return 0, 0, fmt.Errorf("shard %s: want I/N with 1 <= I <= N <= %d, such as 2/5", excerpt(s), MaxShards)
	}
	return i, n, nil
}

// decimal reads a number of at most 9 digits, the first not 0.
func decimal(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 || s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// excerpt quotes at most the first 40 bytes of s, a value read from a
// report, for an error.
func excerpt(s string) string { return excerptOf(s, 40) }

// excerptOf quotes at most the first max bytes of s.
func excerptOf(s string, max int) string {
	if len(s) <= max {
		return strconv.QuoteToASCII(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.QuoteToASCII(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
}

// sameRun checks that the shard's run identity is the first's.
func sameRun(first, name string, a, b *RunID) error {
	if b == nil {
		return fmt.Errorf("merge: %s has no run identity (summary.run, or the SARIF run's crashsimRun): it was written by an older crashsim; explore again with this one", name)
	}
	if a == nil || *a == *b {
		return nil
	}
	what := "their options differ (" + excerptOf(a.Options, 200) + ", then " + excerptOf(b.Options, 200) + ")"
	switch {
	case a.Trace != b.Trace:
		what = "they read different traces"
	case a.Checker != b.Checker:
		what = "they ran different checkers"
	}
	return fmt.Errorf("merge: %s and %s are shards of different runs: %s; merge the shards of one run", first, name, what)
}

// mergeJSON checks that the shards are one run's and writes the merge.
// An error writing comes with the Merged, one of the shards without.
func mergeJSON(w io.Writer, shards []Shard, scans []*scan) (*Merged, error) {
	marks := make([]string, len(shards))
	for k, sc := range scans {
		marks[k] = sc.doc.Report.Summary.Shard
	}
	if err := shardSet(shards, marks); err != nil {
		return nil, err
	}
	first := scans[0].doc.Report
	sum := first.Summary
	sum.Shard = ""
	if sum.Explore != nil {
		sum.Explore = sum.Explore.shardOf()
	}
	for k, sc := range scans {
		s := sc.doc.Report.Summary
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", shards[k].Name, err)
		}
		if err := sameRun(shards[0].Name, shards[k].Name, first.Summary.Run, s.Run); err != nil {
			return nil, err
		}
		if s.Events != sum.Events || s.Files != sum.Files || strings.Join(s.Models, ",") != strings.Join(sum.Models, ",") ||
			(s.Explore == nil) != (sum.Explore == nil) || (s.Explore != nil && !reflect.DeepEqual(s.Explore.shardOf(), sum.Explore.shardOf())) {
			return nil, fmt.Errorf("merge: %s and %s come from different runs (%d events, %d files, models %v; then %d, %d, %v; or the states they built)",
				shards[0].Name, shards[k].Name, sum.Events, sum.Files, sum.Models, s.Events, s.Files, s.Models)
		}
	}
	for k, sc := range scans {
		if err := sum.Explore.add(sc.doc.Report.Summary.Explore); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", shards[k].Name, err)
		}
	}
	m := &Merged{Format: "json"}
	for _, sc := range scans {
		m.sum(sc.counts)
	}
	sum.Errors, sum.WarningFindings, sum.Infos = m.Errors, m.Warnings, m.Infos
	problems, err := mergeProblems(shards, scans)
	if err != nil {
		return nil, err
	}
	sum.Problems = len(problems)
	out := NewReportWriter(w, first.Version, first.Tool)
	for _, p := range problems {
		if err = out.Problem(p); err != nil {
			return m, err
		}
	}
	err = mergeFindings(shards, scans, problems, func(f *Finding) error { return out.Finding(f) })
	if err == nil {
		err = out.Close(&sum)
	}
	return m, err
}

// mergeFindings calls put with the JSON findings of every shard in the
// order the whole run's report lists them: problem by problem, in the
// order of problems, and in each in state order (of two with the same
// state, the one of the shard given first, then the one first in its
// shard). A finding of no problem listed (a report of version 1) comes
// after them, in state order.
func mergeFindings(shards []Shard, scans []*scan, problems []*Problem, put func(*Finding) error) error {
	rank := make(map[string]int, len(problems))
	for i, p := range problems {
		rank[p.ID] = i
	}
	type at struct {
		placed
		rank, k int
	}
	var all []at
	for k, sc := range scans {
		for _, f := range sc.findings {
			r, ok := rank[f.problem]
			if !ok || f.problem == "" {
				r = len(problems)
			}
			all = append(all, at{f, r, k})
		}
	}
	slices.SortStableFunc(all, func(a, b at) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.state - b.state
	})
	for _, a := range all {
		c := &cursor{shard: shards[a.k], scan: scans[a.k]}
		it, err := c.at(a.off)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", c.shard.Name, err)
		}
		if err := put(it.Finding); err != nil {
			return err
		}
	}
	return nil
}

// mergeSARIF is mergeJSON for SARIF logs.
func mergeSARIF(w io.Writer, shards []Shard, scans []*scan) (*Merged, error) {
	marks := make([]string, len(shards))
	log := *scans[0].doc.Log
	run := log.Runs[0]
	for k, sc := range scans {
		r := &sc.doc.Log.Runs[0]
		if r.Properties != nil {
			marks[k] = r.Properties.Shard
		}
		// A shard with no results names no trace directory.
		if run.OriginalURIBaseIDs == nil {
			run.OriginalURIBaseIDs = r.OriginalURIBaseIDs
		}
	}
	if err := shardSet(shards, marks); err != nil {
		return nil, err
	}
	first := sarifRunID(scans[0])
	for k, sc := range scans {
		if err := sameRun(shards[0].Name, shards[k].Name, first, sarifRunID(sc)); err != nil {
			return nil, err
		}
	}
	var results []*SARIFResult
	byID := map[string]*SARIFResult{}
	err := mergeItems(shards, scans, func(it Item) error {
		id := it.Result.PartialFingerprints[ProblemVersion]
		if q := byID[id]; q != nil && id != "" {
			return q.join(it.Result)
		}
		byID[id] = it.Result
		results = append(results, it.Result)
		return nil
	})
	if err != nil {
		return nil, err
	}
	m := &Merged{Format: "sarif"}
	for _, r := range results {
		r.sortConsequences()
		r.CapRelated()
		if err := m.add(Item{Result: r}); err != nil {
			return nil, err
		}
	}
	run.Properties = nil
	if p := scans[0].doc.Log.Runs[0].Properties; p != nil && (p.Run != nil || p.Config != "") {
		run.Properties = &SARIFRunProperties{Config: p.Config, Run: p.Run}
	}
	// As the whole run's log: at most MaxResults results, a note past
	// that, the counts (and the exit status) of them all. The run's
	// invocations are the first shard's: copied before a note is added.
	run.Invocations = slices.Clone(run.Invocations)
	for i := range run.Invocations {
		run.Invocations[i].Notifications = slices.Clone(run.Invocations[i].Notifications)
	}
	results = results[:CutResults(&run, len(results))]
	log.Runs = []SARIFRun{run}
	out := NewSARIFWriter(w, &log)
	for _, r := range results {
		if err = out.Result(r); err != nil {
			return m, err
		}
	}
	return m, out.Close()
}

// join adds to r, the result of a problem's lowest state, another
// shard's result of the same problem (mergeProblems in SARIF): its
// primary becomes a consequence (its properties' consequence), and its
// consequences, findings, rules and paths are added; its level when
// worse. sortConsequences puts the consequences in state order once all
// are joined.
func (r *SARIFResult) join(o *SARIFResult) error {
	rp, op := r.Properties, o.Properties
	if rp == nil || op == nil || op.Consequence == nil || len(op.Findings) == 0 || len(o.RelatedLocations) < len(op.Findings)-1 {
		return fmt.Errorf("two results of problem %s, one without what crashsim merge needs to join them: not explore's", excerpt(o.PartialFingerprints[ProblemVersion]))
	}
	r.RelatedLocations = append(r.RelatedLocations, *op.Consequence)
	r.RelatedLocations = append(r.RelatedLocations, o.RelatedLocations[len(o.RelatedLocations)-(len(op.Findings)-1):]...)
	rp.Findings = append(rp.Findings, op.Findings...)
	for _, x := range op.Rules {
		if !slices.Contains(rp.Rules, x) {
			rp.Rules = append(rp.Rules, x)
		}
	}
	for _, x := range op.Paths {
		if !slices.Contains(rp.Paths, x) {
			rp.Paths = append(rp.Paths, x)
		}
	}
	if severityRank(o.Level) > severityRank(r.Level) {
		r.Level = o.Level
	}
	return nil
}

// sortConsequences puts a joined result's consequences (its related
// locations past its primary's, one for each finding after the first)
// and their findings in state order, numbers them again, and says how
// many more files the message names.
func (r *SARIFResult) sortConsequences() {
	p := r.Properties
	if p == nil || len(p.Findings) < 2 || len(r.RelatedLocations) < len(p.Findings)-1 {
		return
	}
	n := len(r.RelatedLocations) - (len(p.Findings) - 1)
	type cons struct {
		loc SARIFLocation
		fp  string
	}
	cs := make([]cons, len(p.Findings)-1)
	for i := range cs {
		cs[i] = cons{r.RelatedLocations[n+i], p.Findings[1+i]}
	}
	stateOf := func(c cons) int {
		if c.loc.Properties != nil {
			return c.loc.Properties.StateIndex
		}
		return 0
	}
	slices.SortStableFunc(cs, func(a, b cons) int { return stateOf(a) - stateOf(b) })
	for i, c := range cs {
		id := n + i + 1
		c.loc.ID = &id
		r.RelatedLocations[n+i] = c.loc
		p.Findings[1+i] = c.fp
	}
	r.Message.Text = moreFiles(r.Message.Text, len(p.Paths)-1)
}

// moreFiles is a result's message naming n more files than its path, as
// the report of the whole run says it: " (and N more files)" at its end.
func moreFiles(msg string, n int) string {
	if i := strings.LastIndex(msg, " (and "); i >= 0 && strings.HasSuffix(msg, " more files)") {
		if _, err := strconv.Atoi(msg[i+len(" (and ") : len(msg)-len(" more files)")]); err == nil {
			msg = msg[:i]
		}
	}
	if n > 0 {
		msg += fmt.Sprintf(" (and %d more files)", n)
	}
	return msg
}

// sarifRunID is the run identity of a SARIF shard, nil when it has none.
func sarifRunID(sc *scan) *RunID {
	if p := sc.doc.Log.Runs[0].Properties; p != nil {
		return p.Run
	}
	return nil
}

// mergeItems calls put with the findings of every shard in state order;
// of two with the same state, the one of the shard given first, then the
// one first in its shard.
func mergeItems(shards []Shard, scans []*scan, put func(Item) error) error {
	curs := make([]*cursor, len(shards))
	for k, s := range shards {
		c := &cursor{shard: s, scan: scans[k]}
		if c.scan.sorted {
			c.r = NewReader(io.NewSectionReader(s.Data, 0, s.Size))
		}
		if err := c.next(); err != nil {
			return err
		}
		curs[k] = c
	}
	for {
		var min *cursor
		for _, c := range curs {
			if c.ok && (min == nil || stateIndex(c.it) < stateIndex(min.it)) {
				min = c
			}
		}
		if min == nil {
			return nil
		}
		if err := put(min.it); err != nil {
			return err
		}
		if err := min.next(); err != nil {
			return err
		}
	}
}

// mergeProblems reads the problems of every shard in state order (of
// two with the same state, the one of the shard given first) and joins
// those of one id: explore groups its rejected states by file (or call
// site), and the shards of a run check states of one file apart. The
// joined problem is the one of the lowest state (its primary, message
// and fix are the whole run's), with every shard's findings in state
// order, their paths and the worst severity. Problems are few beside
// findings: each shard's are read through their index.
func mergeProblems(shards []Shard, scans []*scan) ([]*Problem, error) {
	type at struct {
		entry
		k int
	}
	var all []at
	for k, sc := range scans {
		for _, e := range sc.problems {
			all = append(all, at{e, k})
		}
	}
	slices.SortStableFunc(all, func(a, b at) int { return a.state - b.state })
	var out []*Problem
	byID := map[string]*Problem{}
	for _, a := range all {
		c := &cursor{shard: shards[a.k], scan: scans[a.k]}
		br, err := c.from(a.off)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", c.shard.Name, err)
		}
		p := new(Problem)
		if err := json.NewDecoder(&capReader{r: br, limit: maxValue}).Decode(p); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", c.shard.Name, err)
		}
		if q := byID[p.ID]; q != nil && p.ID != "" {
			q.join(p)
			continue
		}
		byID[p.ID] = p
		out = append(out, p)
	}
	if len(out) == len(all) {
		return out, nil
	}
	state := map[string]int{}
	for _, sc := range scans {
		for _, f := range sc.findings {
			state[f.fingerprint] = f.state
		}
	}
	for _, p := range out {
		slices.SortStableFunc(p.Findings, func(a, b string) int { return state[a] - state[b] })
	}
	return out, nil
}

// join adds to p, a problem of the lowest state, another shard's
// problem of the same id: its findings and paths, and its severity when
// worse.
func (p *Problem) join(o *Problem) {
	p.Findings = append(p.Findings, o.Findings...)
	for _, x := range o.Paths {
		if !slices.Contains(p.Paths, x) {
			p.Paths = append(p.Paths, x)
		}
	}
	if severityRank(o.Severity) > severityRank(p.Severity) {
		p.Severity = o.Severity
	}
}

// severityRank orders severities, and SARIF levels, from the least.
func severityRank(s string) int {
	switch s {
	case "error":
		return 3
	case "warning":
		return 2
	case "info", "note":
		return 1
	}
	return 0
}

// cursor is a shard's next finding in state order.
type cursor struct {
	shard Shard
	scan  *scan
	r     *Reader // reading through a sorted shard
	i     int     // into the index of one that is not
	it    Item
	ok    bool
}

func (c *cursor) next() error {
	var err error
	if c.r != nil {
		c.it, err = c.r.Next()
		for err == nil && c.it.Problem != nil {
			c.it, err = c.r.Next()
		}
		if errors.Is(err, io.EOF) {
			c.ok = false
			return nil
		}
	} else {
		if c.i == len(c.scan.index) {
			c.ok = false
			return nil
		}
		c.it, err = c.at(c.scan.index[c.i].off)
		c.i++
	}
	if err != nil {
		return fmt.Errorf("merge: %s: %w", c.shard.Name, err)
	}
	c.ok = true
	return nil
}

// from reads the shard from the value that starts at off, or at the
// comma before it.
func (c *cursor) from(off int64) (*bufio.Reader, error) {
	br := bufio.NewReader(io.NewSectionReader(c.shard.Data, off, c.shard.Size-off))
	for {
		b, err := br.ReadByte()
		if err != nil {
			return nil, err
		}
		if b != ',' && b != ' ' && b != '\n' && b != '\r' && b != '\t' {
			br.UnreadByte()
			return br, nil
		}
	}
}

// at reads the finding that starts at off, or at the comma before it.
func (c *cursor) at(off int64) (Item, error) {
	br, err := c.from(off)
	if err != nil {
		return Item{}, err
	}
	dec := json.NewDecoder(&capReader{r: br, limit: maxValue})
	if c.scan.format == "json" {
		f := new(Finding)
		return Item{Finding: f}, dec.Decode(f)
	}
	res := new(SARIFResult)
	return Item{Result: res}, dec.Decode(res)
}

// check refuses a summary with a negative count: a report crashsim
// writes has none, and a merge would add them up.
func (s *Summary) check() error {
	nums := []struct {
		name string
		n    int64
	}{
		{"events", int64(s.Events)}, {"files", int64(s.Files)}, {"errors", int64(s.Errors)},
		{"warningFindings", int64(s.WarningFindings)}, {"infos", int64(s.Infos)},
		{"left.ignored", int64(s.Left.Ignored)}, {"left.suppressed", int64(s.Left.Suppressed)}, {"left.baseline", int64(s.Left.Baseline)},
	}
	if x := s.Explore; x != nil {
		nums = append(nums, []struct {
			name string
			n    int64
		}{
			{"explore.points", int64(x.Points)}, {"explore.exhaustive", int64(x.Exhaustive)}, {"explore.sampled", int64(x.Sampled)},
			{"explore.admitted", x.Admitted}, {"explore.built", int64(x.Built)}, {"explore.distinct", int64(x.Distinct)},
			{"explore.checked", int64(x.Checked)}, {"explore.rejected", int64(x.Rejected)}, {"explore.notChecked", int64(x.NotChecked)},
			{"explore.families.predicted", int64(x.Families.Predicted)}, {"explore.families.prefix", int64(x.Families.Prefix)},
			{"explore.families.drop", int64(x.Families.Drop)}, {"explore.families.torn", int64(x.Families.Torn)},
			{"explore.families.size", int64(x.Families.Size)}, {"explore.families.random", int64(x.Families.Random)}, {"explore.maxJoint", int64(x.MaxJoint)}, {"explore.samples", int64(x.Samples)},
		}...)
		for i, p := range x.CrashPoints {
			for _, v := range []int64{int64(p.Line), p.Admitted, int64(p.Built), int64(p.New), int64(p.Checked)} {
				if v < 0 {
					return fmt.Errorf("summary: explore.crashPoints[%d] holds a negative number: not a report crashsim writes", i)
				}
			}
		}
	}
	for _, v := range nums {
		if v.n < 0 {
			return fmt.Errorf("summary: %s is %d: not a report crashsim writes", v.name, v.n)
		}
	}
	return nil
}

// maxPipedShard bounds a shard read from a pipe, which is held in memory
// to be read twice; a shard in a file streams.
const maxPipedShard = 256 << 20

// OpenShard opens a shard's report to be read twice: a regular file or a
// pipe named on the command line (inputfile). A file is read where it
// is; a pipe is read into memory, up to maxPipedShard.
func OpenShard(name string) (Shard, io.Closer, error) {
	f, err := inputfile.Open(name, inputfile.Named)
	if err != nil {
		return Shard{}, nil, inputfile.Describe("report", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return Shard{}, nil, err
	}
	if fi.Mode().IsRegular() {
		return Shard{Name: textesc.Escape(name), Data: f, Size: fi.Size()}, f, nil
	}
	defer f.Close()
	b, err := inputfile.ReadAll(f, maxPipedShard)
	if errors.Is(err, inputfile.ErrTooLarge) {
		return Shard{}, nil, fmt.Errorf("merge: %s is not a file and holds more than %d MiB: write the shard to a file", textesc.Escape(name), maxPipedShard>>20)
	}
	if err != nil {
		return Shard{}, nil, fmt.Errorf("merge: %s: %w", textesc.Escape(name), err)
	}
	return Shard{Name: textesc.Escape(name), Data: bytes.NewReader(b), Size: int64(len(b))}, io.NopCloser(nil), nil
}
