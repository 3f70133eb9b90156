package check

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
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
// spills them: 64k findings are about 45 MB.
const DefaultSpillAt = 1 << 16

// noTmpfile makes tempFile take the path of filesystems without
// O_TMPFILE, for tests.
var noTmpfile bool

// tempFile opens a new file in os.TempDir that has no name.
func tempFile() (*os.File, error) {
	dir := os.TempDir()
	if !noTmpfile {
		f, err := os.OpenFile(dir, unix.O_TMPFILE|os.O_RDWR, 0o600)
		if err == nil {
			return f, nil
		}
	}
	// No O_TMPFILE on this filesystem: a random O_EXCL name, removed at
	// once.
	f, err := os.CreateTemp(dir, "crashsim-findings-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// spillFile is one temp file written from start to end and then read.
type spillFile struct {
	f    *os.File
	w    *bufio.Writer
	size int64
	rec  []byte
}

func newSpillFile() (*spillFile, error) {
	f, err := tempFile()
	if err != nil {
		return nil, err
	}
	return &spillFile{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// put appends one record and returns its offset.
func (s *spillFile) put(c *codec, it item) (int64, error) {
	s.rec = c.appendItem(s.rec[:0], it)
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(s.rec)))
	off := s.size
	if _, err := s.w.Write(n[:k]); err != nil {
		return 0, err
	}
	if _, err := s.w.Write(s.rec); err != nil {
		return 0, err
	}
	s.size += int64(k + len(s.rec))
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

// reader reads records of a spill file from an offset on.
type reader struct {
	file *spillFile
	br   *bufio.Reader
	dec  decoder
	pos  int64 // offset of the next record br reads; -1: none yet
	end  int64
}

func newReader(f *spillFile, c *codec, off, end int64, size int) *reader {
	r := &reader{file: f, br: bufio.NewReaderSize(nil, size), dec: decoder{c: c}, pos: -1, end: end}
	if off >= 0 {
		r.seek(off)
	}
	return r
}

func (r *reader) seek(off int64) {
	r.br.Reset(io.NewSectionReader(r.file.f, off, r.end-off))
	r.pos = off
}

// at reads the record at off, reading on from the last one without a
// seek when it follows it.
func (r *reader) at(off int64) (item, error) {
	if off != r.pos {
		r.seek(off)
	}
	return r.next()
}

func (r *reader) next() (item, error) {
	it, n, err := r.dec.readItem(r.br)
	if err != nil {
		return item{}, err
	}
	r.pos += int64(n)
	return it, nil
}

// sorter sorts items past what memory may hold: it keeps up to max in
// memory, writes each full batch sorted as a run of the temp file, and
// merges the runs back.
type sorter struct {
	c    *codec
	less func(a, b item) bool
	max  int
	buf  []item
	file *spillFile
	runs [][2]int64 // start and end of each run
}

func (s *sorter) add(it item) error {
	s.buf = append(s.buf, it)
	if len(s.buf) >= s.max {
		return s.flush()
	}
	return nil
}

// flush writes the items in memory as one sorted run.
func (s *sorter) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	if s.file == nil {
		f, err := newSpillFile()
		if err != nil {
			return err
		}
		s.file = f
	}
	slices.SortStableFunc(s.buf, func(a, b item) int {
		switch {
		case s.less(a, b):
			return -1
		case s.less(b, a):
			return 1
		}
		return 0
	})
	start := s.file.size
	for i, it := range s.buf {
		if _, err := s.file.put(s.c, it); err != nil {
			return err
		}
		s.buf[i] = item{}
	}
	s.buf = s.buf[:0]
	s.runs = append(s.runs, [2]int64{start, s.file.size})
	return nil
}

// merge yields every item added, in order, then frees the temp file.
func (s *sorter) merge(yield func(item) error) error {
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
	h := &itemHeap{less: s.less}
	for _, run := range s.runs {
		r := newReader(s.file, s.c, run[0], run[1], 32<<10)
		it, err := r.next()
		if errors.Is(err, io.EOF) {
			continue
		}
		if err != nil {
			return err
		}
		h.heads = append(h.heads, head{it, r})
	}
	heap.Init(h)
	for len(h.heads) > 0 {
		top := &h.heads[0]
		if err := yield(top.it); err != nil {
			return err
		}
		it, err := top.r.next()
		switch {
		case errors.Is(err, io.EOF):
			heap.Pop(h)
		case err != nil:
			return err
		default:
			top.it = it
			heap.Fix(h, 0)
		}
	}
	return nil
}

func (s *sorter) close() {
	s.file.close()
	s.file, s.buf, s.runs = nil, nil, nil
}

type head struct {
	it item
	r  *reader
}

// itemHeap orders the runs by their next item; ties go to the earlier
// run, which holds the earlier items, so that the merge is stable.
type itemHeap struct {
	heads []head
	less  func(a, b item) bool
}

func (h *itemHeap) Len() int { return len(h.heads) }
func (h *itemHeap) Less(i, j int) bool {
	a, b := h.heads[i].it, h.heads[j].it
	if h.less(a, b) {
		return true
	}
	if h.less(b, a) {
		return false
	}
	return h.heads[i].r.end < h.heads[j].r.end
}
func (h *itemHeap) Swap(i, j int) { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }
func (h *itemHeap) Push(x any)    { h.heads = append(h.heads, x.(head)) }
func (h *itemHeap) Pop() any {
	x := h.heads[len(h.heads)-1]
	h.heads = h.heads[:len(h.heads)-1]
	return x
}

// byKey orders items as merge joins them: the findings of one rule, path
// and line together, the first emitted (by model run, then by order of
// emission) first.
func byKey(a, b item) bool {
	fa, fb := a.f, b.f
	if fa.Line != fb.Line {
		return fa.Line < fb.Line
	}
	if c := strings.Compare(fa.Rule.ID, fb.Rule.ID); c != 0 {
		return c < 0
	}
	if c := strings.Compare(fa.Path, fb.Path); c != 0 {
		return c < 0
	}
	if a.run != b.run {
		return a.run < b.run
	}
	return a.seq < b.seq
}

// byReport orders joined findings as a report lists them (see merge):
// they are unique by rule, path and line, so this order is total.
func byReport(a, b item) bool {
	fa, fb := a.f, b.f
	if fa.Trace != fb.Trace {
		return fa.Trace < fb.Trace
	}
	if fa.Line != fb.Line {
		return fa.Line < fb.Line
	}
	if fa.Rule.ID != fb.Rule.ID {
		return fa.Rule.ID < fb.Rule.ID
	}
	return fa.Path < fb.Path
}
