package check

import (
	"fmt"
	"slices"

	"github.com/crashsim/crashsim/model"
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
// overwrite is covered when it writes none of the ranges the copy holds
// and the copy has bytes left for it that no overwrite before it took.
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
}

// ranges is the bytes of a file that writes between two of its barriers
// wrote: apart, sorted and merged where they touch, bytes their total,
// and (in kept) the seq of the sync that made them durable. They are
// each range as written, never one span from the first byte to the last:
// a page written beside a doublewrite batch must not make the batch's
// copy seem to lie over the pages it keeps. Past maxRanges the smallest
// is dropped: the copy a window can count on is the large ranges, and a
// copy smaller than it is covers fewer overwrites, never more.
type ranges struct {
	r     []byteRange
	bytes int64
	seq   int
}

type byteRange struct{ lo, hi int64 }

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
}

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
		o.closeLater(r, ino, e.Ref)
		o.durableSeq, o.durableSeen = e.Ref.Seq, true
		delete(o.since, ino.ID)
		return
	}
	if d.Off >= 0 && !ino.Dir && (ino.LastSync != nil || d.Off < d.SizeBefore) {
		// Only a file synced before, or a write over data it holds, can
		// be a copy a window uses: a check of many new files, each
		// written once, keeps nothing here.
		rs := o.since[ino.ID]
		rs.add(d.Off, d.Len)
		o.since[ino.ID] = rs
	}
	if ino.Dir || ino.Unsure || ino.Path == "" || o.seen[ino] || d.Off < 0 || d.SizeBefore <= 0 {
		return
	}
	onDisk := d.SizeBefore
	if ino.DurableSize >= 0 {
		onDisk = min(onDisk, ino.DurableSize)
	}
	if d.Off >= onDisk {
		return // past what is on disk: an append, not an overwrite
	}
	start := startOf(ino)
	w := o.open[ino]
	if w == nil || w.start != start {
		w = &window{start: start, guarded: o.guarded(ino, start)}
		if k, ok := o.kept[ino.ID]; ok && k.seq == start && k.bytes > 0 {
			w.copy, w.hasCopy = k, true
			w.copy.r = slices.Clone(k.r) // cut below must not change kept
		}
		r.m.Pin(ino)
		o.open[ino] = w
	}
	w.n++
	w.last = e.Ref
	if w.n == 1 {
		w.first = e.Ref
	}
	// Covered: it writes none of the copy, and the copy has bytes left
	// for it. One that writes over the copy shrinks it, and is not.
	covered := false
	if w.hasCopy {
		hit := w.copy.cut(d.Off, d.Len) > 0
		if covered = !hit && w.copy.bytes-w.used >= d.Len; covered {
			w.used += d.Len
		}
	}
	if !covered {
		if w.bare++; w.bare == 1 {
			w.firstBare = e.Ref
		}
	}
	if w.n == 2 {
		w.second = e.Ref
		if !w.guarded {
			// A crash right after the second overwrite can keep one
			// and not the other: the state that shows the mix.
			w.state = demonstrateFrom(r.m, e.Ref, ino.Path, r.m.Crash(ino.Path, 256), []model.Outcome{model.Torn})
		}
	}
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
	if w.n < 2 || w.bare == 0 || w.guarded || o.seen[ino] {
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
		if w.hasCopy {
			uncovered = fmt.Sprintf(" (the copy synced elsewhere in the file covers %d of them, not the rest)", w.n-w.bare)
		}
		f := newFinding(OverwriteInPlace, p, w.second,
			fmt.Sprintf("%s: %d writes overwrote data already on disk %s%s, with no journal or log made durable first: a crash in between can leave %s torn, some blocks old and some new; make the change durable in a journal (or in a new file renamed over this one) before overwriting in place",
				base(p), w.n, until, uncovered, base(p)))
		f.relate(w.first, "first overwrite of data on disk")
		f.relate(w.second, "second overwrite: from here a crash can mix them")
		if w.hasCopy {
			f.relate(w.firstBare, "an overwrite no copy synced before covers")
		}
		if w.last.Line != w.second.Line {
			f.relate(w.last, "last overwrite before the sync")
		}
		if ended {
			f.relate(end, "the sync that ends the window")
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
	// Windows still open at the end: the overwrites were never synced.
	for _, ino := range o.opened() {
		if report := o.close(ino, model.Ref{}); report != nil {
			report(r)
		}
	}
}
