package check

import (
	"fmt"
	"math"
	"slices"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/model"
)

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// dataNotSynced asks, at the end, which named files still hold written
// bytes that no barrier covered. It also answers fsync-before-write,
// sync-file-range-not-durable and direct-io-not-flushed, which are the
// same question with a reason attached.
type dataNotSynced struct{}

func (dataNotSynced) Observe(*run, *model.Effect) {}

// dataAhead is what dataNotSynced works out of a file's crash states
// ahead of its findings (see ahead): lossAt, asked of the model's Still
// view.
type dataAhead struct {
	ready  bool   // words and state are the file's
	words  string // leaves
	state  *State // demonstrate
	states []model.PathState
}

// prepare fills a with what a crash can leave at file ino's path, and
// reports false where the view cannot say.
func (a *dataAhead) prepare(st model.Still, end model.Ref, ino *model.Inode) bool {
	a.ready, a.words, a.state = false, "", nil
	if ino.Dir || ino.Path == "" {
		return true
	}
	if _, _, pending := ino.PendingWriteEnds(); !pending {
		return true
	}
	var ok bool
	if a.words, a.state, ok = lossAt(viewAsker{st, &a.states}, end, ino.Name()); !ok {
		return false
	}
	a.ready = true
	return true
}

func (dataNotSynced) Finish(r *run) {
	// One slice for every file's writes: none of them outlives its turn.
	var writes []model.DataOp
	inodes := r.m.Inodes()
	end := r.m.Last()
	n := len(inodes)
	if r.index > 0 {
		// A later model's findings mostly join the first's (run.joins):
		// asking ahead for their crash states would be work thrown away.
		n = 0
	}
	st := r.m.Still()
	ahead(n, func(i int, a *dataAhead) bool {
		return a.prepare(st, end, inodes[i])
	}, func(i int, a *dataAhead, ok bool) {
		writes = dataNotSyncedAt(r, inodes[i], end, writes, a, ok)
	})
	for _, ino := range inodes[n:] {
		writes = dataNotSyncedAt(r, ino, end, writes, nil, false)
	}
}

// dataNotSyncedAt asks about one file, with what ahead prepared for it
// when known, and returns the room of its writes.
func dataNotSyncedAt(r *run, ino *model.Inode, end model.Ref, writes []model.DataOp, a *dataAhead, known bool) []model.DataOp {
	if ino.Dir || ino.Path == "" {
		return writes // a deleted file's data is litter; its name is the risk
	}
	writes = ino.AppendPendingWrites(writes[:0])
	if len(writes) == 0 {
		truncatedNotSynced(r, ino, end)
		return writes
	}
	first, last := writes[0], writes[len(writes)-1]
	p := ino.Name()
	// What a crash can leave, in words, and the crash state the
	// findings below share: prepared ahead, or worked out when one of
	// them needs it.
	var words string
	var state *State
	have := known && a.ready
	if have {
		words, state = a.words, a.state
	}
	loss := func() (string, *State) {
		if !have {
			words, state, _ = lossAt(modelAsker{r.m}, end, p)
			have = true
		}
		return words, state
	}
	leavesOf := func() string { w, _ := loss(); return w }
	stateOfFile := func() *State { _, s := loss(); return s }
	if !r.joins(DataNotSynced, p, last.Event()) {
		var bytes int64
		for _, w := range writes {
			// Saturated: a hostile trace's counts near the largest
			// int64 must not add up to a negative number of bytes.
			bytes = min(bytes, math.MaxInt64-max(w.Len, 0)) + max(w.Len, 0)
		}
		f := r.newFinding(DataNotSynced, p, last.Event(), "")
		r.message(f, "%s can be %s after a crash: %s (%s) written and never made durable; fsync (or fdatasync) the file after the last write",
			base(p), leavesOf(), plural(len(writes), "write", "writes"), plural(int(bytes), "byte", "bytes"))
		f.relate(first.Event(), "first unsynced write")
		if last.Event().Line != first.Event().Line {
			f.relate(last.Event(), "last unsynced write")
		}
		if ino.FailedSync() != nil {
			f.relate(*ino.FailedSync(), "this sync failed: the data it covered may be gone")
		}
		f.State = stateOfFile()
		r.emit(f)
	}

	// A sync that covered earlier writes came too early only where the
	// write it missed is the trace's very next call (a buffer flushed in
	// part before the fsync, the rest at close); one written later, after
	// other calls, is the next batch of a program that syncs now and
	// then (Redis's everysec), whose loss data-not-synced reports.
	if ino.LastSync != nil && ino.LastSync.Seq < first.Event().Seq && ino.FailedSync() == nil &&
		(!ino.SyncedWrite() || first.Event().Seq == ino.LastSync.Seq+1) {
		// "Covered nothing" only when it did: a sync that made earlier
		// writes durable covered those (a buffer flushed in part before
		// the fsync, or a program that writes again after its sync).
		before := "was synced before its data was written: the sync covered nothing"
		if ino.SyncedWrite() {
			before = "was synced, then written again: the sync covered only what was written before it"
		}
		g := newFinding(FsyncBeforeWrite, p, *ino.LastSync,
			fmt.Sprintf("%s %s, and what was written after it is not durable (%s), so a crash can leave %s %s; sync after the last write (%s)",
				base(p), before, plural(len(writes), "write", "writes"), base(p), leavesOf(), flushAdvice(r.watch.runtimeOf(ino.LastSync.PID))))
		g.relate(*ino.LastSync, "the sync came too early")
		g.relate(first.Event(), "written after the sync")
		g.State = stateOfFile()
		r.emit(g)
	}
	if ino.SyncRange() != nil && ino.SyncRange().Seq > first.Event().Seq {
		g := newFinding(SyncFileRangeNotDurable, p, *ino.SyncRange(),
			fmt.Sprintf("%s relies on sync_file_range, which writes no metadata and flushes no device cache: a crash can still leave it %s; use fdatasync or fsync",
				base(p), leavesOf()))
		g.relate(first.Event(), "written").relate(*ino.SyncRange(), "sync_file_range: not a durability barrier")
		g.State = stateOfFile()
		r.emit(g)
	}
	var direct *model.DataOp
	for i := range writes {
		if writes[i].Direct {
			direct = &writes[i]
		}
	}
	if direct != nil {
		g := newFinding(DirectIONotFlushed, p, direct.Event(),
			fmt.Sprintf("%s was written with O_DIRECT and never synced: the bytes passed the page cache but can still sit in the device's cache, so a crash can lose them; fdatasync after the writes, or open with O_DSYNC",
				base(p)))
		g.relate(direct.Event(), "O_DIRECT write not followed by fdatasync")
		g.State = stateOfFile()
		r.emit(g)
	}
	return writes
}

// truncatedNotSynced is data-not-synced for a file that was cut shorter
// and not written after: a crash can undo the cut (a log emptied after
// it was copied comes back whole, a queue emptied after it was processed
// comes back to be processed again).
func truncatedNotSynced(r *run, ino *model.Inode, end model.Ref) {
	cut, ok := ino.PendingTruncate()
	if !ok || !ino.HadContent {
		return
	}
	p := ino.Name()
	if r.joins(DataNotSynced, p, cut.Event()) {
		return
	}
	words, state, _ := lossAt(modelAsker{r.m}, end, p)
	f := r.newFinding(DataNotSynced, p, cut.Event(), "")
	if z, ok := ino.DurableZerosFrom(); ok && cut.Size >= 0 && z <= cut.Size && ino.DurableSize > cut.Size {
		// What the cut took is, on disk, zeros: space allocated and never
		// written (a segment preallocated, written, synced, then cut to
		// its data). A crash can leave the file longer than the program
		// did, its data followed by those zeros, but loses no byte it
		// wrote and brings back none it removed: a reader that stops at
		// the first zeros (a preallocated log's) reads it right, one that
		// takes the size for the data's end does not. A warning, not the
		// error of a loss.
		f.Rule = f.Rule.lowered(Warning)
		// The state shows that version, not another loss (a name not yet
		// durable is name-not-synced's).
		if s, ok := r.m.CrashFirst(p, 256, func(s model.PathState) bool { return s.Outcome == model.Earlier && s.Persisted == "none" }); ok {
			state = stateOf(r.m, end, p, s)
		}
		r.message(f, "%s can be left as it was on disk before its truncation to %s after a crash, %s: the truncation was never made durable; no data is lost, but a reader that takes the file's size for the end of its data reads the zeros; fsync (or fdatasync) the file after truncating it",
			base(p), plural(int(cut.Size), "byte", "bytes"), model.ZerosWords(z, ino.DurableSize))
	} else {
		r.message(f, "%s can be %s after a crash: its truncation to %s was never made durable; fsync (or fdatasync) the file after truncating it",
			base(p), words, plural(int(cut.Size), "byte", "bytes"))
	}
	f.relate(cut.Event(), "truncated, not yet durable")
	f.State = state
	r.emit(f)
}

// truncateInPlace finds files whose data on disk was cut shorter and then
// rewritten under the same name before the cut was durable: a crash can
// then leave neither the old content nor the new.
type truncateInPlace struct {
	cut map[*model.Inode]*cutFile
	// waiting counts the cuts not yet written again, which a sync of
	// every file may commit.
	waiting int
	// removed holds, by path, the file with data on disk a process just
	// unlinked there, until the next change of the name: a create there
	// by the same process is the same rewrite as a truncation (unzip -o
	// removes each file it extracts over, then makes it anew).
	removed map[string]model.Ref
}

// maxRemoved bounds truncateInPlace.removed: a program that removes many
// files and makes none again keeps the last ones.
const maxRemoved = 64

// cutFile is a file truncateInPlace saw cut: where and under which name,
// whether the program wrote it again after, and the crash state that
// shows the loss.
type cutFile struct {
	at    model.Ref
	path  string // the file's name when it was cut
	size  int64  // the size the truncation left
	wrote bool
	// remade: the file was removed and made anew under its name, not
	// cut (at is the unlink): a crash can also leave the name missing.
	remade bool
	// atCut is a crash state right after the truncation with the cut on
	// disk, for a rewrite whose first write makes the cut durable with
	// it (O_DSYNC): past that write no state shows the loss.
	atCut *State
	// regrown: before any write the file was given back more than the
	// cut left (fallocate, or a truncation up), space made again for a
	// log; appended: the first write then went at or past the size the
	// cut left. Both: a preallocated log cut back to its last good record
	// and appended to (etcd's WAL), whose cut tail the program treats as
	// free space, not a file it rewrites.
	regrown, appended bool
	state             *State
}

// cutLoss is what a crash between the truncation and the end of the
// rewrite leaves, the loss the message names.
var cutLoss = []model.Outcome{model.Empty, model.Torn, model.Zeros}

// remadeLoss is what a crash between the removal of a file and the end
// of its rewrite under a new inode leaves.
var remadeLoss = []model.Outcome{model.Missing, model.Empty, model.Torn, model.Zeros}

func (t *truncateInPlace) Observe(r *run, e *model.Effect) {
	if t.cut == nil {
		t.cut = map[*model.Inode]*cutFile{}
	}
	switch e.Kind {
	case model.EffEntry:
		t.entry(r, e)
		return
	case model.EffFileSync:
		if c := t.cut[e.Inode]; c != nil && !c.wrote {
			t.committed(e.Inode, c)
		}
		return
	case model.EffSyncAll:
		if t.waiting > 0 {
			for ino, c := range t.cut {
				if !c.wrote {
					t.committed(ino, c)
				}
			}
		}
		return
	}
	switch c := t.cut[e.Inode]; {
	case e.Kind == model.EffTruncate && c != nil && !c.wrote && e.Data.Size > c.size:
		c.regrown = true
	case e.Kind == model.EffTruncate && e.Data.Kind == model.DataTruncate && e.Inode.HadContent:
		// A truncation to the size the file has, or more, cuts nothing
		// (SQLite sets a database's size after a checkpoint); one from an
		// unknown size may.
		if d := e.Data; d.SizeBefore >= 0 && d.Size >= d.SizeBefore {
			return
		}
		// Only what the disk holds can be lost: bytes written in the
		// trace and never made durable a crash before the cut could
		// lose too (a temp file written, then truncated and written
		// again, before its sync and rename).
		if !e.Inode.CutsDurable(e.Data.Size) {
			return
		}
		if _, ok := t.cut[e.Inode]; !ok {
			r.m.Pin(e.Inode)
			c := &cutFile{at: e.Ref, path: e.Inode.Path, size: e.Data.Size}
			if s, ok := r.m.CrashFirst(c.path, 256, func(s model.PathState) bool { return s.Outcome == model.Latest }); ok && c.path != "" {
				c.atCut = stateOf(r.m, e.Ref, c.path, s)
			}
			t.cut[e.Inode] = c
			t.waiting++
		}
	case e.Kind == model.EffWrite && c != nil && !c.wrote:
		// A cut made durable before this first write is a state the
		// program committed on its own (a sync of the file or of every
		// file, which committed forgot already): the crash states from
		// here on start from it, and none holds what the cut took away.
		// One made durable by this write itself (O_DSYNC, RWF_DSYNC) is
		// not: the old content was gone from the disk before the new
		// was on it.
		ownSync := e.Inode.LastSync != nil && e.Inode.LastSync.Seq == e.Ref.Seq
		if !ownSync && t.committed(e.Inode, c) {
			return
		}
		// Right after the first write of the rewrite the cut file can be
		// on disk empty (right after the truncation itself, the empty
		// file is what the program sees, no loss yet).
		c.wrote = true
		t.waiting--
		if c.regrown && c.size > 0 && e.Data.Off >= c.size {
			c.appended = true
			return
		}
		loss := cutLoss
		if c.remade {
			loss = remadeLoss
		}
		c.state = demonstrateFrom(r.m, e.Ref, e.Inode.Path, r.m.Crash(e.Inode.Path, 256), loss)
		if c.state == nil && ownSync {
			c.state = c.atCut
		}
	}
}

// entry watches a name for a file with data on disk unlinked and made
// again there by the same process: its new file is taken as cut at the
// unlink, and asked about as a truncated one is.
func (t *truncateInPlace) entry(r *run, e *model.Effect) {
	op := e.Entry
	if op == nil || len(t.removed) == 0 && op.Kind != model.EntryUnlink {
		return
	}
	for _, ch := range op.Changes {
		at, watched := t.removed[ch.Path]
		if watched {
			delete(t.removed, ch.Path)
		}
		switch {
		case op.Kind == model.EntryUnlink && ch.Old != nil && ch.New == nil && heldData(ch.Old):
			if t.removed == nil {
				t.removed = map[string]model.Ref{}
			}
			if len(t.removed) >= maxRemoved {
				clear(t.removed)
			}
			t.removed[ch.Path] = e.Ref
		case op.Kind == model.EntryCreate && watched && at.PID == e.Ref.PID && ch.New != nil && !ch.New.Dir && !ch.New.Socket():
			if _, ok := t.cut[ch.New]; !ok {
				r.m.Pin(ch.New)
				t.cut[ch.New] = &cutFile{at: at, path: ch.Path, remade: true}
				t.waiting++
			}
		}
	}
}

// heldData reports whether ino, a regular file, had data on disk: from
// before the trace (not known empty, and known to exist), or made
// durable in it.
func heldData(ino *model.Inode) bool {
	if ino.Dir || ino.Socket() || !ino.CutsDurable(0) {
		return false
	}
	return ino.HadContent || ino.Size > 0 || ino.Size < 0 && ino.Initial
}

// committed forgets cut c of ino once it is durable, not yet written
// again: the program committed the cut on its own. SQLite's
// journal_mode=TRUNCATE commits a transaction so, and its next one writes
// the journal again. A later cut of the same file is asked about afresh.
func (t *truncateInPlace) committed(ino *model.Inode, c *cutFile) bool {
	if c.remade {
		return false // no cut: a new file, whose name the sync of a file does not commit
	}
	if cut, ok := ino.PendingTruncate(); ok && cut.Event().Seq >= c.at.Seq {
		return false
	}
	delete(t.cut, ino)
	t.waiting--
	return true
}

func (t *truncateInPlace) Finish(r *run) {
	// In the model's order of inodes; a retired one is no longer among
	// Inodes, but the map still holds it as it is.
	inos := make([]*model.Inode, 0, len(t.cut))
	for ino := range t.cut {
		inos = append(inos, ino)
	}
	slices.SortFunc(inos, func(a, b *model.Inode) int { return a.ID - b.ID })
	for _, ino := range inos {
		c := t.cut[ino]
		if ino.Path == "" || !c.wrote || c.appended {
			continue
		}
		// Named as it was cut: the rewrite is of that file, whatever
		// name it was given after.
		p := c.path
		if c.remade {
			f := newFinding(TruncateInPlace, p, c.at,
				fmt.Sprintf("%s held data and was removed and made anew to rewrite it: a crash between the removal and the end of the rewrite leaves it missing, empty or torn; write a temp file, fsync it and rename it over %s (rename replaces a file in one step)",
					base(p), base(p)))
			f.relate(c.at, c.at.Syscall+" removes the old file")
			if c.state != nil {
				c.state.Outcomes = remadeLoss
			}
			f.State = c.state
			r.emit(f)
			continue
		}
		f := newFinding(TruncateInPlace, p, c.at,
			fmt.Sprintf("%s held data and was truncated to rewrite it in place: a crash between the truncation and the end of the rewrite leaves it empty or torn; write a temp file, fsync it and rename it over %s",
				base(p), base(p)))
		f.relate(c.at, "truncated")
		f.State = c.state
		r.emit(f)
	}
}

// unalignedWrite finds writes that only partly cover pages holding data
// from before the trace, which the kernel must read before it can write.
type unalignedWrite struct {
	seen map[*model.Inode]bool
	// old bounds, by inode ID, how many bytes of a file from before the
	// trace are still its own (-1: unknown): the size it had at its first
	// write in the trace, or what a truncation left (O_TRUNC: none),
	// whichever is less. Past them the pages hold only what the trace
	// wrote, which the page cache has and the kernel need not read; a
	// write's SizeBefore counts the trace's own appends too. IDs, not
	// inodes: nothing is pinned for it.
	old map[int]int64
	// read holds, by inode ID, the pages of a file from before the trace
	// that a read in the trace returned: the page cache has them, and a
	// write to part of one reads nothing from disk. At most readFiles
	// files: past them a write is reported as if nothing had been read.
	read map[int]*pageRanges
}

// readFiles bounds the files whose reads unaligned-write keeps: a trace
// that reads a million files from before it (a scan, a build) keeps a
// few megabytes, not one entry each.
const readFiles = 1 << 16

// pageRanges are a file's pages read, as at most len(r) runs of whole
// pages [lo, hi), in no order; a read that joins none when all are taken
// is not kept (its pages are then taken for not read: the note the rule
// gives is about speed, and one too many costs nothing else).
type pageRanges struct {
	r [4][2]int64
	n int
}

// add notes the pages of the bytes [off, off+n).
func (p *pageRanges) add(off, n int64) {
	lo, hi := off/page*page, (off+n+page-1)/page*page
	for i := 0; i < p.n; i++ {
		if lo <= p.r[i][1] && p.r[i][0] <= hi {
			// Joins run i, which may now touch others: take them in.
			lo, hi = min(lo, p.r[i][0]), max(hi, p.r[i][1])
			p.n--
			p.r[i] = p.r[p.n]
			i = -1
		}
	}
	if p.n < len(p.r) {
		p.r[p.n] = [2]int64{lo, hi}
		p.n++
	}
}

// has reports whether the page at start (a multiple of page) was read.
func (p *pageRanges) has(start int64) bool {
	for _, r := range p.r[:p.n] {
		if r[0] <= start && start < r[1] {
			return true
		}
	}
	return false
}

// page is the size of the pages the kernel caches files in.
const page = 4096

// bound lowers the bound on file id's bytes from before the trace to n
// (-1: unknown, which lowers nothing), or sets it when there is none.
func (u *unalignedWrite) bound(id int, n int64) {
	if b, ok := u.old[id]; ok && (n < 0 || b >= 0 && b <= n) {
		return
	}
	if u.old == nil {
		u.old = map[int]int64{}
	}
	u.old[id] = n
}

func (u *unalignedWrite) Observe(r *run, e *model.Effect) {
	if e.Kind == model.EffRead {
		if e.ReadLen > 0 && e.Inode.Initial && !u.seen[e.Inode] {
			u.noteRead(e.Inode.ID, e.ReadOff, e.ReadLen)
		}
		return
	}
	if e.Data != nil && e.Data.Kind == model.DataTruncate && e.Inode != nil && e.Inode.Initial {
		u.bound(e.Inode.ID, e.Data.Size)
		return
	}
	if e.Kind != model.EffWrite || e.Data == nil || e.Data.Kind != model.DataWrite || u.seen[e.Inode] {
		return
	}
	op := e.Data
	if !e.Inode.Initial {
		return
	}
	old := op.SizeBefore // bytes of the file from before the trace: at most these
	if b, ok := u.old[e.Inode.ID]; ok && b >= 0 && (old < 0 || b < old) {
		old = b
	} else if !ok {
		u.bound(e.Inode.ID, op.SizeBefore) // its first write
	}
	// An unsure inode may be no file at all: whether its pages hold data
	// from before is what the trace does not tell, and this is only a
	// speed hint.
	if op.Off < 0 || e.Inode.Unsure || old == 0 {
		return
	}
	if op.Off%page == 0 && op.Len%page == 0 {
		return
	}
	firstPage := op.Off / page * page
	lastPage := (op.Off + op.Len - 1) / page * page
	read := u.read[e.Inode.ID]
	existing := func(start int64) bool {
		return (old < 0 || start < old) && (read == nil || !read.has(start))
	}
	partialFirst := op.Off%page != 0 && existing(firstPage)
	partialLast := (op.Off+op.Len)%page != 0 && existing(lastPage)
	if !partialFirst && !partialLast {
		return
	}
	u.seen[e.Inode] = true
	r.m.Pin(e.Inode)
	ino, at, off, n := e.Inode, e.Ref, op.Off, op.Len
	r.later(func() {
		p := ino.Name()
		f := newFinding(UnalignedWrite, p, at,
			fmt.Sprintf("%s gets writes that cover only part of a 4096-byte page that already holds data (offset %d, %d bytes): the kernel reads the page before writing it, which stalls under fsync; write whole, aligned pages where speed matters",
				base(p), off, n))
		f.relate(at, "partial-page write")
		r.emit(f)
	})
}

// noteRead keeps the pages a read of file id returned.
func (u *unalignedWrite) noteRead(id int, off, n int64) {
	p := u.read[id]
	if p == nil {
		if len(u.read) >= readFiles {
			return
		}
		if u.read == nil {
			u.read = map[int]*pageRanges{}
		}
		p = new(pageRanges)
		u.read[id] = p
	}
	p.add(off, n)
}

func (u *unalignedWrite) Finish(*run) {}

// unmodeledWrite reports files changed in ways a trace cannot show.
type unmodeledWrite struct {
	seen map[*model.Inode]bool
}

func (u *unmodeledWrite) Observe(r *run, e *model.Effect) {
	if e.Kind != model.EffUnmodeled || u.seen[e.Inode] {
		return
	}
	switch e.Event.Call.Effect() {
	case syscalls.Mmap, syscalls.Mprotect, syscalls.IOUringEnter:
		// Blind spots (blind.go): the trace does not show that the data
		// changed at all, so the whole verdict is said to be blind, once.
		return
	}
	u.seen[e.Inode] = true
	r.m.Pin(e.Inode)
	ino, at, what := e.Inode, e.Ref, e.What
	r.later(func() {
		p := ino.Name()
		f := newFinding(UnmodeledWrite, p, at,
			fmt.Sprintf("%s: %s, so what crashsim says about this file is incomplete", base(p), what))
		f.relate(at, what)
		r.emit(f)
	})
}

func (u *unmodeledWrite) Finish(*run) {}
