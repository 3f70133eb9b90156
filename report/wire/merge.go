package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
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
}

// Merge joins the reports of every shard of one explore --shard run, all
// JSON or all SARIF, into the report the run would have written in one
// piece: the findings in the order of their states (state_index, the
// same order in every shard; a stable sort of the shards' findings in
// the order the shards are given), the counts summed (the explore
// account's checker runs too: every shard builds every state and checks
// its share), the shard marks dropped. It refuses reports that are not shards, a shard missing or
// given twice, and shards whose runs differ (events, files or models),
// before it writes anything.
//
// A first pass reads each shard through, checking it; the second merges
// the shards' findings as they stream. A shard whose findings are not in
// state order (its report grouped them by call site) is read in that
// order through an index of where each finding starts.
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
	if scans[0].format == "sarif" {
		return mergeSARIF(w, shards, scans)
	}
	return mergeJSON(w, shards, scans)
}

// scan is what the first pass learnt of a shard.
type scan struct {
	format string // "json" or "sarif"
	doc    Document
	counts Merged
	sorted bool    // its findings are in state order
	index  []entry // where each finding starts, in state order, when not sorted
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
		if err := sc.counts.add(it); err != nil {
			return nil, fmt.Errorf("merge: %s: %w", s.Name, err)
		}
		st := stateIndex(it)
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
	if !sc.sorted {
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
		return fmt.Errorf("finding at line %d: unknown severity %q (want error, warning or info)", it.Finding.Line, sev)
	}
	return nil
}

func (m *Merged) sum(o Merged) {
	m.Errors += o.Errors
	m.Warnings += o.Warnings
	m.Infos += o.Infos
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

// mergeJSON checks that the shards are one run's and writes the merge.
// An error writing comes with the Merged, one of the shards without.
func mergeJSON(w io.Writer, shards []Shard, scans []*scan) (*Merged, error) {
	marks := make([]string, len(shards))
	first := scans[0].doc.Report
	sum := first.Summary
	sum.Shard = ""
	if sum.Explore != nil {
		sum.Explore = sum.Explore.shardOf()
	}
	for k, sc := range scans {
		s := sc.doc.Report.Summary
		marks[k] = s.Shard
		if s.Events != sum.Events || s.Files != sum.Files || strings.Join(s.Models, ",") != strings.Join(sum.Models, ",") {
			return nil, fmt.Errorf("merge: %s and %s come from different runs (%d events, %d files, models %v; then %d, %d, %v)",
				shards[0].Name, shards[k].Name, sum.Events, sum.Files, sum.Models, s.Events, s.Files, s.Models)
		}
		sum.Explore.add(s.Explore)
	}
	if err := shardSet(shards, marks); err != nil {
		return nil, err
	}
	m := &Merged{Format: "json"}
	for _, sc := range scans {
		m.sum(sc.counts)
	}
	sum.Errors, sum.WarningFindings, sum.Infos = m.Errors, m.Warnings, m.Infos
	out := NewReportWriter(w, first.Version, first.Tool)
	err := mergeItems(shards, scans, func(it Item) error { return out.Finding(it.Finding) })
	if err == nil {
		err = out.Close(&sum)
	}
	return m, err
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
	m := &Merged{Format: "sarif"}
	for _, sc := range scans {
		m.sum(sc.counts)
	}
	run.Properties = nil
	log.Runs = []SARIFRun{run}
	out := NewSARIFWriter(w, &log)
	err := mergeItems(shards, scans, func(it Item) error { return out.Result(it.Result) })
	if err == nil {
		err = out.Close()
	}
	return m, err
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

// at reads the finding that starts at off, or at the comma before it.
func (c *cursor) at(off int64) (Item, error) {
	br := bufio.NewReader(io.NewSectionReader(c.shard.Data, off, c.shard.Size-off))
	for {
		b, err := br.ReadByte()
		if err != nil {
			return Item{}, err
		}
		if b != ',' && b != ' ' && b != '\n' && b != '\r' && b != '\t' {
			br.UnreadByte()
			break
		}
	}
	dec := json.NewDecoder(&capReader{r: br, limit: maxValue})
	if c.scan.format == "json" {
		f := new(Finding)
		return Item{Finding: f}, dec.Decode(f)
	}
	res := new(SARIFResult)
	return Item{Result: res}, dec.Decode(res)
}

// maxPipedShard bounds a shard read from a pipe, which is held in memory
// to be read twice; a shard in a file streams.
const maxPipedShard = 256 << 20

// OpenShard opens a shard's report to be read twice: a regular file as
// it is, anything else (a pipe) read into memory, up to maxPipedShard.
func OpenShard(name string) (Shard, io.Closer, error) {
	f, err := os.Open(name)
	if err != nil {
		return Shard{}, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return Shard{}, nil, err
	}
	if fi.Mode().IsRegular() {
		return Shard{Name: name, Data: f, Size: fi.Size()}, f, nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPipedShard+1))
	if err != nil {
		return Shard{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxPipedShard {
		return Shard{}, nil, fmt.Errorf("merge: %s is not a file and holds more than %d MiB: write the shard to a file", name, maxPipedShard>>20)
	}
	return Shard{Name: name, Data: bytes.NewReader(b), Size: int64(len(b))}, io.NopCloser(nil), nil
}
