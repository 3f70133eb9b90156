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
// window made durable writes of the file, elsewhere than the window's
// overwrites go and at least as many bytes as they write (InnoDB's
// doublewrite buffer in ibdata1: the pages are written there, synced, and
// only then over their places). A program that writes such a record
// first can repair or ignore a torn update; one that does not cannot,
// which is the mistake.
type overwriteInPlace struct {
	open map[*model.Inode]*window
	seen map[*model.Inode]bool
	// since is, of each file written since its last barrier, the span
	// and bytes of those writes; kept is what the file's last sync that
	// had pending data made durable of it, which a window opened at that
	// sync may use as its copy.
	since map[int]span // by inode ID: the model may retire an inode
	kept  map[int]span
	// The last data made durable by a sync, on two different inodes (a
	// window of one inode asks about the other), and the last write
	// durable on return, on any inode.
	synced      [2]durableAt
	durableSeq  int
	durableSeen bool
}

// span is the writes of a file between two of its barriers: the range
// from the first byte any wrote to the last, how many bytes they wrote
// in all, and (in kept) the seq of the sync that made them durable.
type span struct {
	lo, hi, bytes int64
	seq           int
}

func (s span) add(off, n int64) span {
	if s.bytes == 0 {
		s.lo, s.hi = off, off+n
	} else {
		s.lo, s.hi = min(s.lo, off), max(s.hi, off+n)
	}
	s.bytes += n
	return s
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
	// the file (none: bytes 0); overBytes how many bytes the window's
	// overwrites wrote, and hitCopy whether one of them wrote into the
	// copy's span. A copy as large, apart from them, guards the window.
	copy      span
	overBytes int64
	hitCopy   bool
}

// copied reports whether the window's overwrites have a durable copy in
// the file: written and synced at its opening barrier, no smaller than
// the overwrites and in another part of the file.
func (w *window) copied() bool {
	return w.copy.bytes > 0 && w.copy.bytes >= w.overBytes && !w.hitCopy
}

func (o *overwriteInPlace) Observe(r *run, e *model.Effect) {
	if o.open == nil {
		o.open = map[*model.Inode]*window{}
		o.seen = map[*model.Inode]bool{}
		o.since = map[int]span{}
		o.kept = map[int]span{}
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
		o.since[ino.ID] = o.since[ino.ID].add(d.Off, d.Len)
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
		w = &window{start: start, first: e.Ref, guarded: o.guarded(ino, start)}
		if k, ok := o.kept[ino.ID]; ok && k.seq == start {
			w.copy = k
		}
		r.m.Pin(ino)
		o.open[ino] = w
	}
	w.n++
	w.overBytes += d.Len
	w.hitCopy = w.hitCopy || d.Off < w.copy.hi && w.copy.lo < d.Off+d.Len
	w.last = e.Ref
	if w.n == 2 && !w.guarded {
		// A crash right after the second overwrite can keep one and not
		// the other: the state that shows the mix.
		w.second = e.Ref
		w.state = demonstrateFrom(r.m, e.Ref, ino.Path, r.m.Crash(ino.Path, 256), []model.Outcome{model.Torn})
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
	if w.n < 2 || w.guarded || w.copied() || o.seen[ino] {
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
		f := newFinding(OverwriteInPlace, p, w.second,
			fmt.Sprintf("%s: %d writes overwrote data already on disk %s, with no journal or log made durable first: a crash in between can leave %s torn, some blocks old and some new; make the change durable in a journal (or in a new file renamed over this one) before overwriting in place",
				base(p), w.n, until, base(p)))
		f.relate(w.first, "first overwrite of data on disk")
		f.relate(w.second, "second overwrite: from here a crash can mix them")
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
