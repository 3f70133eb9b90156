package check

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/crashsim/crashsim/model"
)

// A Result's findings are in memory unless the check spilled them
// (Options.SpillAt): then they are read back from a temp file one at a
// time, through Findings and At. Filter leaves findings out either way. A
// spilled result holds an open file: Close frees it.

// part is a run of a result's findings after those in memory: in memory
// too (a result joined after a spilled one), or on disk.
type part struct {
	mem  []*Finding
	disk *diskPart
}

// diskPart is findings in their final order in a temp file: the offset of
// each record that is still in the result, and the traces they are in.
type diskPart struct {
	file   *spillFile
	c      *codec
	offs   []int64
	r      *reader
	traces []string
}

func (d *diskPart) at(i int) (*Finding, error) {
	rec, err := d.record(d.offs[i])
	if err != nil {
		return nil, err
	}
	return d.r.dec.decode(rec)
}

// record returns the record at off, valid until the next read.
func (d *diskPart) record(off int64) ([]byte, error) {
	if d.r == nil {
		d.r = d.newReader()
	}
	return recordAt(d.r, off)
}

func (d *diskPart) newReader() *reader { return newReader(d.file, d.c, -1, d.file.size, 256<<10) }

// recordAt is the record at off as r reads it, valid until r reads again.
func recordAt(r *reader, off int64) ([]byte, error) {
	rec, err := r.at(off)
	if errors.Is(err, io.EOF) {
		err = errRecord
	}
	return rec, err
}

// decodeAt reads the record at off with r into f and st (decodeInto).
func decodeAt(r *reader, off int64, f *Finding, st *State) (*Finding, error) {
	rec, err := recordAt(r, off)
	if err != nil {
		return nil, err
	}
	if err := r.dec.decodeInto(rec, f, st); err != nil {
		return nil, err
	}
	return f, nil
}

// heads yields what Group asks of each finding (see decoder.head),
// in order: a finding in memory as it is, a spilled one into one Finding
// reused for every record, valid only until the next, whose Message is
// empty and whose Related, State and Source are nil (a spilled finding
// never keeps a Source: Load is what makes one last).
func (r *Result) heads() iter.Seq2[*Finding, error] {
	return func(yield func(*Finding, error) bool) {
		for _, f := range r.findings {
			if !yield(f, nil) {
				return
			}
		}
		var reuse Finding
		for _, p := range r.parts {
			if p.disk == nil {
				for _, f := range p.mem {
					if !yield(f, nil) {
						return
					}
				}
				continue
			}
			d := p.disk
			for _, off := range d.offs {
				err := d.head(off, &reuse)
				if err != nil {
					yield(nil, err)
					return
				}
				if !yield(&reuse, nil) {
					return
				}
			}
		}
	}
}

// head reads the record at off into f as decoder.head does.
func (d *diskPart) head(off int64, f *Finding) error {
	rec, err := d.record(off)
	if err != nil {
		return err
	}
	_, _, err = d.r.dec.head(rec, f)
	return err
}

func (p part) len() int {
	if p.disk != nil {
		return len(p.disk.offs)
	}
	return len(p.mem)
}

// Spilled reports whether some of the findings are on disk.
func (r *Result) Spilled() bool { return len(r.parts) > 0 }

// Len is how many findings the result holds.
func (r *Result) Len() int {
	n := len(r.findings)
	for _, p := range r.parts {
		n += p.len()
	}
	return n
}

// Findings yields each finding in order, with a nil error. A spilled
// finding is read back fresh each time: a change to it is lost. An error
// reading one is yielded with a nil finding, and ends the sequence.
func (r *Result) Findings() iter.Seq2[*Finding, error] {
	return func(yield func(*Finding, error) bool) {
		for i := 0; i < r.Len(); i++ {
			f, err := r.At(i)
			if !yield(f, err) || err != nil {
				return
			}
		}
	}
}

// List returns every finding in a slice: the result's own when none
// spilled, else every one read back, which holds them all in memory.
// Load does that once for good.
func (r *Result) List() ([]*Finding, error) {
	if !r.Spilled() {
		return r.findings, nil
	}
	all := make([]*Finding, 0, r.Len())
	for f, err := range r.Findings() {
		if err != nil {
			return nil, err
		}
		all = append(all, f)
	}
	return all, nil
}

// Add puts findings after the result's, in memory, and counts them.
func (r *Result) Add(fs ...*Finding) {
	if r.Spilled() {
		r.parts = append(r.parts, part{mem: fs})
	} else {
		r.findings = append(r.findings, fs...)
	}
	for _, f := range fs {
		r.Summary.Count(f.Rule.Severity)
	}
}

// At is finding i (0 <= i < Len).
func (r *Result) At(i int) (*Finding, error) {
	f, d, n, err := r.locate(i)
	if d != nil {
		return d.at(n)
	}
	return f, err
}

// locate finds finding i: the finding, when it is in memory, or else
// the spilled part that holds it and its place there.
func (r *Result) locate(i int) (*Finding, *diskPart, int, error) {
	if i < len(r.findings) {
		return r.findings[i], nil, 0, nil
	}
	n := i - len(r.findings)
	for _, p := range r.parts {
		if n >= p.len() {
			n -= p.len()
			continue
		}
		if p.disk != nil {
			return nil, p.disk, n, nil
		}
		return p.mem[n], nil, 0, nil
	}
	return nil, nil, 0, fmt.Errorf("check: finding %d of %d", i, r.Len())
}

// AtReuse is finding i (0 <= i < Len), as At gives it, but valid only
// until the next call with the same f and st, and not to be changed: a
// finding in memory as it is, a spilled one read into f (reusing the
// room of its Related) and its state into st. A report that writes each
// finding as it reads it needs no Finding of its own for each.
func (r *Result) AtReuse(i int, f *Finding, st *State) (*Finding, error) {
	x, d, n, err := r.locate(i)
	if d == nil {
		return x, err
	}
	if d.r == nil {
		d.r = d.newReader()
	}
	return decodeAt(d.r, d.offs[n], f, st)
}

// A Reading reads a result's findings as Result.AtReuse does, with
// readers of its own: AtReuse of one Result must not run on two
// goroutines at once, but each goroutine may read the result through a
// Reading of its own (a report encoding its findings on several). The
// result must not change (Add, Filter, Close) while a Reading is in use.
type Reading struct {
	r     *Result
	disks map[*diskPart]*reader
}

// NewReading returns a Reading of r.
func (r *Result) NewReading() *Reading { return &Reading{r: r} }

// AtReuse is Result.AtReuse, valid until the Reading's next call with
// the same f and st.
func (x *Reading) AtReuse(i int, f *Finding, st *State) (*Finding, error) {
	y, d, n, err := x.r.locate(i)
	if d == nil {
		return y, err
	}
	return decodeAt(x.reader(d), d.offs[n], f, st)
}

// Brief is Result.Brief.
func (x *Reading) Brief(i int, f *Finding) error { return x.r.briefWith(i, f, x.reader) }

// reader is the Reading's reader of spilled part d.
func (x *Reading) reader(d *diskPart) *reader {
	rd := x.disks[d]
	if rd == nil {
		if x.disks == nil {
			x.disks = map[*diskPart]*reader{}
		}
		rd = d.newReader()
		x.disks[d] = rd
	}
	return rd
}

// Brief fills f with finding i (0 <= i < Len) as far as what names it:
// its rule, path, trace, line, pid, seq, state index, models and related
// events, without their descriptions (What). Its message and state are
// left empty, and its Source nil. f's Related is reused. A report's
// fingerprints need no more, and a spilled finding is read without
// building the rest.
func (r *Result) Brief(i int, f *Finding) error {
	return r.briefWith(i, f, func(d *diskPart) *reader {
		if d.r == nil {
			d.r = d.newReader()
		}
		return d.r
	})
}

// briefWith is Brief, reading a spilled part with the reader readerOf
// gives for it.
func (r *Result) briefWith(i int, f *Finding, readerOf func(*diskPart) *reader) error {
	x, d, n, err := r.locate(i)
	switch {
	case err != nil:
		return err
	case d == nil:
		brief(x, f)
		return nil
	}
	rd := readerOf(d)
	rec, err := recordAt(rd, d.offs[n])
	if err != nil {
		return err
	}
	return rd.dec.brief(rec, f)
}

// brief copies x into f as Result.Brief fills it.
func brief(x, f *Finding) {
	related := f.Related[:0]
	for _, r := range x.Related {
		r.What = ""
		related = append(related, r)
	}
	if x.Related == nil {
		related = nil
	}
	*f = Finding{Rule: x.Rule, Path: x.Path, Trace: x.Trace, Line: x.Line, PID: x.PID, Seq: x.Seq,
		Models: x.Models, Related: related, StateIndex: x.StateIndex, modelSet: x.modelSet}
}

// Filter leaves in the result only the findings keep returns true for,
// in their order, and counts again what is left in the summary. keep
// sees each finding once.
func (r *Result) Filter(keep func(*Finding) bool) error {
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos = 0, 0, 0
	kept := func(f *Finding) bool {
		if !keep(f) {
			return false
		}
		r.Summary.Count(f.Rule.Severity)
		return true
	}
	r.findings = filterMem(r.findings, kept)
	for k := range r.parts {
		p := &r.parts[k]
		if p.disk == nil {
			p.mem = filterMem(p.mem, kept)
			continue
		}
		d := p.disk
		offs := d.offs[:0]
		for i, off := range d.offs {
			f, err := d.at(i)
			if err != nil {
				return err
			}
			if kept(f) {
				offs = append(offs, off)
			}
		}
		d.offs = offs
	}
	return nil
}

func filterMem(fs []*Finding, keep func(*Finding) bool) []*Finding {
	if fs == nil {
		return nil
	}
	kept := fs[:0:0]
	for _, f := range fs {
		if keep(f) {
			kept = append(kept, f)
		}
	}
	return kept
}

// AtLeast reports whether a finding is at least as severe as s.
func (r *Result) AtLeast(s Severity) bool { return r.Summary.AtLeast(s) }

// Join puts o's findings after r's, adds its counts to r's summary and
// its blind spots and notes to r's; o's files are r's to close.
func (r *Result) Join(o *Result) {
	if !r.Spilled() && !o.Spilled() {
		r.findings = append(r.findings, o.findings...)
	} else {
		if len(o.findings) > 0 {
			r.parts = append(r.parts, part{mem: o.findings})
		}
		r.parts = append(r.parts, o.parts...)
	}
	r.Summary.Add(o.Summary)
	r.Warnings = append(r.Warnings, o.Warnings...)
	r.Notes = append(r.Notes, o.Notes...)
	r.Unsynced = append(r.Unsynced, o.Unsynced...)
	r.dirs = append(r.dirs, o.dirs...)
	o.findings, o.parts = nil, nil
}

// Traces lists the traces the findings are in, each once.
func (r *Result) Traces() []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	mem := func(fs []*Finding) {
		for _, f := range fs {
			add(f.Trace)
		}
	}
	mem(r.findings)
	for _, p := range r.parts {
		if p.disk == nil {
			mem(p.mem)
			continue
		}
		for _, t := range p.disk.traces {
			add(t)
		}
	}
	return out
}

// Load reads every spilled finding back into memory, for the views that
// need them all at hand and for changes to them that must last (a
// finding's Source), and closes the temp files.
func (r *Result) Load() error {
	if !r.Spilled() {
		return nil
	}
	all, err := r.List()
	if err != nil {
		return err
	}
	if err := r.Close(); err != nil {
		return err
	}
	r.findings = all
	return nil
}

// Close frees the temp files of a spilled result; its findings on disk
// are gone with them.
func (r *Result) Close() error {
	var err error
	for _, p := range r.parts {
		if p.disk != nil {
			err = errors.Join(err, p.disk.file.close())
		}
	}
	r.parts = nil
	return err
}

// collector holds what the model runs of one check emit, and spills it
// past a bound.
type collector struct {
	runs   []*run
	at     int // spill past this many findings; 0: never
	n      int
	sort   *sorter
	traces map[string]bool
	rec    []byte
	err    error
	// firsts are the keys of the findings the first run emitted, of
	// the rules that ask run.joins, in the order it emitted them;
	// traceIDs number the traces they name.
	firsts   map[string]*emittedKeys
	traceIDs []string
	// joined are the models later runs add to the first run's findings
	// once the check spills, by the findings' places in the first run
	// (see run.joins).
	joined []modelSet
}

// joinModel adds model p to the first run's finding seq, as a later
// run's finding with the same key would in merge.
func (c *collector) joinModel(seq int, p model.Persistence) {
	if seq >= len(c.joined) {
		c.joined = append(c.joined, make([]modelSet, seq+1-len(c.joined))...)
	}
	c.joined[seq] |= 1 << p
}

// joinRules are the rules that ask run.joins.
var joinRules = []string{DataNotSynced, NameNotSynced}

// emittedKeys are the keys of one rule's findings the first run emitted,
// in order, and how far each later run has found its own among them.
type emittedKeys struct {
	// keys are in blocks of keyBlock, so that they are never copied to
	// grow (a slice grown by append allocated five times its size).
	keys [][]emittedKey
	n    int
	at   []int // by run index
}

const keyBlock = 1 << 12

func (e *emittedKeys) add(k emittedKey) {
	if e.n%keyBlock == 0 {
		e.keys = append(e.keys, make([]emittedKey, 0, keyBlock))
	}
	b := &e.keys[len(e.keys)-1]
	*b = append(*b, k)
	e.n++
}

func (e *emittedKeys) key(i int) *emittedKey { return &e.keys[i/keyBlock][i%keyBlock] }

// emittedKey is what merge joins a rule's findings by, with the rule:
// path, trace (its place in collector.traceIDs) and line.
//
// The first run of a check of many unsynced files notes two findings a
// file: trace and seq in 32 bits each put a key in 32 bytes, not 40.
type emittedKey struct {
	path  string
	line  int
	trace int32
	seq   int32 // its place among the first run's findings; not part of the key
}

func (c *collector) keyOf(p, trace string, line int) emittedKey {
	t := -1
	for i := len(c.traceIDs) - 1; i >= 0; i-- {
		if c.traceIDs[i] == trace {
			t = i
			break
		}
	}
	if t < 0 {
		t = len(c.traceIDs)
		c.traceIDs = append(c.traceIDs, trace)
	}
	return emittedKey{path: p, line: line, trace: int32(t)}
}

// note remembers f, emitted by run index as its finding seq, when the
// first run emitted it and its rule asks run.joins.
func (c *collector) note(index, seq int, f *Finding) {
	if index != 0 || len(c.runs) < 2 || !slices.Contains(joinRules, f.Rule.ID) {
		return
	}
	if c.firsts == nil {
		c.firsts = map[string]*emittedKeys{}
	}
	e := c.firsts[f.Rule.ID]
	if e == nil {
		e = &emittedKeys{at: make([]int, len(c.runs))}
		c.firsts[f.Rule.ID] = e
	}
	k := c.keyOf(f.Path, f.Trace, f.Line)
	k.seq = int32(seq)
	e.add(k)
}

// joinAhead is how far past the last key it found a run looks for the
// next: a model can leave a file out that another reports.
const joinAhead = 16

// seenBefore reports whether the first run emitted a finding of rule id
// on path p at trace's line, which merge then puts before any a later
// run emits (the runs' findings are joined in the order of the runs):
// the run of index asks. A later run's rule asks in the order the first
// run's emitted them, so the answer is looked for a little ahead of
// where the last was found; a key not there is answered no, which only
// costs the finding built in full. The first run is answered no. With
// yes comes the place of the first run's finding among its findings.
func (c *collector) seenBefore(index int, id, p, trace string, line int) (int, bool) {
	e := c.firsts[id]
	if index == 0 || e == nil {
		return 0, false
	}
	k := c.keyOf(p, trace, line)
	from := e.at[index]
	for i := from; i < e.n && i < from+joinAhead; i++ {
		if x := e.key(i); x.path == k.path && x.line == k.line && x.trace == k.trace {
			e.at[index] = i + 1
			return int(x.seq), true
		}
	}
	return 0, false
}

func (c *collector) emit(r *run, f *Finding) {
	if c.at <= 0 {
		r.findings = append(r.findings, f)
		return
	}
	if c.traces == nil {
		c.traces = map[string]bool{}
	}
	c.traces[f.Trace] = true
	if c.sort == nil {
		r.findings = append(r.findings, f)
		if c.n++; c.n <= c.at {
			return
		}
		c.sort = &sorter{c: newCodec(), less: byKey, max: c.at}
		for _, x := range c.runs {
			for _, g := range x.findings {
				c.add(item{g, x.index, x.emitted})
				x.emitted++
			}
			x.findings = nil
		}
		return
	}
	c.add(item{f, r.index, r.emitted})
	r.emitted++
}

func (c *collector) add(it item) {
	if c.err == nil {
		c.rec = c.sort.c.appendItem(c.rec[:0], it)
		c.err = c.sort.add(keyOf(it), c.rec)
	}
}

func (c *collector) close() {
	if c.sort != nil {
		c.sort.close()
	}
}

// spilledMerge is merge over the sorted runs of the temp file: the same
// findings in the same order, written to a file of their own, and
// counted in sum.
func (c *collector) spilledMerge(want []model.Persistence, sum *Summary) (*diskPart, error) {
	if c.err != nil {
		c.sort.close()
		return nil, c.err
	}
	if len(want) == 0 {
		want = []model.Persistence{model.Posix}
	}
	out, err := newSpillFile()
	if err != nil {
		c.sort.close()
		return nil, err
	}
	d := &diskPart{file: out, c: c.sort.c}
	// A finding under no model the user asked for is dropped; one with
	// several traces (a -ff set) is sorted again by trace. Records are
	// joined as they are, without being read into findings: the first of
	// each rule, path, line and trace is kept, with the models of all of them.
	var again *sorter
	if len(c.traces) > 1 {
		again = &sorter{c: d.c, less: byReport, max: c.at}
	}
	final := func(k *key, rec []byte) error {
		off, err := out.put(rec)
		if err != nil {
			return err
		}
		d.offs = append(d.offs, off)
		sum.Count(k.rule.Severity)
		return nil
	}
	seen := map[string]bool{}
	n := 0
	var pending []byte
	var pk key
	flush := func() error {
		if pending == nil {
			return nil
		}
		set := modelSet(pending[1])
		ok := false
		for _, p := range want {
			ok = ok || set.has(p)
		}
		if !ok {
			return nil
		}
		pending[0] |= recJoined
		if !seen[pk.trace] {
			seen[pk.trace] = true
			d.traces = append(d.traces, pk.trace)
		}
		if again != nil {
			n++
			pk.run, pk.seq = 0, n
			return again.add(pk, pending)
		}
		return final(&pk, pending)
	}
	err = c.sort.merge(func(k *key, rec []byte) error {
		if k.run == 0 && k.seq < len(c.joined) {
			rec[1] |= byte(c.joined[k.seq])
		}
		if pending != nil && pk.line == k.line && pk.rule.ID == k.rule.ID && pk.path == k.path && pk.trace == k.trace {
			pending[1] |= rec[1]
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		pending, pk = append(pending[:0], rec...), *k
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil && again != nil {
		err = again.merge(final)
	}
	if err == nil {
		err = out.done()
	}
	if err != nil {
		if again != nil {
			again.close()
		}
		out.close()
		return nil, err
	}
	return d, nil
}
