package model

import (
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
// it, Inode(id), Crash. The record holds a weak pointer to the Inode, so
// while anything else still holds the Inode (an open fd's Handle, a
// rule's map) the very same object comes back, and a retired Inode that
// nobody holds is rebuilt from the record with the same fields. The model
// changes an Inode only after bringing it back, so a retired one never
// drifts from its record.
//
// Whether a file is retired never changes what the model answers:
// TestRetireSameAsLive replays every fixture both ways.

// restInode is what a retired inode keeps: 64 bytes, the allocator's
// size class, for the file that had one name all along; another keeps
// its names in more.
type restInode struct {
	w        weak.Pointer[Inode]
	size     int64  // and DurableSize: with nothing pending they are one
	lastPath string // its one name now, or the last it had when deleted
	lastSync *Ref
	more     *restMore // nil: Paths is [lastPath], no sync_file_range
	hist     int32
	flags    restFlags
}

// restMore is what few retired inodes have.
type restMore struct {
	paths     []string
	syncRange *Ref
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
)

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
	for i, ino := range m.candInodes {
		m.candInodes[i] = nil
		ino.queued = false
		if !ino.retired && m.inodes[ino.ID-1] == ino && m.canRetire(ino) {
			m.retireInode(ino)
		}
	}
	m.candInodes = m.candInodes[:0]
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
	return n.Known && !n.Unsure && n.UnsureAt == nil && len(n.Ops) == 0 && n.Cache == ino && n.Durable == ino
}

// canRetire reports whether ino has nothing pending (see the top of the
// file).
func (m *Model) canRetire(ino *Inode) bool {
	if ino.Unsure || ino.FailedSync != nil || ino.Unmodeled != nil || ino.writeback ||
		ino.pending.len() > 0 || len(ino.Lost) > 0 || ino.opRefs > 0 || ino.hist > 1<<31-1 || ino.Size != ino.DurableSize {
		return false
	}
	switch {
	case len(ino.Names) == 0:
		if ino.Path != "" || len(ino.Paths) > 0 && ino.Paths[len(ino.Paths)-1] != ino.LastPath {
			return false
		}
	case len(ino.Names) == 1:
		if ino.Path != ino.Names[0] || ino.LastPath != ino.Path {
			return false
		}
	default:
		return false // hard links: rare, and kept whole
	}
	for _, p := range ino.Names {
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
	r := &restInode{
		w: weak.Make(ino), size: ino.Size, lastPath: ino.LastPath,
		lastSync: ino.LastSync,
		hist:     int32(ino.hist),
	}
	if len(ino.Paths) != 1 || ino.Paths[0] != ino.LastPath || ino.SyncRange != nil {
		r.more = &restMore{paths: ino.Paths, syncRange: ino.SyncRange}
	}
	for _, f := range []struct {
		on  bool
		bit restFlags
	}{
		{ino.Dir, restDir}, {ino.Initial, restInitial}, {len(ino.Names) == 1, restNamed},
		{ino.Written, restWritten}, {ino.Modified, restModified}, {ino.HadContent, restHadContent},
		{ino.syncedEmpty, restSyncedEmpty},
	} {
		if f.on {
			r.flags |= f.bit
		}
	}
	m.rest[ino.ID-1] = r
	m.nretired++
	for _, p := range ino.Names {
		delete(m.names, p)
		m.restPut(p, int32(ino.ID))
	}
	m.inodes[ino.ID-1] = nil
	ino.retired = true
}

// rebuild makes the inode a record was taken from, for one nobody held.
func (r *restInode) rebuild(id int) *Inode {
	ino := &Inode{
		ID: id, Dir: r.flags&restDir != 0, Initial: r.flags&restInitial != 0,
		LastPath: r.lastPath,
		Size:     r.size, DurableSize: r.size,
		Written: r.flags&restWritten != 0, Modified: r.flags&restModified != 0,
		LastSync:   r.lastSync,
		HadContent: r.flags&restHadContent != 0, hist: int(r.hist),
		syncedEmpty: r.flags&restSyncedEmpty != 0,
	}
	if r.more != nil {
		ino.Paths, ino.SyncRange = r.more.paths, r.more.syncRange
	} else {
		ino.Paths = []string{r.lastPath}
	}
	if r.flags&restNamed != 0 {
		ino.Path, ino.Names = r.lastPath, []string{r.lastPath}
	}
	return ino
}

// materialize returns inode id as it is, retired or not, without bringing
// it back: for a caller that only reads it, once.
func (m *Model) materialize(id int) *Inode {
	if ino := m.inodes[id-1]; ino != nil {
		return ino
	}
	r := m.rest[id-1]
	if r == nil {
		return nil
	}
	if ino := r.w.Value(); ino != nil {
		return ino
	}
	return r.rebuild(id)
}

// reviveID brings back retired inode id (a no-op for a live one) and
// returns it, with its name: the index of retired names holds only
// retired inodes (restindex.go).
func (m *Model) reviveID(id int) *Inode {
	if ino := m.inodes[id-1]; ino != nil {
		return ino
	}
	r := m.rest[id-1]
	if r == nil {
		return nil
	}
	named := r.flags&restNamed != 0
	if named {
		m.restDelete(r.lastPath)
	}
	m.rest[id-1] = nil
	m.nretired--
	ino := r.w.Value()
	if ino == nil {
		ino = r.rebuild(id)
	}
	ino.retired = false
	m.inodes[id-1] = ino
	m.queueInode(ino)
	if named {
		n := &Name{Path: r.lastPath, Known: true, Cache: ino, Durable: ino}
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
		// The weak pointer resolves while the fd holds the inode.
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
	f := m.rest[id-1].flags
	return nil, true, f&restDir != 0 && f&restInitial == 0, true
}

// peekDir reports whether p is retired, and then whether it names a
// directory.
func (m *Model) peekDir(p string) (id int32, retired, dir bool) {
	id, retired = m.restGet(p)
	if !retired || id == 0 {
		return id, retired, false
	}
	return id, true, m.rest[id-1].flags&restDir != 0
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
	return m.rest[id-1].size >= 0
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
	for i := range m.inodes {
		if ino := m.materialize(i + 1); ino != nil {
			f(ino)
		}
	}
}
