package check

import (
	"fmt"
	"slices"

	"github.com/crashsim/crashsim/model"
)

// removeBeforeSync finds a file removed while what a program made of it
// is not yet durable: a process read F, wrote G, and F was removed before
// G's bytes reached the disk (gzip without --synchronous, mv between
// file systems, `cp a b && rm a`, a journal deleted before the writes it
// replayed were synced). The removal is a directory change that can
// persist before G's data does, so a crash can leave F gone and G empty:
// the data in neither place.
//
// The question asked of the model at each removal of a file's last name,
// and at each truncation that shrinks a file (logrotate's copytruncate):
// did some process read that file (a read that returned data, a mapping
// of it the process can read, or a copy in the kernel from it), and does
// a file that process wrote after that read still have writes pending
// that came after it? The removing process may be another one (the
// shell's rm after cp). Only a file whose content was durable counts (it
// existed before the run or its data and name were synced, and it is not
// on tmpfs): removing one that a crash could lose anyway loses nothing
// new. A process that synced
// written data between the read and the removal made a durable copy:
// LevelDB replays its log into a table it syncs, then deletes the log
// while its own debug LOG is still unsynced, and that is no loss.
//
// A copy whose bytes are durable is still lost if its name is not: a
// new file's name needs its directory's fsync, and a new directory's
// name its parent's. When no copy of the file is durable in both, the
// model is asked whether the removal or truncation can reach the disk
// while a copy's name has not (copytruncate that syncs log.1 and the
// emptied log, and the directory only at the end): a crash there leaves
// the file emptied or gone and the copy missing, the data in neither.
//
// Memory stays bounded however long the trace: each process keeps its
// last few reads (ownerRing), each file read keeps the first few files
// written from it, and only the files read most recently (maxSources)
// are kept; the processes gone are dropped from time to time.
type removeBeforeSync struct {
	owners map[any]*removeOwner
	// pruneAt is the size of owners at which those of processes gone
	// are dropped (a build runs thousands of short processes).
	pruneAt int
	// sources are, by the ID of a file read, the files written after
	// that read by the process that read it; order is their keys, oldest
	// first, to drop the oldest past maxSources.
	sources map[int]*readCopies
	order   []int
	hits    []removeHit
	// truncs are the hits of truncations not dropped, by the ID of the
	// file emptied (removeHit.truncated): indices into hits.
	truncs map[int][]int
	// gaps are, by path, the files with durable data removed, or moved
	// to another name (a backup), while a process had copied them into
	// others: a copy renamed to the path afterwards is a replace done in
	// two steps (remove-before-rename).
	gaps    map[string]replaceGap
	renamed []replaceGap // the gaps a copy's rename closed
	// fresh are, by the ID of a file created at a name its file had
	// been moved away from (to a backup), the gaps it filled, until the
	// process that read the file moved writes the new one: a save that
	// writes its new version in place of the file it moved away (Vim's
	// backupcopy=no); rewrote are the gaps such a write confirmed.
	fresh   map[int]replaceGap
	rewrote []replaceGap
}

// replaceGap is a name a removal, or a move of its file to another
// name, left empty while copies of its file existed.
type replaceGap struct {
	path string
	at   model.Ref // the removal or the move
	// backup is the name the file kept (it was renamed there, or linked
	// there before the unlink); "" when the unlink took its last name.
	backup string
	moved  bool      // the file was renamed to backup (not unlinked)
	read   model.Ref // the last read of the file removed
	// readName is the file's name at that read: the words say "reads
	// notes.txt" of a read before the file was renamed notes.txt~.
	readName string
	copies   [ownerRing]int
	state    *State    // a crash right after the removal: the name missing
	by       model.Ref // the rename of a copy to the path, or the create of a file there
	copyOf   string    // that copy's name before it ("" for an O_TMPFILE linked there)
	linked   bool      // by was a link, not a rename
	wrote    model.Ref // the first write of the file created there
}

// maxGaps bounds the gaps kept; past it they are forgotten.
const maxGaps = 1024

// ownerRing is how many reads a process keeps, and how many written
// files a file read keeps.
const ownerRing = 4

// maxSources is how many files read, with what was written from them,
// a check keeps at most.
const maxSources = 1024

type removeOwner struct {
	reads [ownerRing]readMark
	nr    int // the next slot of reads
	// gen counts the process's reads; wrote is the last file written and
	// wroteGen the count then: a program that read its input and then
	// writes a great many times to one file notes the copy once.
	gen, wrote, wroteGen int
	// synced is the event of the process's last sync that made written
	// data durable, -1 before any: a program that synced what it wrote
	// after reading F has made its durable copy, and the files it left
	// unsynced (a debug log) are not that copy.
	synced int
}

type readMark struct {
	id   int // the inode's ID; 0 is an empty slot
	at   model.Ref
	name string // the file's name then
}

// readCopies is what was written from one file read.
type readCopies struct {
	copies [ownerRing]copyMark
	n      int
}

// copyMark is a file written after a read of the source: by which
// process, after which read.
type copyMark struct {
	id       int
	owner    *removeOwner
	read     model.Ref
	readName string // the name of the file read, then
}

type removeHit struct {
	ino         *model.Inode // the file still pending
	removed     string       // the path removed or emptied
	read, at    model.Ref    // the read of the removed file, the removal
	readName    string       // the removed file's name at the read
	first, last model.Ref    // the pending writes' ends
	state       *State
	// For a truncation: the file emptied and the process that emptied
	// it. If that process writes the file again, it rewrites it in place
	// (truncate-in-place's mistake), and the hit is dropped.
	truncated int
	by        any
	dropped   bool
	// unnamed says that the copy's bytes were durable and its name was
	// not: named is the entry operation that gave it the name a crash
	// can lose (of a directory above it when that is what is missing),
	// gone that directory ("" when it is the copy's own name).
	unnamed bool
	named   model.Ref
	gone    string
	// then is the copy's name when the file was removed: the words name
	// it by that when it was later renamed to the name removed (zip's
	// temp file, renamed over the archive it unlinked).
	then string
}

func (rs *removeBeforeSync) owner(r *run, pid int, make bool) *removeOwner {
	k := r.m.Procs().Owner(pid)
	if k == nil {
		return nil
	}
	o := rs.owners[k]
	if o == nil && make {
		if rs.owners == nil {
			rs.owners = map[any]*removeOwner{}
		}
		if len(rs.owners) >= rs.pruneAt {
			rs.prune(r)
		}
		o = &removeOwner{synced: -1}
		rs.owners[k] = o
	}
	return o
}

// prune drops the processes that are gone, and sets the next size to
// prune at to twice what is left, so that pruning costs a constant per
// process. What they wrote stays in sources (cp exits before rm runs).
func (rs *removeBeforeSync) prune(r *run) {
	live := make(map[any]bool, len(rs.owners))
	r.m.Procs().EachOwner(func(k any) {
		if _, ok := rs.owners[k]; ok {
			live[k] = true
		}
	})
	for k := range rs.owners {
		if !live[k] {
			delete(rs.owners, k)
		}
	}
	rs.pruneAt = 2*len(rs.owners) + 64
}

func (rs *removeBeforeSync) Observe(r *run, e *model.Effect) {
	switch e.Kind {
	case model.EffRead:
		rs.read(r, e.Inode, e.Ref)
	case model.EffWrite:
		if e.Source != nil {
			rs.read(r, e.Source, e.Ref)
		}
		if len(rs.truncs) > 0 && e.Inode != nil {
			rs.rewritten(r, e)
		}
		if len(rs.fresh) > 0 && e.Inode != nil {
			if g, ok := rs.fresh[e.Inode.ID]; ok && r.m.Procs().Owner(g.by.PID) == r.m.Procs().Owner(e.Ref.PID) {
				delete(rs.fresh, e.Inode.ID)
				g.wrote = e.Ref
				rs.rewrote = append(rs.rewrote, g)
			}
		}
		if len(rs.owners) == 0 || e.Inode == nil || e.Data == nil || e.Data.Kind != model.DataWrite {
			return
		}
		if o := rs.owner(r, e.Ref.PID, false); o != nil {
			rs.wrote(o, e.Inode.ID)
		}
	case model.EffFileSync:
		if len(rs.owners) > 0 && e.HadPending() {
			if o := rs.owner(r, e.Ref.PID, false); o != nil {
				o.synced = e.Ref.Seq
			}
		}
	case model.EffEntry:
		if len(rs.gaps) > 0 {
			rs.filled(r, e)
		}
		switch {
		case e.Entry.Kind == model.EntryUnlink && len(rs.sources) > 0:
			rs.removed(r, e)
		case e.Entry.Kind == model.EntryRename && (len(rs.sources) > 0 || len(rs.owners) > 0):
			rs.movedAway(r, e)
		}
	case model.EffTruncate:
		if len(rs.sources) > 0 && e.Data != nil && e.Inode != nil && e.Data.Size >= 0 &&
			(e.Data.SizeBefore < 0 || e.Data.Size < e.Data.SizeBefore) {
			rs.emptied(r, e)
		}
	}
}

// read notes that the event at read the data of f.
func (rs *removeBeforeSync) read(r *run, f *model.Inode, at model.Ref) {
	o := rs.owner(r, at.PID, true)
	if o == nil {
		return
	}
	o.gen++
	if m := o.readOf(f.ID); m != nil {
		m.at, m.name = at, f.Name()
		return
	}
	o.reads[o.nr] = readMark{f.ID, at, f.Name()}
	o.nr = (o.nr + 1) % ownerRing
}

// wrote notes file id, written by o, as a copy of each file o read
// before.
func (rs *removeBeforeSync) wrote(o *removeOwner, id int) {
	if o.wrote == id && o.wroteGen == o.gen {
		return
	}
	o.wrote, o.wroteGen = id, o.gen
	for _, rd := range o.reads {
		if rd.id == 0 || rd.id == id {
			continue
		}
		s := rs.sources[rd.id]
		if s == nil {
			rs.makeRoom()
			s = &readCopies{}
			rs.sources[rd.id] = s
			rs.order = append(rs.order, rd.id)
		}
		known := false
		for i := range s.n {
			if c := &s.copies[i]; c.id == id && c.owner == o {
				c.read, c.readName, known = rd.at, rd.name, true
			}
		}
		if !known && s.n < ownerRing {
			s.copies[s.n] = copyMark{id, o, rd.at, rd.name}
			s.n++
		}
	}
}

// makeRoom drops the oldest files read while maxSources are kept, and
// the keys of those removed since from order, once they are as many as
// the files kept.
func (rs *removeBeforeSync) makeRoom() {
	if rs.sources == nil {
		rs.sources = map[int]*readCopies{}
	}
	for len(rs.sources) >= maxSources {
		delete(rs.sources, rs.order[0])
		rs.order = rs.order[1:]
	}
	if len(rs.order) >= 2*maxSources {
		kept := make([]int, 0, len(rs.sources))
		for _, id := range rs.order {
			if _, ok := rs.sources[id]; ok {
				kept = append(kept, id)
			}
		}
		rs.order = kept
	}
}

// removed looks at an unlink: for each file it took the last name of,
// whether a process read it and wrote a file that is still pending.
func (rs *removeBeforeSync) removed(r *run, e *model.Effect) {
	for _, c := range e.Entry.Changes {
		f := c.Old
		if f == nil || c.New != nil || f.Dir {
			continue
		}
		if len(f.Names()) > 0 {
			// The file keeps another name (a backup linked first):
			// the name unlinked is a gap all the same.
			rs.freed(r, e, c)
			continue
		}
		s := rs.sources[f.ID]
		if s == nil {
			continue
		}
		delete(rs.sources, f.ID) // a name of a file gone is never removed again
		if f.DataPending() || !rs.heldDurable(r, f, c.Path) {
			continue
		}
		rs.gap(c.Path, s, readMark{}, e.Ref, demonstrate(r.m, e.Ref, c.Path), "", false) // the name removed: missing
		rs.copiesLost(r, f, s, c.Path, e.Ref, removeHit{})
	}
}

// movedAway looks at a rename: a file moved from a name to another (its
// backup: gpg's pubring.kbx~, sed -i.bak) leaves the name it had with no
// file, as an unlink does, until something else takes it.
func (rs *removeBeforeSync) movedAway(r *run, e *model.Effect) {
	for _, c := range e.Entry.Changes {
		if c.Old != nil && c.New == nil && !c.Old.Dir {
			rs.freed(r, e, c)
		}
	}
}

// freed notes a gap at c.Path when entry operation e took that name from
// file c.Old, which keeps another: if a process read the file and wrote
// others since, its content was durable and a crash right after e can
// show the name with no file at all. The file stays in sources: it was
// not removed.
func (rs *removeBeforeSync) freed(r *run, e *model.Effect, c model.NameChange) {
	f := c.Old
	s := rs.sources[f.ID]
	var read readMark
	if s == nil {
		// No copy written yet: the process that moves the file away
		// read it, and may write its new version under the name.
		read = rs.readBy(r, e.Ref.PID, f.ID)
		if read.at.Line == 0 || e.Entry.Kind != model.EntryRename {
			return
		}
	}
	// Writes still pending on the file moved away do not close the gap:
	// what the name held on disk before them goes with the file, and a
	// sync of the file would not put the name back (Python's dbm.dumb
	// appends to its index, renames it to .bak and writes a new one).
	// A copy written from it is another matter (see removed).
	if (s != nil && f.DataPending()) || !rs.heldDurable(r, f, c.Path) {
		return
	}
	// The model is asked whether a crash now can leave the name itself
	// missing (not a directory above it): the operation kept, nothing
	// put in its place yet.
	st, ok := r.m.CrashFirst(c.Path, 256, func(s model.PathState) bool {
		return s.Outcome == model.Missing && s.Gone == ""
	})
	if !ok {
		return
	}
	backup := ""
	for _, o := range e.Entry.Changes {
		if o.New == f {
			backup = o.Path
		}
	}
	if backup == "" && len(f.Names()) > 0 {
		backup = f.Names()[0]
	}
	rs.gap(c.Path, s, read, e.Ref, stateOf(r.m, e.Ref, c.Path, st), backup, e.Entry.Kind == model.EntryRename)
}

// readBy is the last read of file id by the process of pid that it
// still keeps (zero if none).
func (rs *removeBeforeSync) readBy(r *run, pid, id int) readMark {
	if o := rs.owner(r, pid, false); o != nil {
		if m := o.readOf(id); m != nil {
			return *m
		}
	}
	return readMark{}
}

// readOf is o's kept read of file id, nil if none.
func (o *removeOwner) readOf(id int) *readMark {
	for i := range o.reads {
		if o.reads[i].id == id {
			return &o.reads[i]
		}
	}
	return nil
}

// gap notes that the operation at at left p with no file while s's
// copies of its file exist (s nil: none yet, and read is the read of the
// file by the process that moved it); state shows the name missing,
// backup is the name the file kept.
func (rs *removeBeforeSync) gap(p string, s *readCopies, read readMark, at model.Ref, state *State, backup string, moved bool) {
	g := replaceGap{path: p, at: at, state: state, backup: backup, moved: moved, read: read.at, readName: read.name}
	if s == nil {
		s = &readCopies{}
	}
	for i, cp := range s.copies[:s.n] {
		g.copies[i] = cp.id
		if cp.read.Seq > g.read.Seq {
			g.read, g.readName = cp.read, cp.readName
		}
	}

	if rs.gaps == nil || len(rs.gaps) >= maxGaps {
		rs.gaps = map[string]replaceGap{}
	}
	rs.gaps[p] = g
}

// filled looks at an entry operation that gives a file to a path a
// removal left empty: a copy of the file removed, renamed there, is the
// replace remove-before-rename reports; anything else ends the watch.
func (rs *removeBeforeSync) filled(r *run, e *model.Effect) {
	for _, c := range e.Entry.Changes {
		g, ok := rs.gaps[c.Path]
		if !ok || c.New == nil {
			continue
		}
		delete(rs.gaps, c.Path)
		if e.Entry.Kind == model.EntryCreate && g.moved && !c.New.Initial && g.read.Line != 0 &&
			r.m.Procs().Owner(g.read.PID) == r.m.Procs().Owner(e.Ref.PID) {
			// A new file made at the name by the process that read the
			// one moved away: its new version, if that process writes it.
			g.by = e.Ref
			if rs.fresh == nil || len(rs.fresh) >= maxGaps {
				rs.fresh = map[int]replaceGap{}
			}
			rs.fresh[c.New.ID] = g
			continue
		}
		if e.Entry.Kind != model.EntryRename && e.Entry.Kind != model.EntryLink || !slices.Contains(g.copies[:], c.New.ID) {
			// A link fills it as a rename does: plocate's updatedb
			// writes the new database into an O_TMPFILE, unlinks the
			// old one and links the new file to its name.
			continue
		}
		if c.New.Initial || len(c.New.Paths()) > 2 {
			// Not a temp file made for the new version (its name, then
			// this one): a log rotation renames the file it appended to
			// down the line, and the oldest over the one it removed.
			continue
		}
		g.by = e.Ref
		for _, o := range e.Entry.Changes {
			if o.Old == c.New && o.New == nil {
				g.copyOf = o.Path
			}
		}
		if e.Entry.Kind == model.EntryLink {
			g.linked = true
			for _, q := range c.New.Paths() {
				if q != c.Path {
					g.copyOf = q // the temp name it keeps
					break
				}
			}
		}
		if g.readName != "" && g.readName == g.copyOf {
			// The program read the file removed under the name its new
			// version comes from: that is the name it reads, and this a
			// backup rotated (dbm.dumb unlinks data.bak and renames
			// data.dir to it). A crash in between leaves the backup
			// missing and the data where the program looks for it.
			continue
		}
		rs.renamed = append(rs.renamed, g)
		// The program named the file's new version: the other files it
		// wrote after reading the file were not copies of it (vim
		// rewrites its .viminfo by a temp file after saving the file
		// being edited, and that file held none of .viminfo's data).
		for i := range rs.hits {
			if h := &rs.hits[i]; h.at.Seq == g.at.Seq && h.removed == g.path && h.ino != c.New {
				h.dropped = true
			}
		}
	}
}

// emptied looks at a truncation that shrank a file (logrotate's
// copytruncate: cp log log.1, then empty log): whether a process read
// it and wrote a file that is still pending.
func (rs *removeBeforeSync) emptied(r *run, e *model.Effect) {
	f := e.Inode
	s := rs.sources[f.ID]
	if s == nil || f.Dir {
		return
	}
	delete(rs.sources, f.ID) // what was read from it is gone
	_, _, writes := f.PendingWriteEnds()
	if writes || len(f.Lost()) > 0 || !f.Initial && f.DurableSize <= e.Data.Size || !rs.heldDurable(r, f, f.Name()) {
		return
	}
	rs.copiesLost(r, f, s, f.Name(), e.Ref, removeHit{truncated: f.ID, by: r.m.Procs().Owner(e.Ref.PID)})
}

// rewritten drops the truncation hits of the file e wrote when the
// process that emptied it writes it: a rewrite in place, not a copy
// taken and its original emptied.
func (rs *removeBeforeSync) rewritten(r *run, e *model.Effect) {
	is, ok := rs.truncs[e.Inode.ID]
	if !ok {
		return
	}
	by := r.m.Procs().Owner(e.Ref.PID)
	kept := is[:0]
	for _, i := range is {
		if h := &rs.hits[i]; h.by == by {
			h.dropped = true
		} else {
			kept = append(kept, i)
		}
	}
	if len(kept) == 0 {
		delete(rs.truncs, e.Inode.ID)
	} else {
		rs.truncs[e.Inode.ID] = kept
	}
}

// copiesLost adds a hit for each file written from s (the copies of the
// file named p) whose writes after the read are still pending at at;
// and, when no copy is durable in data and name, one for each copy whose
// data is durable and whose name a crash can lose with the removal at.
func (rs *removeBeforeSync) copiesLost(r *run, src *model.Inode, s *readCopies, p string, at model.Ref, h removeHit) {
	var synced [ownerRing]copyMark // the copies whose writes after the read are durable
	ns := 0
	for _, cp := range s.copies[:s.n] {
		g := r.m.Inode(cp.id)
		if g == nil || g.Dir || len(g.Names()) == 0 {
			continue
		}
		// The copy is what was written after the read: a write before
		// it holds none of the file read (and named as the first
		// pending one, it read as if it did).
		first, last, ok := g.PendingWriteEndsAfter(cp.read.Seq)
		if !ok {
			if !slices.ContainsFunc(synced[:ns], func(c copyMark) bool { return c.id == cp.id }) {
				synced[ns] = cp
				ns++
			}
			continue
		}
		if cp.owner.synced > cp.read.Seq {
			continue
		}
		h := h
		h.first, h.last, h.state = first.Event(), last.Event(), demonstrate(r.m, at, g.Name())
		h.readName = cp.readName
		rs.add(r, g, p, cp.read, at, h)
	}
	var lost [ownerRing]removeHit
	nl := 0
	for _, cp := range synced[:ns] {
		g := r.m.Inode(cp.id)
		q := g.Name()
		// A state that shows the original at q keeps its data: vim
		// renames the file to its backup name, writes the new one and
		// removes the backup, and a crash can leave the rename undone.
		st, ok := r.m.NameLostWithLast(q, 256, g, src)
		if !ok {
			return // a copy durable in data and name: the data is kept
		}
		h := h
		h.unnamed, h.gone, h.state = true, st.Gone, stateOf(r.m, at, q, st)
		h.named = namedBy(r.m, q, st.Gone)
		lost[nl] = h
		nl++
	}
	for i, cp := range synced[:ns] {
		lost[i].readName = cp.readName
		rs.add(r, r.m.Inode(cp.id), p, cp.read, at, lost[i])
	}
}

// add records hit h of copy g of the file named p, read at read and
// removed or emptied at at.
func (rs *removeBeforeSync) add(r *run, g *model.Inode, p string, read, at model.Ref, h removeHit) {
	r.m.Pin(g)
	h.ino, h.removed, h.read, h.at, h.then = g, p, read, at, g.Name()
	if h.truncated != 0 {
		if rs.truncs == nil {
			rs.truncs = map[int][]int{}
		}
		rs.truncs[h.truncated] = append(rs.truncs[h.truncated], len(rs.hits))
	}
	rs.hits = append(rs.hits, h)
}

// namedBy is the newest pending entry operation on path q, or on the
// directory gone above it when a crash loses that one: what made the
// name a crash can lose. A zero Ref when there is none.
func namedBy(m *model.Model, q, gone string) model.Ref {
	if gone != "" {
		q = gone
	}
	if n := m.Names()[q]; n != nil && len(n.Ops) > 0 {
		return n.Ops[len(n.Ops)-1].Event()
	}
	return model.Ref{}
}

// heldDurable reports whether the removed file f, named p until now, had
// durable content: it existed before the trace, or its name was durable
// (its data is: the caller checked), and it is not on a volatile
// filesystem.
func (rs *removeBeforeSync) heldDurable(r *run, f *model.Inode, p string) bool {
	if r.opt != nil {
		if _, _, volatile := r.opt.volatileAt(p); volatile {
			return false // on tmpfs (mv from /dev/shm): a crash loses it anyway
		}
	}
	if f.Initial {
		return true
	}
	n := r.m.Names()[p]
	return n != nil && n.Durable == f
}

func (rs *removeBeforeSync) Finish(r *run) {
	for _, g := range rs.rewrote {
		p, bak := base(g.path), nearName(g.path, g.backup)
		f := newFinding(RemoveBeforeRename, g.path, g.at,
			fmt.Sprintf("%s was renamed to %s before its new version was written in a new file under its name (line %d): until that file's data is durable, a crash can leave %s missing or empty, its old content only under %s; write the new version to a temp file, fsync it, then rename it over %s (make the backup with link() or a copy first)",
				p, bak, g.wrote.Line, p, bak, p))
		f.relate(g.read, "reads "+readName(g.readName, p))
		f.relate(g.at, g.at.Syscall+" moves "+p+" to "+bak)
		f.relate(g.by, g.by.Syscall+" makes a new "+p)
		f.relate(g.wrote, "writes it, not yet durable")
		f.State = g.state
		r.emit(f)
	}
	for _, g := range rs.renamed {
		p, tmp := base(g.path), base(g.copyOf)
		f := newFinding(RemoveBeforeRename, g.path, g.at, gapWords(g, p, tmp))
		f.relate(g.read, "reads "+readName(g.readName, p))
		switch {
		case g.backup == "":
			f.relate(g.at, g.at.Syscall+" removes "+p)
		case g.moved:
			f.relate(g.at, g.at.Syscall+" moves "+p+" to "+nearName(g.path, g.backup))
		default:
			f.relate(g.at, g.at.Syscall+" removes "+p+", its file left only under "+nearName(g.path, g.backup))
		}
		if g.copyOf == "" {
			tmp = "the new file"
		}
		f.relate(g.by, g.by.Syscall+" puts "+tmp+" in its place")
		f.State = g.state
		r.emit(f)
	}
	for _, h := range rs.hits {
		if h.dropped {
			continue
		}
		p, gone := h.ino.Name(), base(h.removed)
		// The finding is on the copy's name at the end; its words name
		// it as it was called then, when it took the removed name since.
		called := p
		if p == h.removed && h.then != "" {
			called = h.then
		}
		removed, left, removing, removes := "removed", "gone", "removing", " removes "
		if h.truncated != 0 {
			removed, left, removing, removes = "emptied by a truncation", "emptied", "truncating", " truncates "
		}
		if h.unnamed {
			f := newFinding(RemoveBeforeSync, p, h.at, unnamedWords(h, called, gone, removed, left, removing))
			f.relate(h.read, "reads "+readName(h.readName, gone))
			switch {
			case h.named.Line == 0:
			case h.gone != "":
				f.relate(h.named, "makes "+base(h.gone)+", the directory holding it not yet synced")
			default:
				f.relate(h.named, "names "+base(called)+", its directory not yet synced")
			}
			f.relate(h.at, h.at.Syscall+removes+gone)
			f.State = h.state
			r.emit(f)
			continue
		}
		f := newFinding(RemoveBeforeSync, p, h.at,
			fmt.Sprintf("%s was %s while %s, written after %s was read, was only in the page cache: a crash can leave %s %s and %s empty or partial, the data in neither; fsync %s before %s %s",
				gone, removed, base(called), gone, gone, left, base(called), base(called), removing, gone))
		f.relate(h.read, "reads "+readName(h.readName, gone))
		f.relate(h.first, "written, not yet durable")
		if h.last.Line != h.first.Line {
			f.relate(h.last, "written, not yet durable")
		}
		f.relate(h.at, h.at.Syscall+removes+gone)
		f.State = h.state
		r.emit(f)
	}
}

// gapWords is the message of a replace in two steps: the name p freed,
// then the copy tmp renamed to it.
func gapWords(g replaceGap, p, tmp string) string {
	if g.backup == "" && g.copyOf == "" {
		// Linked from no name: an O_TMPFILE, which linkat cannot put
		// over a name that exists.
		return fmt.Sprintf("%s was removed before its new version, a file with no name yet (O_TMPFILE), was linked to its name at line %d: a crash in between leaves %s missing and the new data under no name; link the new file to a temp name, then rename that over %s (rename replaces a file in one step)",
			p, g.by.Line, p, p)
	}
	if g.backup == "" {
		moved := "renamed"
		if g.linked {
			moved = "linked"
		}
		return fmt.Sprintf("%s was removed before its new version, %s, was %s to its name at line %d: a crash in between leaves %s missing, its data only under %s, where nothing looks for it; rename %s over %s without removing %s first (rename replaces a file in one step)",
			p, tmp, moved, g.by.Line, p, tmp, tmp, p, p)
	}
	bak := nearName(g.path, g.backup)
	if !g.moved {
		// A backup linked first, then the name unlinked: the link was
		// the right move, the unlink is the gap.
		return fmt.Sprintf("%s was unlinked, its file kept only under %s, before its new version, %s, was renamed to its name at line %d: a crash in between can leave %s missing, its old content only under %s and the new only under %s; rename %s over %s without unlinking %s first (rename replaces a file in one step, and %s keeps the backup)",
			p, bak, tmp, g.by.Line, p, bak, tmp, tmp, p, p, bak)
	}
	return fmt.Sprintf("%s was renamed to %s before its new version, %s, was renamed to its name at line %d: a crash in between can leave %s missing, its old content only under %s and the new only under %s; make the backup with link() or a copy first, then rename %s over %s (rename replaces a file in one step)",
		p, bak, tmp, g.by.Line, p, bak, tmp, tmp, p)
}

// nearName is q's base name when it is in p's directory, else all of q.
func nearName(p, q string) string {
	if parentDirOf(p) == parentDirOf(q) {
		return base(q)
	}
	return q
}

// unnamedWords is the message of a hit whose copy, at p, had durable
// bytes and a name a crash could lose.
func unnamedWords(h removeHit, p, gone, removed, left, removing string) string {
	shows := "missing"
	if h.gone != "" {
		shows = "missing with the new directory " + base(h.gone)
	} else if h.state != nil {
		switch model.Outcome(h.state.Outcome) {
		case model.Missing:
		case model.Initial:
			shows = "as it was before the run"
		case model.Earlier:
			shows = "an earlier version"
		default:
			shows = "naming another file"
		}
	}
	copied := base(p)
	if copied == gone {
		gone, copied = h.removed, p // one base name in two directories
	}
	dir := dirWords(parentDirOf(p))
	if h.gone != "" {
		dir += " and the one holding " + base(h.gone)
	}
	return fmt.Sprintf("%s was %s after %s, written from it, was synced but before its name was durable: a crash can leave %s %s and %s %s, the data in neither; fsync %s before %s %s",
		gone, removed, copied, gone, left, copied, shows, dir, removing, gone)
}

// readName is how a related line names the file a read read: by its
// name at the read (the base of it), else by now, its name later.
func readName(then, now string) string {
	if then == "" {
		return now
	}
	return base(then)
}
