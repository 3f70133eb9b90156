package check

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"

	"github.com/crashsim/crashsim/internal/tmpfile"
)

// A check of a trace that touches a million files makes more than a
// million findings, about 700 bytes each in memory. Past Options.SpillAt
// of them, findings go to a temporary file in sorted runs, are merged
// back (a k-way merge), joined across the persistence models and counted
// as they stream, and written once more in their final order: a result
// read back one finding at a time (see Result.Each).
//
// Every temp file is unlinked as soon as it is open (O_TMPFILE where the
// filesystem has it), so that nothing is left in $TMPDIR however crashsim
// ends: on an error, on SIGINT or SIGTERM (which end the process by
// default in check), even on SIGKILL. Closing the file frees it.

// DefaultSpillAt is how many findings a command keeps in memory before it
// spills them: 8k findings are about 6 MB as objects, and one sorted run
// of 8k records about 3 MB (a cap of 64k held 170 MB more at the peak of
// a 1 GB trace with 70k findings, for no gain in time).
const DefaultSpillAt = 1 << 13

// tempFile opens a new file in os.TempDir that has no name.
func tempFile() (*os.File, error) { return tmpfile.New("crashsim-findings-") }

// spillFile is one temp file written from start to end and then read.
type spillFile struct {
	f    *os.File
	w    *bufio.Writer
	size int64
}

func newSpillFile() (*spillFile, error) {
	f, err := tempFile()
	if err != nil {
		return nil, err
	}
	return &spillFile{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// put appends one record and returns its offset.
func (s *spillFile) put(rec []byte) (int64, error) {
	// The length goes through the writer's own buffer: a local array
	// passed to Write escaped, an allocation per record.
	n := binary.AppendUvarint(s.w.AvailableBuffer(), uint64(len(rec)))
	k := len(n)
	off := s.size
	if _, err := s.w.Write(n); err != nil {
		return 0, err
	}
	if _, err := s.w.Write(rec); err != nil {
		return 0, err
	}
	s.size += int64(k + len(rec))
	return off, nil
}

// done flushes what put wrote, so that it can be read.
func (s *spillFile) done() error { return s.w.Flush() }

func (s *spillFile) close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// reader reads records of a spill file from an offset on, or at any
// offset (at). Reading on from the last record is served from a large
// buffer. A report reads a spilled result in the order of its problems,
// which takes findings from two places in turn (one in file order, its
// fellows from anywhere in the file): refilling the large buffer at each
// jump read 256 KiB for every record of 200 bytes (33 GB of preads on a
// check of git add with 65k findings). A jump is read through a second,
// small buffer instead, which leaves the large one where it was; the
// large one moves to where the small one goes on reading in order, once
// it has read sideRun records so while the large one was idle.
type reader struct {
	file *spillFile
	br   *bufio.Reader
	dec  decoder
	pos  int64 // offset of the next record br reads; -1: none yet
	end  int64
	// side reads the records at jumps, from sidePos; run counts the
	// records it read in order since br last read one.
	side    *bufio.Reader
	sidePos int64
	run     int
}

// sideSize is the small buffer's size: a page, enough for most records
// whole; sideRun is how many records in a row in the small one make the
// large one move there.
const (
	sideSize = 4 << 10
	sideRun  = 16
)

func newReader(f *spillFile, c *codec, off, end int64, size int) *reader {
	r := &reader{file: f, br: bufio.NewReaderSize(nil, size), dec: decoder{c: c}, pos: -1, end: end, sidePos: -1}
	if off >= 0 {
		r.seek(off)
	}
	return r
}

func (r *reader) seek(off int64) {
	r.br.Reset(io.NewSectionReader(r.file.f, off, r.end-off))
	r.pos = off
}

// at reads the record at off, reading on from a record read before
// without a seek when it follows it. The record is the reader's until
// the next read.
func (r *reader) at(off int64) ([]byte, error) {
	switch {
	case off == r.pos:
	case r.pos >= 0 && off > r.pos && off-r.pos < int64(r.br.Buffered()):
		// Further on in what br holds: skip to it.
		if _, err := r.br.Discard(int(off - r.pos)); err != nil {
			return nil, err
		}
		r.pos = off
	case r.pos < 0:
		r.seek(off)
	default:
		return r.atSide(off)
	}
	r.run = 0
	return r.next()
}

// atSide reads the record at off through the small buffer.
func (r *reader) atSide(off int64) ([]byte, error) {
	if off != r.sidePos {
		if r.side == nil {
			r.side = bufio.NewReaderSize(nil, sideSize)
		}
		r.side.Reset(io.NewSectionReader(r.file.f, off, r.end-off))
		r.sidePos, r.run = off, 0
	}
	rec, n, err := r.dec.readRecord(r.side)
	if err != nil {
		r.sidePos = -1
		return nil, err
	}
	r.sidePos += int64(n)
	if r.run++; r.run >= sideRun {
		// Reading in order here, not there: the large buffer follows.
		r.seek(r.sidePos)
		r.sidePos, r.run = -1, 0
	}
	return rec, nil
}

func (r *reader) next() ([]byte, error) {
	rec, n, err := r.dec.readRecord(r.br)
	if err != nil {
		return nil, err
	}
	r.pos += int64(n)
	return rec, nil
}

// sorter sorts records past what memory may hold: it keeps up to max of
// them in memory, encoded, writes each full batch sorted as a run of the
// temp file, and merges the runs back.
type sorter struct {
	c     *codec
	less  func(a, b *key) bool
	max   int
	arena []byte
	ents  []entry
	order []int32 // flush's scratch: ents in sorted order
	file  *spillFile
	runs  [][2]int64 // start and end of each run
}

// entry is a record held in memory: its key and where it is in arena.
type entry struct {
	k        key
	off, len int
}

func (s *sorter) add(k key, rec []byte) error {
	s.ents = append(s.ents, entry{k, len(s.arena), len(rec)})
	s.arena = append(s.arena, rec...)
	if len(s.ents) >= s.max {
		return s.flush()
	}
	return nil
}

// flush writes the records in memory as one sorted run.
func (s *sorter) flush() error {
	if len(s.ents) == 0 {
		return nil
	}
	if s.file == nil {
		f, err := newSpillFile()
		if err != nil {
			return err
		}
		s.file = f
	}
	// The sort moves indices, not entries, and compares keys where they
	// lie: a comparison of two entries copied to the stack passed their
	// addresses to less, which made each copy escape, two allocations
	// per comparison.
	s.order = s.order[:0]
	for i := range s.ents {
		s.order = append(s.order, int32(i))
	}
	slices.SortStableFunc(s.order, func(i, j int32) int {
		a, b := &s.ents[i].k, &s.ents[j].k
		switch {
		case s.less(a, b):
			return -1
		case s.less(b, a):
			return 1
		}
		return 0
	})
	start := s.file.size
	for _, i := range s.order {
		e := &s.ents[i]
		if _, err := s.file.put(s.arena[e.off : e.off+e.len]); err != nil {
			return err
		}
	}
	clear(s.ents)
	s.ents, s.arena = s.ents[:0], s.arena[:0]
	s.runs = append(s.runs, [2]int64{start, s.file.size})
	return nil
}

// merge yields every record added, in order, with its key, then frees
// the temp file. The record is yield's only until it returns.
func (s *sorter) merge(yield func(k *key, rec []byte) error) error {
	defer s.close()
	if err := s.flush(); err != nil {
		return err
	}
	if s.file == nil {
		return nil
	}
	if err := s.file.done(); err != nil {
		return err
	}
	h := &recHeap{less: s.less}
	for _, run := range s.runs {
		r := newReader(s.file, s.c, run[0], run[1], 32<<10)
		hd := head{r: r}
		if err := hd.read(); errors.Is(err, io.EOF) {
			continue
		} else if err != nil {
			return err
		}
		h.heads = append(h.heads, hd)
	}
	heap.Init(h)
	for len(h.heads) > 0 {
		top := &h.heads[0]
		if err := yield(&top.k, top.rec); err != nil {
			return err
		}
		switch err := top.read(); {
		case errors.Is(err, io.EOF):
			heap.Pop(h)
		case err != nil:
			return err
		default:
			heap.Fix(h, 0)
		}
	}
	return nil
}

func (s *sorter) close() {
	s.file.close()
	s.file, s.ents, s.arena, s.runs = nil, nil, nil, nil
}

// head is a run's next record.
type head struct {
	k   key
	rec []byte
	r   *reader
}

func (h *head) read() error {
	rec, err := h.r.next()
	if err != nil {
		return err
	}
	k, ok := h.r.dec.readKey(rec)
	if !ok {
		return errRecord
	}
	h.k, h.rec = k, rec
	return nil
}

// recHeap orders the runs by their next record; ties go to the earlier
// run, which holds the earlier records, so that the merge is stable.
type recHeap struct {
	heads []head
	less  func(a, b *key) bool
}

func (h *recHeap) Len() int { return len(h.heads) }
func (h *recHeap) Less(i, j int) bool {
	a, b := &h.heads[i].k, &h.heads[j].k
	if h.less(a, b) {
		return true
	}
	if h.less(b, a) {
		return false
	}
	return h.heads[i].r.end < h.heads[j].r.end
}
func (h *recHeap) Swap(i, j int) { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }
func (h *recHeap) Push(x any)    { h.heads = append(h.heads, x.(head)) }
func (h *recHeap) Pop() any {
	x := h.heads[len(h.heads)-1]
	h.heads = h.heads[:len(h.heads)-1]
	return x
}

// byKey orders records as merge joins them: the findings of one rule,
// path, line and trace together, the first emitted (by model run, then by order
// of emission) first.
func byKey(a, b *key) bool {
	if a.line != b.line {
		return a.line < b.line
	}
	if a.rule.ID != b.rule.ID {
		return a.rule.ID < b.rule.ID
	}
	if a.path != b.path {
		return a.path < b.path
	}
	if a.trace != b.trace {
		return a.trace < b.trace
	}
	if a.run != b.run {
		return a.run < b.run
	}
	return a.seq < b.seq
}

// byReport orders joined findings as a report lists them (see merge):
// they are unique by trace, rule, path and line, so this order is total.
func byReport(a, b *key) bool {
	if a.trace != b.trace {
		return a.trace < b.trace
	}
	if a.line != b.line {
		return a.line < b.line
	}
	if a.rule.ID != b.rule.ID {
		return a.rule.ID < b.rule.ID
	}
	return a.path < b.path
}
