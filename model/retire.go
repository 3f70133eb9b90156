package model

import (
	"math"
	"slices"
	"weak"
)

// Retirement (Options.Retire) keeps the model's memory in step with the
// files that can still change, not with every file a trace ever touched.
//
// A file is retired once nothing about it is pending: its data and size
// are durable, every name it has is durable with no entry operation
// pending on it, no pending entry operation names it (as the file it
// replaced, say), and nothing the model cannot settle hangs on it (an
// unsure existence, a failed sync, an unmodeled change). What a later
// event or rule can ask of it then is fixed: its names, sizes, version
// count, the syncs that covered it. The model keeps those in a small
// record and drops the Inode and its Names from its own tables; a path
// that names nothing and has nothing pending (a temp name renamed away)
// is kept as a bare "known absent".
//
// Any later use brings the file back exactly as it was: a lookup of one
// of its names, an fd still open on it, a rename of a directory above
// it, Inode(id), Crash. While anything else still holds the Inode (an
// open fd's Handle, a rule's map) the very same object comes back, found
// through a weak pointer the model keeps for it; a retired Inode that
// nobody holds is rebuilt from the record with the same fields, and its
// weak pointer is let go at the next sweep. The model changes an Inode
// only after bringing it back, so a retired one never drifts from its
// record.
//
// The record holds nothing a persistence model decides: once settled, a
// file is the same in every model. The models of one check (Options.Shared)
// share it, in a table by inode ID, and the index of its name: a model
// retiring inode ID shares the record another model retired ID with only
// if every field is equal, so that models that numbered their inodes
// differently keep records of their own. A model's table of inodes lets
// go of a block of them once all are retired, so that a settled file
// costs a model nothing of its own; the shared record itself goes to a
// temp file once every model holds it (restspill.go).
//
// Whether a file is retired never changes what the model answers:
// TestRetireSameAsLive replays every fixture both ways.

// restInode is what a retired inode keeps: 48 bytes, for the file that
// had one name all along, its last sync packed (the Ref comes back built
// anew, equal); another keeps its names in a restMore beside it.
type restInode struct {
	lastPath string // its one name now, or the last it had when deleted
	size     int64  // and DurableSize: with nothing pending they are one
	// LastSync: Seq, Line, EndLine-Line, PID, and 1+ the index of its
	// File and Syscall in restShared.kinds (0: no LastSync, or more's).
	syncSeq, syncLine, syncEnd uint32
	syncPID                    int32
	hist                       int32
	syncKind                   uint16
	flags                      restFlags
	refs                       uint8 // the models that retired the inode with this record
}

// restMore is what few retired inodes have, kept in restShared.more.
type restMore struct {
	paths     []string
	ownPaths  bool // Paths is paths; else [lastPath]
	syncRange *Ref
	lastSync  *Ref // a LastSync the packed fields cannot hold
}

type restFlags uint8

const (
	restDir restFlags = 1 << iota
	restInitial
	restNamed // Names is [lastPath] and Path is lastPath; else it has no name
	restWritten
	restModified
	restHadContent
	restSyncedEmpty
	restHasMore // restShared.more holds the rest
)

// restBlock is how many records a block of the shared table holds.
const restBlock = 256

// restRecs is a block of the shared table: the records, and for each the
// marks of its turn in the queue to the temp file (restspill.go).
type restRecs struct {
	recs [restBlock]restInode
	mark [restBlock]restMark
}

type restMark uint8

const (
	markQueued  restMark = 1 << iota // its ID is in restShared.queue, once
	markRevived                      // a model brought it back since it was queued
)

// restShared is what the models of one Shared keep of retirement: how
// many models retire; the records by inode ID, in blocks of restBlock
// (nil while no model holds a record of the block), each shared by the
// models that retired the inode with the very same record (refs of
// them; refs 0 is an empty slot); the restMore of the records that have
// one; and the files and calls of packed syncs. A model that retires an
// inode with another record than the table's keeps it in Model.own.
// The records every model holds go to a temp file in turn (spill, queue
// from qhead on: restspill.go).
type restShared struct {
	models int
	blocks []*restRecs
	held   []int32     // records with refs > 0 in each block
	spare  []*restRecs // the last few blocks let go, all zero (see inodeTable)
	names  restIndex
	more   map[*restInode]*restMore
	kinds  []refKind
	kindOf map[refKind]uint16
	spill  restSpill
	queue  []int32
	qhead  int
}

type refKind struct{ file, syscall string }

// slot returns the table's place for inode id, making its block.
func (s *restShared) slot(id int32) *restInode {
	b := int(id-1) / restBlock
	for len(s.blocks) <= b {
		s.blocks = append(s.blocks, nil)
		s.held = append(s.held, 0)
	}
	if s.blocks[b] == nil {
		if k := len(s.spare); k > 0 {
			s.blocks[b], s.spare = s.spare[k-1], s.spare[:k-1]
		} else {
			s.blocks[b] = new(restRecs)
		}
	}
	return &s.blocks[b].recs[int(id-1)%restBlock]
}

// block returns the block of inode id and its place in it, without making
// it: nil when there is none.
func (s *restShared) block(id int32) (*restRecs, int) {
	b := int(id-1) / restBlock
	if b >= len(s.blocks) {
		return nil, 0
	}
	return s.blocks[b], int(id-1) % restBlock
}

// empty lets go of the record of inode id in the table, and of its block
// once that holds none.
func (s *restShared) empty(id int32) {
	r := s.slot(id)
	if r.flags&restHasMore != 0 {
		delete(s.more, r)
	}
	*r = restInode{}
	b := int(id-1) / restBlock
	if s.held[b]--; s.held[b] == 0 {
		// Its marks go with it: an ID of it still queued finds no
		// block, and is passed over.
		s.blocks[b].mark = [restBlock]restMark{}
		if len(s.spare) < spareBlocks {
			s.spare = append(s.spare, s.blocks[b])
		}
		s.blocks[b] = nil
	}
}

// settle queues the record of inode id, which every model holds now, for
// the temp file, and sends the oldest queued records there while more
// than restKeep wait.
func (s *restShared) settle(id int32) {
	b, i := s.block(id)
	if b.mark[i]&markQueued == 0 {
		b.mark[i] |= markQueued
		s.queue = append(s.queue, id)
	}
	for len(s.queue)-s.qhead > restKeep && s.spill.err == nil {
		id := s.queue[s.qhead]
		s.qhead++
		if s.qhead >= 1024 && 2*s.qhead >= len(s.queue) {
			s.queue = s.queue[:copy(s.queue, s.queue[s.qhead:])]
			s.qhead = 0
		}
		b, i := s.block(id)
		switch {
		case b == nil || b.mark[i]&markQueued == 0:
			// The block was let go since: the ID is queued again
			// when its record is back and settled.
		case int(b.recs[i].refs) != s.models:
			b.mark[i] &^= markQueued // a model has it live: queued again when it settles
		case b.mark[i]&markRevived != 0:
			b.mark[i] &^= markRevived // a second turn
			s.queue = append(s.queue, id)
		default:
			b.mark[i] &^= markQueued
			r := &b.recs[i]
			if w := s.spill.put(id, r, s.moreOf(r)); w != 0 {
				s.spill.setLoc(id, w)
				s.empty(id)
			}
		}
	}
}

// unspill brings the record of inode id back from the temp file into the
// table, held by every model as it was when it went out.
func (s *restShared) unspill(id int32) *restInode {
	w := s.spill.loc(id)
	if w == 0 {
		return s.slot(id)
	}
	rec, more, _ := s.spill.record(id, w)
	s.spill.setLoc(id, 0)
	r := s.slot(id)
	*r = rec
	r.refs = uint8(s.models)
	s.held[int(id-1)/restBlock]++
	if more != nil {
		s.setMore(r, more)
	} else {
		r.flags &^= restHasMore // a record that could not be read
	}
	return r
}

// moreOf returns r's restMore, or nil.
func (s *restShared) moreOf(r *restInode) *restMore {
	if r.flags&restHasMore == 0 {
		return nil
	}
	return s.more[r]
}

func (s *restShared) setMore(r *restInode, more *restMore) {
	if more == nil {
		return
	}
	if s.more == nil {
		s.more = map[*restInode]*restMore{}
	}
	s.more[r] = more
}

// record returns the record of retired inode id, read back into the
// table if it is in the temp file.
func (m *Model) record(id int32) *restInode {
	if r := m.own[id]; r != nil {
		return r
	}
	return m.shared().unspill(id)
}

// recordFlags returns the flags of the record of retired inode id, and
// whether its size is known, without bringing it back from the temp file
// (where the lookup of its name read it just before).
func (m *Model) recordFlags(id int32) (restFlags, bool) {
	if m.own[id] == nil {
		s := m.shared()
		if w := s.spill.loc(id); w != 0 {
			_, f, size, _ := s.spill.head(id, w)
			return f, size >= 0
		}
	}
	r := m.record(id)
	return r.flags, r.size >= 0
}

// packSync puts r into rec's packed fields, reporting false when they
// cannot hold it.
func (s *restShared) packSync(rec *restInode, r *Ref) bool {
	end := r.EndLine - r.Line
	if end < 0 || end > math.MaxUint32 || r.Seq < 0 || r.Seq > math.MaxUint32 || r.Line < 0 || r.Line > math.MaxUint32 ||
		r.PID < math.MinInt32 || r.PID > math.MaxInt32 {
		return false
	}
	k := refKind{r.File, r.Syscall}
	i, ok := s.kindOf[k]
	if !ok {
		if len(s.kinds) == math.MaxUint16 {
			return false
		}
		if s.kindOf == nil {
			s.kindOf = map[refKind]uint16{}
		}
		s.kinds = append(s.kinds, k)
		i = uint16(len(s.kinds))
		s.kindOf[k] = i
	}
	rec.syncSeq, rec.syncLine, rec.syncEnd, rec.syncPID, rec.syncKind = uint32(r.Seq), uint32(r.Line), uint32(end), int32(r.PID), i
	return true
}

// lastSync is the record's LastSync, built anew; more is its restMore.
func (r *restInode) lastSync(s *restShared, more *restMore) *Ref {
	if r.syncKind == 0 {
		if more != nil {
			return more.lastSync
		}
		return nil
	}
	k := s.kinds[r.syncKind-1]
	return &Ref{Seq: int(r.syncSeq), File: k.file, Line: int(r.syncLine), EndLine: int(r.syncLine) + int(r.syncEnd), PID: int(r.syncPID), Syscall: k.syscall}
}

// same reports whether record r, with its restMore in s, says the same of
// an inode as record o with more.
func (r *restInode) same(s *restShared, o *restInode, more *restMore) bool {
	a, b := *r, *o
	a.refs, b.refs = 0, 0
	if a != b {
		return false
	}
	rm := s.moreOf(r)
	if rm == nil || more == nil {
		return rm == more
	}
	return rm.ownPaths == more.ownPaths && (rm.paths == nil) == (more.paths == nil) && slices.Equal(rm.paths, more.paths) && sameRef(rm.syncRange, more.syncRange) && sameRef(rm.lastSync, more.lastSync)
}

func sameRef(a, b *Ref) bool { return a == b || a != nil && b != nil && *a == *b }

// shared returns what the model shares of retirement.
func (m *Model) shared() *restShared { return &m.opt.Shared.rest }

// retireBatch is how many candidates wait before a retirement pass: a
// file read in a loop through an open fd comes back at each read, and is
// retired again once a batch later rather than after each event.
const retireBatch = 256

// queueInode marks ino as a candidate for the next retirement pass.
func (m *Model) queueInode(ino *Inode) {
	if !m.opt.Retire || ino == nil || ino.queued {
		return
	}
	ino.queued = true
	m.candInodes = append(m.candInodes, ino)
}

func (m *Model) queueName(n *Name) {
	if !m.opt.Retire || n == nil || n.queued {
		return
	}
	n.queued = true
	m.candNames = append(m.candNames, n)
}

// maybeRetire runs a retirement pass once enough candidates wait.
func (m *Model) maybeRetire() {
	if len(m.candInodes)+len(m.candNames) >= m.retireEvery {
		m.retirePass()
	}
}

// retirePass retires the candidates that can be.
func (m *Model) retirePass() {
	m.heldByFD()
	for i, ino := range m.candInodes {
		m.candInodes[i] = nil
		ino.queued = false
		if !ino.retired && m.inodes.get(ino.ID) == ino && m.canRetire(ino) {
			m.retireInode(ino)
		}
	}
	m.candInodes = m.candInodes[:0]
	clear(m.fdHeld) // holding none of them till the next pass
	for i, n := range m.candNames {
		m.candNames[i] = nil
		n.queued = false
		if m.names[n.Path] == n && n.Cache == nil && restingName(n, nil) {
			delete(m.names, n.Path)
			m.restPut(n.Path, 0)
		}
	}
	m.candNames = m.candNames[:0]
	if cap(m.candInodes) > 4*m.retireEvery {
		m.candInodes = nil // a burst (sync of every file) must not stay allocated
	}
	if cap(m.candNames) > 4*m.retireEvery {
		m.candNames = nil
	}
}

// restingName reports whether a name has nothing pending and nothing
// unsettled, and names ino on both layers.
func restingName(n *Name, ino *Inode) bool {
	// An unsure name was unsure (wasUnsure), and keeps the event in
	// Model.unsureAt, which only a live name may.
	return n.Known && !n.wasUnsure && len(n.Ops) == 0 && n.Cache == ino && n.Durable == ino
}

// canRetire reports whether ino has nothing pending (see the top of the
// file).
func (m *Model) canRetire(ino *Inode) bool {
	if ino.Unsure || ino.FailedSync() != nil || ino.Unmodeled() != nil || ino.writeback() ||
		len(ino.pending) > 0 || len(ino.Lost()) > 0 || ino.opRefs > 0 || ino.hist > 1<<31-1 || ino.Size != ino.DurableSize {
		return false
	}
	names := ino.Names()
	switch {
	case len(names) == 0:
		if ino.Path != "" || len(ino.Paths()) > 0 && ino.Paths()[len(ino.Paths())-1] != ino.LastPath() {
			return false
		}
	case len(names) == 1:
		if ino.Path != names[0] || ino.LastPath() != ino.Path {
			return false
		}
	default:
		return false // hard links: rare, and kept whole
	}
	for _, p := range names {
		if n := m.names[p]; n != nil {
			if !restingName(n, ino) {
				return false
			}
		} else {
			return false // a live inode's names are live (reviveID)
		}
	}
	return true
}

func (m *Model) retireInode(ino *Inode) {
	s := m.shared()
	r := restInode{size: ino.Size, lastPath: ino.LastPath(), hist: int32(ino.hist)}
	ownPaths := len(ino.Paths()) != 1 || ino.Paths()[0] != ino.LastPath()
	var lastSync *Ref
	if ino.LastSync != nil && !s.packSync(&r, ino.LastSync) {
		lastSync = ino.LastSync
	}
	var more *restMore
	if ownPaths || ino.SyncRange() != nil || lastSync != nil {
		more = &restMore{syncRange: ino.SyncRange(), lastSync: lastSync}
		if ownPaths {
			more.paths, more.ownPaths = ino.Paths(), true
		}
	}
	for _, f := range []struct {
		on  bool
		bit restFlags
	}{
		{ino.Dir, restDir}, {ino.Initial, restInitial}, {len(ino.Names()) == 1, restNamed},
		{ino.Written, restWritten}, {ino.Modified, restModified}, {ino.HadContent, restHadContent},
		{ino.syncedEmpty(), restSyncedEmpty}, {more != nil, restHasMore},
	} {
		if f.on {
			r.flags |= f.bit
		}
	}
	id := int32(ino.ID)
	settled := false
	switch rec := s.unspill(id); {
	case rec.refs == 0:
		*rec = r
		rec.refs = 1
		s.held[int(id-1)/restBlock]++
		s.setMore(rec, more)
		settled = s.models == 1
	case rec.refs < math.MaxUint8 && rec.same(s, &r, more):
		rec.refs++
		settled = int(rec.refs) == s.models
	default:
		// Another model retired its inode id otherwise.
		rec = new(restInode)
		*rec = r
		rec.refs = 1
		s.setMore(rec, more)
		if m.own == nil {
			m.own = map[int32]*restInode{}
		}
		m.own[id] = rec
	}
	m.nretired++
	if m.mayBeHeld(ino) {
		m.keepWeak(id, ino)
	} else if m.opt.AuditPins {
		m.auditRetired(id, ino)
	}
	for _, p := range ino.Names() {
		delete(m.names, p)
		m.restPut(p, id)
	}
	m.inodes.set(ino.ID, nil)
	ino.retired = true
	if settled {
		s.settle(id)
	}
}

// unshare lets go of record r of inode id, as a model brings it back.
func (m *Model) unshare(id int32, r *restInode) {
	s := m.shared()
	own := m.own[id] == r
	if !own {
		b, i := s.block(id)
		b.mark[i] |= markRevived
	}
	if r.refs--; r.refs > 0 {
		return
	}
	if own {
		delete(m.own, id)
		return
	}
	s.empty(id)
}

// weakSweepMin is the fewest weak pointers the model keeps before it
// sweeps them. A variable for tests, which sweep at every retirement.
var weakSweepMin = 1024

// keepWeak keeps a weak pointer to retired inode ino, so that while
// something else holds it (an fd's Handle, a rule) it is the inode that
// comes back. Once nobody holds it the pointer is useless: a sweep, when
// the pointers have doubled since the last, drops those, so that they
// cost memory for the inodes still held rather than for every retired
// one.
func (m *Model) keepWeak(id int32, ino *Inode) {
	if m.weaks.set(id, weak.Make(ino)) {
		m.weaks.sweep()
	}
}

// held returns retired inode id's Inode if something still holds it.
func (m *Model) held(id int) *Inode {
	if w, ok := m.weaks.get(int32(id)); ok {
		return w.Value()
	}
	return nil
}

// rebuild makes the inode a record was taken from, for one nobody held.
func (r *restInode) rebuild(id int, s *restShared) *Inode {
	return r.rebuildWith(id, s, s.moreOf(r))
}

// rebuildWith is rebuild, with the record's restMore given.
func (r *restInode) rebuildWith(id int, s *restShared, more *restMore) *Inode {
	ino := &Inode{
		ID: id, Dir: r.flags&restDir != 0, Initial: r.flags&restInitial != 0,
		Size: r.size, DurableSize: r.size,
		Written: r.flags&restWritten != 0, Modified: r.flags&restModified != 0,
		LastSync:   r.lastSync(s, more),
		HadContent: r.flags&restHadContent != 0, hist: int(r.hist),
		sizeLoose: true, // the record does not say whether Size is exact
	}
	if r.flags&restSyncedEmpty != 0 {
		ino.extra().syncedEmpty = true
	}
	paths := []string{r.lastPath}
	if more != nil {
		if more.ownPaths {
			paths = more.paths
		}
		if more.syncRange != nil {
			ino.extra().syncRange = more.syncRange
		}
	}
	if r.flags&restNamed != 0 {
		ino.Path, ino.name1 = r.lastPath, &[1]string{r.lastPath}
	}
	ino.setHistory(r.lastPath, paths)
	return ino
}

// materialize returns inode id as it is, retired or not, without bringing
// it back: for a caller that only reads it, once.
func (m *Model) materialize(id int) *Inode {
	ino, r, more := m.peekInode(id)
	if ino != nil {
		return ino
	}
	return r.rebuildWith(id, m.shared(), more)
}

// peekInode returns inode id when it is live or held; else (nil) a copy
// of its record and the record's restMore, read from the temp file when
// it is there, not brought back into the table: EachInode and EachFile
// read every retired inode once.
func (m *Model) peekInode(id int) (*Inode, restInode, *restMore) {
	if ino := m.inodes.get(id); ino != nil {
		return ino, restInode{}, nil
	}
	if ino := m.held(id); ino != nil {
		return ino, restInode{}, nil
	}
	s := m.shared()
	if m.own[int32(id)] == nil {
		if w := s.spill.loc(int32(id)); w != 0 {
			r, more, _ := s.spill.record(int32(id), w)
			return nil, r, more
		}
	}
	r := m.record(int32(id))
	return nil, *r, s.moreOf(r)
}

// reviveID brings back retired inode id (a no-op for a live one) and
// returns it, with its name: the index of retired names holds only
// retired inodes (restindex.go).
func (m *Model) reviveID(id int) *Inode {
	if ino := m.inodes.get(id); ino != nil {
		return ino
	}
	r := m.record(int32(id))
	named, path := r.flags&restNamed != 0, r.lastPath
	if named {
		m.restDelete(path)
	}
	ino := m.held(id)
	m.weaks.clear(int32(id))
	if ino == nil {
		ino = r.rebuild(id, m.shared())
	}
	m.nretired--
	m.unshare(int32(id), r)
	ino.retired = false
	m.inodes.set(id, ino)
	m.queueInode(ino)
	if named {
		n := &Name{Path: path, Known: true, Cache: ino, Durable: ino}
		m.names[n.Path] = n
		m.queueName(n)
	}
	return ino
}

// live returns ino, brought back first when it is retired: what an fd
// still open on a retired file reaches it through.
func (m *Model) live(ino *Inode) *Inode {
	if ino == nil || !ino.retired {
		return ino
	}
	if got := m.reviveID(ino.ID); got != ino {
		// The weak pointer resolves while the fd holds the inode, and a
		// sweep keeps it.
		panic("model: a retired inode came back as another object")
	}
	return ino
}

// nameOf returns the state of path p, bringing it back when retired, or
// nil when the trace never named it.
func (m *Model) nameOf(p string) *Name {
	if n := m.names[p]; n != nil {
		return n
	}
	id, ok := m.restGet(p)
	switch {
	case !ok:
		return nil
	case id != 0:
		m.reviveID(int(id))
		return m.names[p]
	}
	m.restDelete(p)
	n := &Name{Path: p, Known: true}
	m.names[p] = n
	m.queueName(n)
	return n
}

// peek answers what a name's state says without bringing it back: the
// live Name (nil when retired or never named), whether p names something
// in the page cache, whether that is a directory the trace made, and
// whether the trace named p at all.
func (m *Model) peek(p string) (n *Name, exists, newDir, ok bool) {
	if n := m.names[p]; n != nil {
		c := n.Cache
		return n, c != nil, c != nil && c.Dir && !c.Initial, true
	}
	id, ok := m.restGet(p)
	if !ok {
		return nil, false, false, false
	}
	if id == 0 {
		return nil, false, false, true
	}
	f, _ := m.recordFlags(id)
	return nil, true, f&restDir != 0 && f&restInitial == 0, true
}

// peekDir reports whether p is retired, and then whether it names a
// directory.
func (m *Model) peekDir(p string) (id int32, retired, dir bool) {
	id, retired = m.restGet(p)
	if !retired || id == 0 {
		return id, retired, false
	}
	f, _ := m.recordFlags(id)
	return id, true, f&restDir != 0
}

// restingSized reports whether p is retired naming nothing or a file of
// known size: what a stat of p cannot change.
func (m *Model) restingSized(p string) bool {
	id, retired := m.restGet(p)
	switch {
	case !retired:
		return false
	case id == 0:
		return true
	}
	_, sized := m.recordFlags(id)
	return sized
}

// reviveBelow brings back every retired name below directory prefix (which
// ends in "/"), for a rename of that directory.
func (m *Model) reviveBelow(prefix string) {
	for _, p := range m.restBelow(prefix) {
		m.nameOf(p)
	}
}

// Retired returns how many inodes are retired now (see Options.Retire).
func (m *Model) Retired() int { return m.nretired }

// EachInode calls f with every inode the trace touched, in order of first
// sight, retired ones included, as Inodes would list them with retirement
// off. A retired inode is not brought back: f must only read it, and not
// keep it.
func (m *Model) EachInode(f func(*Inode)) {
	for id := 1; id <= m.inodes.n; id++ {
		f(m.materialize(id))
	}
}

// EachFile calls f, in the order of EachInode, with what a count of the
// files reads of each inode: its Name, Dir and whether the trace changed
// it: Modified, or Unsure with a name (an open with O_CREAT may have
// created it, and a check judges that creation). A retired
// inode's are read from its record, which EachInode would rebuild into
// an Inode: a settled file costs no allocation here.
func (m *Model) EachFile(f func(name string, dir, modified bool)) {
	for id := 1; id <= m.inodes.n; id++ {
		ino, r, _ := m.peekInode(id)
		if ino != nil {
			name := ino.Name()
			// Unsure inodes are never retired (retirable).
			f(name, ino.Dir, ino.Modified || ino.Unsure && name != "")
			continue
		}
		// A rebuilt inode's Path, else its LastPath, is the record's
		// lastPath (rebuildWith).
		f(r.lastPath, r.flags&restDir != 0, r.flags&restModified != 0)
	}
}
