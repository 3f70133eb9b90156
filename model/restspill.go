package model

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/crashsim/crashsim/internal/tmpfile"
	"github.com/crashsim/crashsim/internal/varrec"
)

// The records of settled files go to a temp file once every model of the
// check has retired them and a few thousand newer ones wait in memory:
// in memory a settled file then keeps its slot in the name index and its
// place in the file (restSpill.at), 15 to 25 bytes, instead of its record
// (48), its record's block share and its path.
//
// A record goes out only when every model holds it (refs == models):
// nothing then changes it until one of them brings the inode back, which
// reads it back into the table first (restShared.unspill). The file is
// only appended to; a record read back leaves a dead copy behind, which
// its ID's place no longer points at. Which records go is decided as a
// queue with a second chance (restShared.settle): a record waits its turn
// behind restKeep others, and one that came back and retired again while
// it waited (a directory synced after each file made in it) waits another
// turn rather than go to the file and come back at the next event.
//
// Nothing reads the file on the way of a new name: the index keeps 32
// bits of each path's hash (restSlot.hash), and only a path with the
// same hash has its record read, to compare the path itself. Directory
// renames (restBelow) read the whole file, in order.
//
// I/O errors: the first one is kept (Shared.Err) and no record goes to
// the file after it; a write that failed keeps its records in the write
// buffer, where they are still read from, so that the answers stay right
// until the caller sees the error. A record that cannot be read back
// answers as empty (no name, size 0): Shared.Err then says the check is
// wrong, and check.Run fails with it rather than print anything.

// restKeep is how many records of files every model retired wait in
// memory before the oldest go to the file: checks of a few thousand files
// make no temp file, and a file used again soon after it settled comes
// back from memory. A variable for tests, which spill everything.
var restKeep = 4096

// spillBuf is how many bytes are written to the file at once, spillChunk
// how many are read from it at once in order, spillNear how many around a
// record read alone: variables for tests, which write every record at
// once and read a few at a time.
var (
	spillBuf   = 64 << 10
	spillChunk = 64 << 10
	spillNear  = 512
)

const spillAtIDs = 1024 // IDs of a block of restSpill.at

// restSpill is the temp file of settled records, and where each is.
type restSpill struct {
	f   *os.File
	end int64  // bytes written to f
	buf []byte // records not yet written, from end on
	// scratch is where put builds a record before its length is known.
	scratch []byte
	// seq holds the bytes of f last read in order (EachInode by ID,
	// restBelow from start to end), near those last read alone.
	seq, near spillRead
	// at holds, by inode ID in blocks of spillAtIDs, where its record is
	// (a spillLoc), 0 for one not in the file.
	at  [][]spillLoc
	err error
}

// A spillLoc is 1 + a record's offset in the file in units of spillAlign
// bytes: 4 bytes a settled file, for files of records up to 32 GB (some
// 700 million of them). Records start at a multiple of spillAlign.
type spillLoc uint32

const spillAlign = 8

func (w spillLoc) offset() int64 { return int64(w-1) * spillAlign }

// loc returns where the record of inode id is, 0 when it is not in the
// file.
func (sp *restSpill) loc(id int32) spillLoc {
	b := int(id-1) / spillAtIDs
	if b >= len(sp.at) || sp.at[b] == nil {
		return 0
	}
	return sp.at[b][int(id-1)%spillAtIDs]
}

func (sp *restSpill) setLoc(id int32, w spillLoc) {
	b := int(id-1) / spillAtIDs
	for len(sp.at) <= b {
		sp.at = append(sp.at, nil)
	}
	if sp.at[b] == nil {
		if w == 0 {
			return
		}
		sp.at[b] = make([]spillLoc, spillAtIDs)
	}
	sp.at[b][int(id-1)%spillAtIDs] = w
}

// fail keeps the first I/O error.
func (sp *restSpill) fail(err error) {
	if sp.err == nil {
		sp.err = err
	}
}

// open makes the temp file, which never has a name (package tmpfile),
// so that it leaves nothing behind however the process ends.
func (sp *restSpill) open() bool {
	if sp.f != nil || sp.err != nil {
		return sp.err == nil
	}
	f, err := tmpfile.New("crashsim-settled-")
	if err != nil {
		sp.fail(err)
		return false
	}
	sp.f = f
	return true
}

// put appends record rec of inode id with its restMore, returning where
// it is, or 0 when the file cannot take it: then the record stays in
// memory.
func (sp *restSpill) put(id int32, rec *restInode, more *restMore) spillLoc {
	off := sp.end + int64(len(sp.buf))
	if off/spillAlign >= math.MaxUint32 || !sp.open() {
		return 0
	}
	sp.buf, sp.scratch = appendRecord(sp.buf, sp.scratch, id, rec, more)
	for len(sp.buf)%spillAlign != 0 {
		sp.buf = append(sp.buf, 0)
	}
	if len(sp.buf) >= spillBuf {
		sp.flush()
	}
	return spillLoc(off/spillAlign + 1)
}

// flush writes the buffer out; after an error it keeps it, to be read.
func (sp *restSpill) flush() {
	if len(sp.buf) == 0 || sp.err != nil {
		return
	}
	if _, err := sp.f.WriteAt(sp.buf, sp.end); err != nil {
		sp.fail(err)
		return
	}
	sp.end += int64(len(sp.buf))
	sp.buf = sp.buf[:0]
}

// read returns the bytes of the record at off (valid until the next
// read), or nil when it cannot.
func (sp *restSpill) read(off int64) []byte {
	if off >= sp.end {
		return frame(sp.buf, off-sp.end)
	}
	for _, c := range []*spillRead{&sp.seq, &sp.near} {
		if b := c.frame(off); b != nil {
			return b
		}
	}
	// Records read in the order they went out (EachInode, restBelow) are
	// read spillChunk bytes at a time; one read alone (a name used again)
	// is read with a few beside it, rather than spillChunk bytes for one
	// record, and leaves the run read in order where it was.
	c, n := &sp.near, int64(spillNear)
	if d := off - sp.seq.at - int64(len(sp.seq.b)); d >= 0 && d < int64(spillChunk) {
		c, n = &sp.seq, int64(spillChunk)
	}
	if !sp.load(c, off, min(n, sp.end-off)) {
		return nil
	}
	// A record longer than that (a path of thousands of bytes) gets a
	// read of its own size.
	if size, k := binary.Uvarint(c.b); k > 0 && uint64(len(c.b)-k) < size && size <= uint64(sp.end-off) {
		if !sp.load(c, off, int64(k)+int64(size)) {
			return nil
		}
	}
	return frame(c.b, 0)
}

// spillRead holds bytes of the file read from offset at on.
type spillRead struct {
	b  []byte
	at int64
}

// frame returns the record at off if c holds it whole, else nil.
func (c *spillRead) frame(off int64) []byte {
	if off < c.at || off >= c.at+int64(len(c.b)) {
		return nil
	}
	return frame(c.b, off-c.at)
}

// load reads n bytes of the file from off into c.
func (sp *restSpill) load(c *spillRead, off, n int64) bool {
	if int64(cap(c.b)) < n {
		c.b = make([]byte, n)
	}
	c.b, c.at = c.b[:n], off
	if _, err := sp.f.ReadAt(c.b, off); err != nil {
		c.b = c.b[:0]
		sp.fail(err)
		return false
	}
	return true
}

// frame returns the record at off in b, or nil when b holds no whole one
// there.
func frame(b []byte, off int64) []byte {
	if off < 0 || off >= int64(len(b)) {
		return nil
	}
	b = b[off:]
	size, k := binary.Uvarint(b)
	if k <= 0 || size > uint64(len(b)-k) {
		return nil
	}
	return b[k : k+int(size)]
}

// record decodes the record of inode id at w, reporting false (with the
// error kept) when it cannot.
func (sp *restSpill) record(id int32, w spillLoc) (restInode, *restMore, bool) {
	b := sp.read(w.offset())
	got, rec, more, ok := decodeRecord(b)
	if !ok || got != id {
		sp.fail(fmt.Errorf("the record of inode %d in the file of settled records is unreadable", id))
		return restInode{}, nil, false
	}
	return rec, more, true
}

// head reads the path, flags and size of the record of inode id at w,
// leaving the rest; ok is false (with the error kept) when it cannot.
func (sp *restSpill) head(id int32, w spillLoc) (path []byte, flags restFlags, size int64, ok bool) {
	got, path, flags, size, ok := recordHead(sp.read(w.offset()))
	if !ok || got != id {
		sp.fail(fmt.Errorf("the record of inode %d in the file of settled records is unreadable", id))
		return nil, 0, 0, false
	}
	return path, flags, size, true
}

// hasPath reports whether the record of inode id at w names path p.
func (sp *restSpill) hasPath(id int32, w spillLoc, p string) bool {
	path, _, _, ok := sp.head(id, w)
	return ok && string(path) == p
}

// below calls f with the ID, path and flags of every record in the file
// that its ID's place points at and whose path starts with prefix,
// reading the file from start to end.
func (sp *restSpill) below(prefix string, f func(id int32, path []byte, flags restFlags)) {
	for off := int64(0); off < sp.end+int64(len(sp.buf)); {
		b := sp.read(off)
		id, path, flags, _, ok := recordHead(b)
		if !ok {
			sp.fail(fmt.Errorf("the file of settled records is unreadable at byte %d", off))
			return
		}
		if sp.loc(id) == spillLoc(off/spillAlign+1) && len(path) >= len(prefix) && string(path[:len(prefix)]) == prefix {
			f(id, path, flags)
		}
		var head [binary.MaxVarintLen64]byte
		off += int64(binary.PutUvarint(head[:], uint64(len(b))) + len(b))
		off += (spillAlign - off%spillAlign) % spillAlign
	}
}

func (sp *restSpill) close() error {
	var err error
	if sp.f != nil {
		err = sp.f.Close()
	}
	*sp = restSpill{err: sp.err}
	return err
}

// A record in the file is its length (uvarint) and then: the inode ID,
// the path's length and bytes (first, for hasPath), the flags, and the
// record's numbers as varints; with restHasMore, its restMore: a byte of
// what it has (moreBits), its paths, its Refs.
type moreBits uint8

const (
	moreOwnPaths moreBits = 1 << iota
	morePathsNil
	moreSyncRange
	moreLastSync
)

// appendRecord appends record r of inode id, with its restMore, to b,
// building its body in scratch first (returned, to be used again).
func appendRecord(b, scratch []byte, id int32, r *restInode, more *restMore) ([]byte, []byte) {
	e := binary.AppendUvarint(scratch[:0], uint64(uint32(id)))
	e = varrec.AppendString(e, r.lastPath)
	e = append(e, byte(r.flags))
	e = binary.AppendVarint(e, r.size)
	e = binary.AppendVarint(e, int64(r.hist))
	e = binary.AppendUvarint(e, uint64(r.syncSeq))
	e = binary.AppendUvarint(e, uint64(r.syncLine))
	e = binary.AppendUvarint(e, uint64(r.syncEnd))
	e = binary.AppendVarint(e, int64(r.syncPID))
	e = binary.AppendUvarint(e, uint64(r.syncKind))
	if r.flags&restHasMore != 0 {
		e = appendMore(e, more)
	}
	b = binary.AppendUvarint(b, uint64(len(e)))
	return append(b, e...), e
}

func appendMore(b []byte, more *restMore) []byte {
	var bits moreBits
	if more.ownPaths {
		bits |= moreOwnPaths
	}
	if more.paths == nil {
		bits |= morePathsNil
	}
	if more.syncRange != nil {
		bits |= moreSyncRange
	}
	if more.lastSync != nil {
		bits |= moreLastSync
	}
	b = append(b, byte(bits))
	b = binary.AppendUvarint(b, uint64(len(more.paths)))
	for _, p := range more.paths {
		b = varrec.AppendString(b, p)
	}
	for _, r := range []*Ref{more.syncRange, more.lastSync} {
		if r != nil {
			b = binary.AppendVarint(b, int64(r.Seq))
			b = varrec.AppendString(b, r.File)
			b = binary.AppendVarint(b, int64(r.Line))
			b = binary.AppendVarint(b, int64(r.EndLine))
			b = binary.AppendVarint(b, int64(r.PID))
			b = varrec.AppendString(b, r.Syscall)
		}
	}
	return b
}

// recordHead reads the ID, path, flags and size of record b.
func recordHead(b []byte) (id int32, path []byte, flags restFlags, size int64, ok bool) {
	d := varrec.Reader{B: b}
	id = int32(uint32(d.Uvarint()))
	path = d.Bytes()
	flags = restFlags(d.Byte())
	size = d.Varint()
	return id, path, flags, size, !d.Bad && b != nil
}

func decodeRecord(b []byte) (int32, restInode, *restMore, bool) {
	d := varrec.Reader{B: b}
	var r restInode
	id := int32(uint32(d.Uvarint()))
	r.lastPath = string(d.Bytes())
	r.flags = restFlags(d.Byte())
	r.size = d.Varint()
	r.hist = int32(d.Varint())
	r.syncSeq = uint32(d.Uvarint())
	r.syncLine = uint32(d.Uvarint())
	r.syncEnd = uint32(d.Uvarint())
	r.syncPID = int32(d.Varint())
	r.syncKind = uint16(d.Uvarint())
	var more *restMore
	if r.flags&restHasMore != 0 {
		more = &restMore{}
		bits := moreBits(d.Byte())
		more.ownPaths = bits&moreOwnPaths != 0
		n := d.Uvarint()
		if n > uint64(len(d.B)) {
			return 0, restInode{}, nil, false
		}
		if bits&morePathsNil == 0 {
			more.paths = make([]string, 0, n)
		}
		for range n {
			more.paths = append(more.paths, string(d.Bytes()))
		}
		for _, at := range []struct {
			bit moreBits
			ref **Ref
		}{{moreSyncRange, &more.syncRange}, {moreLastSync, &more.lastSync}} {
			if bits&at.bit != 0 {
				ref := &Ref{Seq: int(d.Varint()), File: string(d.Bytes())}
				ref.Line, ref.EndLine, ref.PID = int(d.Varint()), int(d.Varint()), int(d.Varint())
				ref.Syscall = string(d.Bytes())
				*at.ref = ref
			}
		}
	}
	return id, r, more, !d.Bad && len(d.B) == 0 && b != nil
}

// Err returns the first error of the temp file that the models sharing s
// keep settled files in: once there is one, what they answered may be
// wrong.
func (s *Shared) Err() error {
	if err := s.rest.spill.err; err != nil {
		return fmt.Errorf("cannot keep settled files in a temp file in %s (set TMPDIR to a directory with room): %w", os.TempDir(), err)
	}
	return nil
}

// Close lets go of that temp file: the models sharing s must not be used
// after.
func (s *Shared) Close() error { return s.rest.spill.close() }
