package check

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// overwriteInPlace finds files whose data on disk is overwritten by more
// than one write between two barriers, with nothing made durable first
// that could put it right after a crash.
//
// A window of a file is the run of its writes between two barriers that
// make its data durable (fsync, fdatasync or msync of it, sync, syncfs, a
// write of its own durable on return): the model's LastSync of the file
// opens it. A write overwrites data on disk when it covers bytes below
// both the size the program saw and the size on disk. Two or more such
// writes pending at once can persist in any subset, and in 4096-byte
// pieces, so a crash can leave the file part old, part new.
//
// The window is guarded when, after the barrier that opened it and before
// its first overwrite, some other data became durable: another file's
// writes made durable by a sync (a rollback journal, a write-ahead log),
// or a write durable on return to any file, this one included (a commit
// record such as LMDB's meta page, written O_DSYNC, at the start of the
// window), or a copy kept in the file itself: the barrier that opened the
// window made durable writes of the file elsewhere (InnoDB's doublewrite
// buffer in ibdata1: the pages are written there, synced, and only then
// over their places). That copy is asked about write by write: an
// overwrite is covered when it writes none of the ranges the copy holds,
// the copy has bytes left for it that no overwrite before it took, and
// one run of the copy's writes can hold the overwrite's new bytes: where
// the trace shows the bytes of both, they agree (see holds). Bytes synced
// before that are not the new ones (a log's previous record, written
// just before the next one goes into the zeros after it) are no copy:
// recovery cannot redo the overwrite from them.
// A window whose overwrites the copy covers every one of is guarded; one
// overwrite it does not cover, among two or more, can persist or not
// whatever recovery puts right of the others, and the window is
// reported. A program that writes such a record first can repair or
// ignore a torn update; one that does not cannot, which is the mistake.
type overwriteInPlace struct {
	open map[*model.Inode]*window
	seen map[*model.Inode]bool
	// since is, of each file written since its last barrier, the ranges
	// those writes wrote; kept is what the file's last sync that had
	// pending data made durable of it, which a window opened at that
	// sync may use as its copy.
	since map[int]ranges // by inode ID: the model may retire an inode
	kept  map[int]ranges
	// The last data made durable by a sync, on two different inodes (a
	// window of one inode asks about the other), and the last write
	// durable on return, on any inode.
	synced      [2]durableAt
	durableSeq  int
	durableSeen bool
	// data reads the bytes of writes from the trace, to tell whether a
	// copy holds an overwrite's new bytes. cached is how many of them
	// the open windows keep (window.shown), at most maxCachedBytes: past
	// that a copy's bytes are read again each time they are asked, so
	// that many windows open at once cannot hold a trace's written bytes
	// in memory.
	data   *parser.DataReader
	cached int64
}

// ranges is the bytes of a file that writes between two of its barriers
// wrote: apart, sorted and merged where they touch, bytes their total,
// runs the same writes with where the trace holds their bytes, and (in
// kept) the seq of the sync that made them durable. They are
// each range as written, never one span from the first byte to the last:
// a page written beside a doublewrite batch must not make the batch's
// copy seem to lie over the pages it keeps. Past maxRanges the smallest
// is dropped: the copy a window can count on is the large ranges, and a
// copy smaller than it is covers fewer overwrites, never more.
type ranges struct {
	r     []byteRange
	bytes int64
	runs  []writeRun
	seq   int
}

type byteRange struct{ lo, hi int64 }

// writeRun is writes that followed one another in a file, each starting
// where the one before ended: [lo,hi), and where the trace holds the
// bytes of its first maxRunChunks pieces, in order (past them its bytes
// are unknown: a copy is compared by its first bytes, maxCopyBytes).
type writeRun struct {
	lo, hi int64
	chunks []model.Chunk
}

const maxRunChunks = 64

// addRun notes a write of n bytes at off whose bytes the trace holds in
// chunks. A write that starts where the last run ends extends it; one
// over a run's bytes replaces that run (what is on disk there is no
// longer what it wrote).
func (rs *ranges) addRun(off, n int64, chunks []model.Chunk) {
	if n <= 0 {
		return
	}
	if k := len(rs.runs); k > 0 && rs.runs[k-1].hi == off {
		last := rs.runs[k-1]
		rs.runs = rs.runs[:k-1]
		rs.dropRuns(off, n)
		last.hi = off + n
		last.chunks = append(last.chunks, chunks[:min(len(chunks), maxRunChunks-len(last.chunks))]...)
		rs.runs = append(rs.runs, last)
		return
	}
	rs.dropRuns(off, n)
	rs.runs = append(rs.runs, writeRun{lo: off, hi: off + n, chunks: slices.Clone(chunks[:min(len(chunks), maxRunChunks)])})
	if len(rs.runs) > maxRanges {
		k := 0
		for x := range rs.runs {
			if rs.runs[x].hi-rs.runs[x].lo < rs.runs[k].hi-rs.runs[k].lo {
				k = x
			}
		}
		rs.runs = slices.Delete(rs.runs, k, k+1)
	}
}

// dropRuns takes out every run that [off,off+n) writes over.
func (rs *ranges) dropRuns(off, n int64) {
	rs.runs = slices.DeleteFunc(rs.runs, func(x writeRun) bool { return x.lo < off+n && off < x.hi })
}

// maxRanges is how many ranges a file's writes between two barriers keep.
const maxRanges = 64

// add notes a write of n bytes at off.
func (rs *ranges) add(off, n int64) {
	if n <= 0 {
		return
	}
	lo, hi := off, off+n
	if k := len(rs.r); k > 0 && rs.r[k-1].lo <= lo && lo <= rs.r[k-1].hi {
		// The common case: an append to the last range, or a rewrite in it.
		if last := &rs.r[k-1]; hi > last.hi {
			rs.bytes += hi - last.hi
			last.hi = hi
		}
		return
	}
	// The ranges that touch [lo,hi) are r[i:j]; they become one.
	i, _ := slices.BinarySearchFunc(rs.r, lo, func(b byteRange, x int64) int { return cmpInt(b.hi, x) })
	j := i
	for j < len(rs.r) && rs.r[j].lo <= hi {
		lo, hi = min(lo, rs.r[j].lo), max(hi, rs.r[j].hi)
		rs.bytes -= rs.r[j].hi - rs.r[j].lo
		j++
	}
	rs.r = slices.Replace(rs.r, i, j, byteRange{lo, hi})
	rs.bytes += hi - lo
	if len(rs.r) > maxRanges {
		k := 0
		for x := range rs.r {
			if rs.r[x].hi-rs.r[x].lo < rs.r[k].hi-rs.r[k].lo {
				k = x
			}
		}
		rs.bytes -= rs.r[k].hi - rs.r[k].lo
		rs.r = slices.Delete(rs.r, k, k+1)
	}
}

// cut takes [off,off+n) out of the ranges, and returns how many of their
// bytes it took.
func (rs *ranges) cut(off, n int64) int64 {
	lo, hi := off, off+n
	var took int64
	out := rs.r[:0:0]
	for _, b := range rs.r {
		if b.hi <= lo || hi <= b.lo {
			out = append(out, b)
			continue
		}
		took += min(b.hi, hi) - max(b.lo, lo)
		if b.lo < lo {
			out = append(out, byteRange{b.lo, lo})
		}
		if hi < b.hi {
			out = append(out, byteRange{hi, b.hi})
		}
	}
	if took > 0 {
		rs.r = out
		rs.bytes -= took
	}
	return took
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type durableAt struct {
	id  int // the inode's ID (0: none), which a retired inode keeps where it need not be the same object (model.Model.Pin)
	seq int
}

// window is the overwrites of one file since its last barrier.
type window struct {
	start   int // the seq of the barrier that opened it; -1 before any
	n       int
	first   model.Ref
	second  model.Ref
	last    model.Ref
	guarded bool
	state   *State // a crash state right after the second overwrite
	// copy is what the barrier that opened the window made durable of
	// the file, less what the window's overwrites wrote over; hasCopy
	// says there was one, used is how many of its bytes the overwrites
	// it covers took. bare counts the overwrites it does not cover (all
	// of them without a copy), firstBare is the first of those.
	copy      ranges
	hasCopy   bool
	used      int64
	bare      int
	firstBare model.Ref
	// shown is, of each of the copy's runs, the first bytes of it the
	// trace shows, read when an overwrite first asks (read says so).
	shown [][]byte
	read  []bool
	// unlike counts the overwrites the copy had room for apart from them
	// but not their bytes.
	unlike int
	// zeros counts the overwrites that went over zeros on disk: space a
	// preallocation gave the file and no write filled before its last
	// sync (model.Inode.DurableZerosFrom).
	zeros int
	// pages is how many pages of data on disk the window's first
	// overwrite covers, and bytes its length: one write over two pages
	// or more reaches the disk page by page, and can be torn alone.
	pages int
	bytes int64
	// past is how many bytes of the first overwrite went past the data
	// on disk (onDisk, its overwritten part): the blocks it wrote there
	// and the file's new size reach the disk apart from the ones it
	// overwrote, so one write within a page can be torn at the old end
	// (brz rewrites its dirstate with one longer write).
	past, onDisk int64
}

// torn reports whether w's overwrites can persist in part: two of them,
// or one over more than one page, or one over data on disk and past it.
func (w *window) torn() bool { return w.n >= 2 || w.pages >= 2 || w.past > 0 }

// pastOnly reports whether w is torn only by one write within a page over
// the data on disk and past its end.
func (w *window) pastOnly() bool { return w.n == 1 && w.pages < 2 && w.past > 0 }

func (o *overwriteInPlace) Observe(r *run, e *model.Effect) {
	if o.open == nil {
		o.open = map[*model.Inode]*window{}
		o.seen = map[*model.Inode]bool{}
		o.since = map[int]ranges{}
		o.kept = map[int]ranges{}
	}
	switch e.Kind {
	case model.EffWrite:
		o.write(r, e)
	case model.EffFileSync:
		if e.Inode == nil {
			return
		}
		o.closeLater(r, e.Inode, e.Ref)
		if e.HadPending() {
			o.syncedNow(e.Inode, e.Ref.Seq)
			if s, ok := o.since[e.Inode.ID]; ok {
				s.seq = e.Ref.Seq
				o.kept[e.Inode.ID] = s
			}
		}
		delete(o.since, e.Inode.ID)
	case model.EffSyncAll:
		// Every file's data is durable: every window closes, and none
		// that opens at this barrier is guarded by it. A syncfs makes
		// durable only the files on its filesystem (model.Effect.FS).
		for _, ino := range o.opened() {
			if r.m.Covers(e, ino) {
				o.closeLater(r, ino, e.Ref)
			}
		}
		if e.FS == "" {
			clear(o.since)
			clear(o.kept)
		} else {
			for id := range o.since {
				if r.m.Covers(e, r.m.Inode(id)) {
					delete(o.since, id)
				}
			}
			for id := range o.kept {
				if r.m.Covers(e, r.m.Inode(id)) {
					delete(o.kept, id)
				}
			}
		}
	}
}

// syncedNow notes that a sync made ino's data durable at seq.
func (o *overwriteInPlace) syncedNow(ino *model.Inode, seq int) {
	if o.synced[0].id != ino.ID {
		o.synced[1] = o.synced[0]
	}
	o.synced[0] = durableAt{ino.ID, seq}
}

// startOf is the seq of the barrier that opened ino's window.
func startOf(ino *model.Inode) int {
	if ino.LastSync == nil {
		return -1
	}
	return ino.LastSync.Seq
}

// guarded reports whether data other than ino's own became durable after
// ino's window opened at start.
func (o *overwriteInPlace) guarded(ino *model.Inode, start int) bool {
	if o.durableSeen && o.durableSeq >= start {
		return true
	}
	for _, s := range o.synced {
		if s.id != 0 && s.id != ino.ID && s.seq > start {
			return true
		}
	}
	return false
}

func (o *overwriteInPlace) write(r *run, e *model.Effect) {
	ino, d := e.Inode, e.Data
	if ino == nil || d == nil || d.Kind != model.DataWrite {
		return
	}
	if ino.LastSync != nil && ino.LastSync.Seq == e.Ref.Seq {
		// Durable when it returned (O_SYNC, O_DSYNC, RWF_DSYNC): a
		// barrier for this file, and data made durable for every other.
		// It can be torn itself while the call runs.
		o.tornDuring(r, e)
		o.closeLater(r, ino, e.Ref)
		o.durableSeq, o.durableSeen = e.Ref.Seq, true
		delete(o.since, ino.ID)
		return
	}
	held := heldBefore(ino, d)
	if d.Off >= 0 && !ino.Dir && (ino.LastSync != nil || d.Off < held) {
		// Only a file synced before, or a write over data it holds, can
		// be a copy a window uses: a check of many new files, each
		// written once, keeps nothing here.
		rs := o.since[ino.ID]
		rs.add(d.Off, d.Len)
		rs.addRun(d.Off, d.Len, d.Chunks())
		o.since[ino.ID] = rs
	}
	if ino.Dir || ino.Unsure || ino.Path == "" || o.seen[ino] || d.Off < 0 || held <= 0 {
		return
	}
	onDisk, pages, past, ok := over(d, held, ino.DurableSize)
	if !ok {
		return // past what is on disk: an append, not an overwrite
	}
	start := startOf(ino)
	w := o.open[ino]
	if w == nil || w.start != start {
		o.release(w)
		w = &window{start: start, guarded: o.guarded(ino, start)}
		if k, ok := o.kept[ino.ID]; ok && k.seq == start && k.bytes > 0 {
			w.copy, w.hasCopy = k, true
			w.copy.r = slices.Clone(k.r) // cut below must not change kept
			w.copy.runs = slices.Clone(k.runs)
			w.shown, w.read = make([][]byte, len(k.runs)), make([]bool, len(k.runs))
		}
		r.m.Pin(ino)
		o.open[ino] = w
	}
	w.n++
	w.last = e.Ref
	if w.n == 1 {
		w.first = e.Ref
		w.pages, w.bytes, w.past, w.onDisk = pages, d.Len, past, onDisk
	}
	if z, ok := ino.DurableZerosFrom(); ok && d.Off >= z {
		w.zeros++
	}
	// Covered: it writes none of the copy, the copy has bytes left for
	// it, and a run of the copy can hold its new bytes. One that writes
	// over the copy shrinks it, and is not.
	covered := false
	if w.hasCopy {
		hit := w.copy.cut(d.Off, d.Len) > 0
		if hit {
			o.dropCopyRuns(w, d.Off, d.Len)
		}
		if covered = !hit && w.copy.bytes-w.used >= d.Len && o.copyHolds(w, d); covered {
			w.used += d.Len
		} else if !hit && w.copy.bytes-w.used >= d.Len {
			w.unlike++
		}
	}
	if !covered {
		if w.bare++; w.bare == 1 {
			w.firstBare = e.Ref
		}
	}
	if w.n == 2 || w.n == 1 && w.torn() {
		// From here a crash can leave the file torn: the second
		// overwrite, or a first one over several pages.
		w.second = e.Ref
		if !w.guarded {
			// A crash right after the second overwrite can keep one
			// and not the other: the state that shows the mix.
			w.state = demonstrateFrom(r.m, e.Ref, ino.Path, r.m.Crash(ino.Path, 256), []model.Outcome{model.Torn})
		}
	}
}

// tornInCall is what overwrite-in-place says of the write of a finding
// about a write durable on return that a crash can tear while the call
// runs: a state no crash point between calls shows, which explore cannot
// build.
const tornInCall = "overwrite of data on disk: a crash before it returns can keep part of it"

// TornInsideCall reports whether f is such a finding: one about a state
// no crash point shows.
func TornInsideCall(f *Finding) bool {
	return f.Rule != nil && f.Rule.ID == OverwriteInPlace && len(f.Related) > 0 && f.Related[0].What == tornInCall
}

// tornDuring reports a write durable on return that went over two pages
// or more of data on disk, unguarded: the call writes its pages to the
// disk one by one before it returns, so a crash while it runs can keep
// some of them and not others, as a crash before the fsync that follows
// a plain write can. Guarded as a window is (guarded): data of another
// file made durable since this file's last barrier (a journal), a write
// durable on return since then (a commit record), or a copy the last
// barrier made durable elsewhere in the file (a doublewrite buffer).
// No crash point of the model falls inside a call, so the finding shows
// no crash state.
func (o *overwriteInPlace) tornDuring(r *run, e *model.Effect) {
	ino, d := e.Inode, e.Data
	durable, last, ok := r.m.DurableWriteBefore()
	if !ok || ino.Dir || ino.Unsure || ino.Path == "" || o.seen[ino] || d.Off < 0 {
		return
	}
	onDisk, pages, past, ok := over(d, heldBefore(ino, d), durable)
	if !ok || pages < 2 && past == 0 || o.guarded(ino, last) {
		return
	}
	if k, ok := o.kept[ino.ID]; ok && k.seq == last && k.bytes > 0 {
		return
	}
	o.seen[ino] = true
	r.m.Pin(ino)
	at, n := e.Ref, d.Len
	over := fmt.Sprintf("%d pages of data already on disk", pages)
	if pages < 2 {
		over = fmt.Sprintf("the %d bytes of data already on disk and %d past them", onDisk-d.Off, past)
	}
	r.later(func() {
		p := ino.Name()
		f := newFinding(OverwriteInPlace, p, at, fmt.Sprintf("%s: one write of %d bytes, durable when it returned (O_SYNC, O_DSYNC or RWF_DSYNC), went over %s, with no journal or log made durable first: the call writes its blocks and the file's size to the disk apart before it returns, so a crash while it runs can keep some of them and not others, leaving %s torn, some bytes new and some still old; make the change durable in a journal (or in a new file renamed over this one) before overwriting in place",
			base(p), n, over, base(p)))
		f.relate(at, tornInCall)
		r.emit(f)
	})
}

// Close closes the trace files the rule read written bytes from.
func (o *overwriteInPlace) Close() error {
	if o.data == nil {
		return nil
	}
	return o.data.Close()
}

// over says what write d did to the data on disk, which is what the file
// held just before it (held) and no more than its durable size (durable,
// -1: unknown): onDisk, that data's end; pages, how many pages of it d
// wrote over; past, how many bytes d wrote beyond it. ok is false when d
// wrote over none of it (an append).
func over(d *model.DataOp, held, durable int64) (onDisk int64, pages int, past int64, ok bool) {
	onDisk = held
	if durable >= 0 {
		onDisk = min(onDisk, durable)
	}
	if d.Off >= onDisk {
		return onDisk, 0, 0, false
	}
	end := min(d.Off+d.Len, onDisk)
	return onDisk, int((end-1)/page - d.Off/page + 1), d.Off + d.Len - end, true
}

// heldBefore is how many bytes the file is known to have held just
// before the write d: the size the model gave it, or when the model does
// not know the size, what reads of the file showed it held on disk (a
// program that reads its pages before rewriting them, recorded without
// a stat). 0 when neither says.
func heldBefore(ino *model.Inode, d *model.DataOp) int64 {
	if d.SizeBefore >= 0 {
		return d.SizeBefore
	}
	return ino.DurableAtLeast()
}

// dropCopyRuns takes out of w's copy the runs an overwrite at off of n
// bytes wrote over, with what was read of them.
func (o *overwriteInPlace) dropCopyRuns(w *window, off, n int64) {
	for i := 0; i < len(w.copy.runs); {
		if x := w.copy.runs[i]; x.lo < off+n && off < x.hi {
			w.copy.runs = slices.Delete(w.copy.runs, i, i+1)
			o.cached -= int64(len(w.shown[i]))
			w.shown = slices.Delete(w.shown, i, i+1)
			w.read = slices.Delete(w.read, i, i+1)
			continue
		}
		i++
	}
}

// maxCopyBytes is how many of a copy run's first bytes are compared,
// maxProbeBytes how many of an overwrite's: past them the bytes count as
// unknown, as bytes strace cut short do.
const (
	maxCopyBytes  = 1 << 20
	maxProbeBytes = 512
)

// maxCachedBytes bounds the copy bytes the open windows keep between
// overwrites (see overwriteInPlace.cached).
var maxCachedBytes int64 = 64 << 20

// copyHolds reports whether one of the runs of w's copy can hold the new
// bytes of the overwrite d: it is as long as d, and the bytes the trace
// shows of both agree somewhere in it. Where the trace shows too little
// to tell (strace's -s cut the strings, a copy made in the kernel), a run
// long enough can hold them.
func (o *overwriteInPlace) copyHolds(w *window, d *model.DataOp) bool {
	var probe []byte
	for i, x := range w.copy.runs {
		if x.hi-x.lo < d.Len {
			continue
		}
		if probe == nil {
			probe = o.shownBytes(d.Chunks(), maxProbeBytes)
		}
		shown := w.shown[i]
		if !w.read[i] {
			shown = o.shownBytes(x.chunks, maxCopyBytes)
			if o.cached+int64(len(shown)) <= maxCachedBytes {
				w.shown[i], w.read[i] = shown, true
				o.cached += int64(len(shown))
			}
		}
		if holds(shown, x.hi-x.lo, probe, d.Len) {
			return true
		}
	}
	return false
}

// release takes w's kept copy bytes off the cache's count, as w is
// dropped; w nil is no window.
func (o *overwriteInPlace) release(w *window) {
	if w == nil {
		return
	}
	for _, b := range w.shown {
		o.cached -= int64(len(b))
	}
	w.shown = nil
}

// shownBytes is the first bytes of chunks the trace shows, at most limit
// of them: up to the first chunk it holds no bytes of, or cut short, or
// that cannot be read (a trace not in a file).
func (o *overwriteInPlace) shownBytes(chunks []model.Chunk, limit int64) []byte {
	out := []byte{}
	for _, c := range chunks {
		if int64(len(out)) >= limit || !c.Ref.Valid() {
			break
		}
		if o.data == nil {
			o.data = parser.NewDataReader()
		}
		want := min(c.Len, limit-int64(len(out)))
		b, err := o.data.Bytes(c.Ref, want)
		if err != nil {
			break
		}
		out = append(out, b[:min(int64(len(b)), want)]...)
		if int64(len(b)) < want || c.Ref.Truncated {
			break
		}
	}
	return out
}

// holds reports whether a run of size bytes, of which the trace shows
// the first ones, copy, can hold at some offset the n bytes of a write
// of which it shows the first ones, probe: at some offset from which n
// bytes fit in the run, the bytes shown of both agree.
func holds(copy []byte, size int64, probe []byte, n int64) bool {
	last := size - n // the last offset the write's bytes fit at
	if last < 0 {
		return false
	}
	if int64(len(copy)) <= last || len(probe) == 0 {
		return true // at len(copy) (or with nothing shown), nothing to compare
	}
	k := int(last)
	// The probe wholly within what is shown, at an offset up to k.
	if i := bytes.Index(copy[:min(len(copy), k+len(probe))], probe); i >= 0 {
		return true
	}
	// The probe running past what is shown: its head agrees with the tail.
	for j := max(0, len(copy)-len(probe)+1); j <= k; j++ {
		if bytes.Equal(copy[j:], probe[:len(copy)-j]) {
			return true
		}
	}
	return false
}

// close ends ino's window at barrier at (a zero Ref: the end of the
// trace). It returns the report of a window that overwrote data on disk
// more than once, unguarded, to run once the trace is read (so that the
// finding names the file as it is called at the end); nil otherwise.
func (o *overwriteInPlace) close(ino *model.Inode, at model.Ref) func(r *run) {
	w := o.open[ino]
	if w == nil {
		return nil
	}
	delete(o.open, ino)
	o.release(w)
	if !w.torn() || w.bare == 0 || w.guarded || o.seen[ino] {
		return nil
	}
	o.seen[ino] = true
	end := at
	ended := at.Syscall != ""
	return func(r *run) {
		p := ino.Name()
		until := "and no sync followed"
		if ended {
			until = fmt.Sprintf("before the %s at line %d", end.Syscall, end.Line)
		}
		uncovered := ""
		switch {
		case w.hasCopy && w.bare == w.n && w.unlike > 0:
			uncovered = " (what its last sync made durable elsewhere in the file holds none of their new bytes: no copy recovery could redo them from)"
		case w.hasCopy && w.bare < w.n:
			uncovered = fmt.Sprintf(" (the copy synced elsewhere in the file covers %d of them, not the rest)", w.n-w.bare)
		}
		var msg string
		if w.pastOnly() {
			// One write over the data on disk and past its end, within
			// a page: the new size and blocks reach the disk apart from
			// the bytes it overwrote.
			msg = fmt.Sprintf("%s: one write of %d bytes went over the %d bytes of data already on disk and %d past them %s%s, with no journal or log made durable first: the kernel writes the overwritten bytes, and the new size with the blocks past the old end, back apart, so a crash in between can keep one and not the other, leaving %s torn, new bytes cut at the old end or old ones followed by zeros; make the change durable in a journal (or in a new file renamed over this one) before overwriting in place",
				base(p), w.bytes, w.onDisk, w.past, until, uncovered, base(p))
		} else if w.n == 1 {
			// One write over several pages: the kernel writes its pages
			// back one by one, in any order.
			what, leaves := "data already on disk", "some blocks new and some still old"
			if w.zeros == 1 {
				what, leaves = "zeros on disk (space preallocated and synced, not yet written)", "new bytes beside zeros where the rest should be"
			}
			msg = fmt.Sprintf("%s: one write of %d bytes went over %d pages of %s %s%s, with no journal or log made durable first: the kernel writes its pages back one by one, so a crash in between can keep some of them and not others, leaving %s torn, %s; make the change durable in a journal (or in a new file renamed over this one) before overwriting in place",
				base(p), w.bytes, w.pages, what, until, uncovered, base(p), leaves)
		} else if w.zeros == w.n {
			// Every overwrite went over zeros a preallocation left on
			// disk: nothing old is lost, but a crash can leave part of
			// what they wrote beside zeros where the rest should be.
			msg = fmt.Sprintf("%s: %d writes went over zeros on disk (space preallocated and synced, not yet written) %s%s, with nothing made durable first that tells a whole update from a part: a crash in between can keep some of them and not others, leaving %s torn, new bytes beside zeros where the rest should be (a record's header on disk, its body still zeros); unless something written after the sync tells a reader which are whole (a commit record), write a record's body, fsync, and only then its header (or a commit mark), or give each record a checksum over all of it that recovery checks and stops at",
				base(p), w.n, until, uncovered, base(p))
		} else {
			msg = fmt.Sprintf("%s: %d writes overwrote data already on disk %s%s, with no journal or log made durable first: a crash in between can keep some of them and not others, leaving %s torn, some blocks new and some still old (a record's new header beside a body still old, or still zeros where the file was preallocated); make the change durable in a journal (or in a new file renamed over this one) before overwriting in place",
				base(p), w.n, until, uncovered, base(p))
		}
		f := newFinding(OverwriteInPlace, p, w.second, msg)
		if w.pastOnly() {
			f.relate(w.first, "overwrite of data on disk and past its end: a crash can keep one part")
		} else if w.n == 1 {
			f.relate(w.first, fmt.Sprintf("overwrite of %d pages on disk: a crash can keep some of them", w.pages))
		} else {
			f.relate(w.first, "first overwrite of data on disk")
			f.relate(w.second, "second overwrite: from here a crash can mix them")
		}
		if uncovered != "" {
			f.relate(w.firstBare, "an overwrite no copy synced before covers")
		}
		if w.last.Line != w.second.Line {
			f.relate(w.last, "last overwrite before the sync")
		}
		if ended {
			f.relate(end, "the sync that ends the window")
		}
		if w.n == 1 && w.past > 0 && w.state != nil {
			// Cut at the old end, or the old bytes followed by zeros
			// where the size got there before the blocks.
			w.state.Outcomes = []model.Outcome{model.Torn, model.Zeros}
		}
		if w.n >= 2 && w.state != nil {
			// Some of the overwrites on disk and not the others: the
			// first of them alone is a version the program saw, in
			// words an earlier one, and as torn an update as any mix.
			w.state.Outcomes = []model.Outcome{model.Torn, model.Earlier}
		}
		f.State = w.state
		r.emit(f)
	}
}

// closeLater closes ino's window at a barrier, its report (if any) made
// once the trace is read.
func (o *overwriteInPlace) closeLater(r *run, ino *model.Inode, at model.Ref) {
	if report := o.close(ino, at); report != nil {
		r.later(func() { report(r) })
	}
}

// opened lists the inodes with an open window, in the model's order.
func (o *overwriteInPlace) opened() []*model.Inode {
	inos := make([]*model.Inode, 0, len(o.open))
	for ino := range o.open {
		inos = append(inos, ino)
	}
	slices.SortFunc(inos, func(a, b *model.Inode) int { return a.ID - b.ID })
	return inos
}

func (o *overwriteInPlace) Finish(r *run) {
	defer o.Close()
	// Windows still open at the end: the overwrites were never synced.
	for _, ino := range o.opened() {
		if report := o.close(ino, model.Ref{}); report != nil {
			report(r)
		}
	}
}
