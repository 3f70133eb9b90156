package model

import (
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// EntryKind says what an entry operation did to a directory.
type EntryKind uint8

const (
	EntryCreate   EntryKind = iota // open(O_CREAT) that created a file, mknod
	EntryMkdir                     // mkdir
	EntryLink                      // link
	EntrySymlink                   // symlink
	EntryUnlink                    // unlink
	EntryRmdir                     // rmdir
	EntryRename                    // rename, renameat, renameat2
	EntryExchange                  // renameat2(RENAME_EXCHANGE)
)

var entryWords = [...]string{"create", "mkdir", "link", "symlink", "unlink", "rmdir", "rename", "exchange"}

func (k EntryKind) String() string { return entryWords[k] }

// NameChange is one name an entry operation changed: Old was there before
// (nil: absent), New after (nil: removed).
type NameChange struct {
	Path     string
	Old, New *Inode
}

// EntryOp is one change to directory entries. It is atomic: a crash keeps
// all its name changes or none. It is durable once every directory it
// touched was synced after it (or the whole filesystem was).
//
// A check of many new files keeps one create a file and model until a
// directory sync, so the op holds no more than it must: its directories
// follow from its changes (see Dirs), and its place among the model's ops
// fits in 32 bits, which puts a create with its one change in the 80-byte
// size class (the 112-byte one with a slice of directories and an int).
type EntryOp struct {
	Kind    EntryKind
	Durable bool
	synced  uint8 // bit i: directory i of dirs was synced after the op
	ndirs   uint8 // how many directories the op changed entries in (dirs)
	order   int32 // place among the model's entry ops, from 1
	event   opRef // see Event
	Changes []NameChange
}

// maxOpDirs is how many directories an op keeps: the first ones its
// changes name.
const maxOpDirs = 4

// dirs returns the directories the op changed entries in: the parents of
// its changes' paths, each once, in the order of the changes, at most
// maxOpDirs. The moved descendants a directory rename adds to its changes
// afterwards (moveChildren) add none: ndirs was counted before.
func (op *EntryOp) dirs() (ds [maxOpDirs]string, n int) {
	for _, c := range op.Changes {
		if n == int(op.ndirs) {
			break
		}
		d := parentDir(c.Path)
		if !slices.Contains(ds[:n], d) {
			ds[n] = d
			n++
		}
	}
	return ds, n
}

// Dirs lists the directories the op changed entries in, at most four: a
// crash keeps the op once every one of them was synced after it.
func (op *EntryOp) Dirs() []string {
	ds, n := op.dirs()
	return slices.Clone(ds[:n])
}

// UnsyncedDirs lists the directories of Dirs not synced since the op:
// the ones a crash still waits for before it keeps the op (of a rename
// between two directories, the one left to sync when the other was).
func (op *EntryOp) UnsyncedDirs() []string {
	ds, n := op.dirs()
	var out []string
	for i, d := range ds[:n] {
		if op.synced&(1<<i) == 0 {
			out = append(out, d)
		}
	}
	return out
}

// NumDirs is len(Dirs()), without the copy.
func (op *EntryOp) NumDirs() int { return int(op.ndirs) }

// Event is the event that made the op.
func (op *EntryOp) Event() Ref { return op.event.ref() }

// seq is Event().Seq, without building the Ref: the syncs compare it
// for every pending op.
func (op *EntryOp) seq() int { return op.event.seqOf() }

// entryOne and entryTwo are an EntryOp allocated with room for its name
// changes: a check of many new files keeps one create a file and model
// until a directory sync, and the two in one allocation cost less than
// apart.
type entryOne struct {
	op      EntryOp
	changes [1]NameChange
}

type entryTwo struct {
	op      EntryOp
	changes [2]NameChange
}

// newEntryOp returns an EntryOp of changes (copied).
func newEntryOp(kind EntryKind, ev opRef, changes []NameChange) *EntryOp {
	var op *EntryOp
	switch len(changes) {
	case 1:
		a := &entryOne{}
		a.op.Changes = a.changes[:0:1]
		op = &a.op
	case 2:
		a := &entryTwo{}
		a.op.Changes = a.changes[:0:2]
		op = &a.op
	default:
		op = &EntryOp{}
	}
	op.Kind, op.event = kind, ev
	op.Changes = append(op.Changes, changes...)
	return op
}

// Node is the inode an entry operation is about: the created, renamed or
// removed one.
func (op *EntryOp) Node() *Inode {
	for _, c := range op.Changes {
		if c.New != nil {
			return c.New
		}
	}
	for _, c := range op.Changes {
		if c.Old != nil {
			return c.Old
		}
	}
	return nil
}

// Name is the state of one path: the inode it names in the page cache and
// on disk. Known is false until the trace says whether the path existed
// before it began.
type Name struct {
	Path    string
	Cache   *Inode
	Durable *Inode
	Known   bool
	// Unsure is set when the trace used the path without saying whether
	// it existed before (open with O_CREAT but not O_EXCL, a rename onto
	// it) and there is no listing: the model takes what was there as an
	// initial inode of unknown content, which may be no file at all.
	// Model.UnsureAt gives the event that used it. A later fstat with a
	// size, or a read that found data, settles it.
	Unsure bool
	queued bool // waits for a retirement pass (retire.go)
	// wasUnsure: the name was unsure at some point (Model.UnsureAt has
	// the event), settled or not.
	wasUnsure bool
	// touched marks the name for one jointCount call.
	touched int32
	// Ops changed this name since it was last durable.
	Ops []*EntryOp
}

// A check of many unsynced files keeps one Name a file and model: the
// rare fields live outside it (Model.unsureAt), so that it fits the
// 64-byte size class.
var _ [64 - unsafe.Sizeof(Name{})]struct{}

// UnsureAt is the event that made n unsure (see Name.Unsure), the last
// one if several did, nil if none did. It stays after the name settles.
func (m *Model) UnsureAt(n *Name) *Ref {
	if !n.wasUnsure {
		return nil
	}
	return m.unsureAt[n]
}

// unsure makes p's state before the trace an initial inode whose
// existence the trace does not settle, and returns it. create says an
// open with O_CREAT did (which made an empty file if there was none), not
// a rename onto p.
func (m *Model) unsure(p string, at Ref, create bool) *Inode {
	n := m.name(p)
	ino := m.lookup(p, true)
	ino.Unsure = true
	n.Unsure, n.wasUnsure = true, true
	if m.unsureAt == nil {
		m.unsureAt = map[*Name]*Ref{}
	}
	m.unsureAt[n] = &at
	if m.unsureIn == nil {
		m.unsureIn, m.madeDurable = map[string][]*Name{}, map[*Name]bool{}
	}
	if !create {
		delete(m.madeDurable, n) // made unsure again, by a rename
		return ino
	}
	m.madeDurable[n] = false // an open's, not yet synced
	d := parentDir(p)
	m.unsureIn[d] = append(m.unsureIn[d], n)
	return ino
}

// unsureSynced notes that an fsync of directory d, completed at cut,
// covers the unsure names in it that became unsure before cut (see
// madeDurably).
func (m *Model) unsureSynced(d string, cut int) {
	names := m.unsureIn[d]
	if len(names) == 0 {
		return
	}
	kept := names[:0]
	for _, n := range names {
		if at := m.unsureAt[n]; at != nil && at.Seq < cut {
			if _, open := m.madeDurable[n]; open {
				m.madeDurable[n] = true
			}
		} else {
			kept = append(kept, n)
		}
	}
	clear(names[len(kept):])
	if len(kept) == 0 {
		delete(m.unsureIn, d)
	} else {
		m.unsureIn[d] = kept
	}
}

// knownExisting reports whether p's existence before the trace is settled
// by the trace or the listing, and whether it existed.
func (m *Model) knownExisting(p string) (existed, known bool) {
	if n, exists, _, ok := m.peek(p); ok && (n == nil || n.Known) {
		return exists, true
	}
	return m.existedBefore(p)
}

// newDir reports whether the directory d was made in the trace: nothing
// in it existed before.
func (m *Model) newDir(d string) bool {
	_, _, made, _ := m.peek(d)
	return made
}

// settle records that an unsure inode existed before the trace (a size
// or data the trace showed), and reports whether it was unsure.
func (m *Model) settle(ino *Inode) bool {
	if !ino.Unsure {
		return false
	}
	ino.Unsure = false
	m.queueInode(ino)
	for _, p := range ino.Names() {
		if n := m.names[p]; n != nil {
			n.Unsure = false
		}
	}
	return true
}

// Pending reports whether a crash could show this name differently from
// what the program saw.
func (n *Name) Pending() bool { return n.Cache != n.Durable }

// parentDir is path.Dir for a clean path, which every path of the model
// is. It looks at the last element only: path.Dir cleans the whole path
// again, and the walks up a path's ancestors (ancestors, the joint
// counter) call it once per element, which made a deep path cost the
// square of its length at every step.
func parentDir(p string) string {
	switch i := strings.LastIndexByte(p, '/'); {
	case i < 0:
		return "."
	case i == 0:
		return "/"
	default:
		return p[:i]
	}
}

// name returns the state of path p, creating it unknown.
func (m *Model) name(p string) *Name {
	if n := m.nameOf(p); n != nil {
		return n
	}
	n := &Name{Path: p}
	m.names[p] = n
	m.queueName(n)
	return n
}

// lookup returns the inode path p names in the page cache. When the trace
// has not yet said whether p existed, exists tells (a successful call on
// p proves it), and an inode from before the trace is made.
func (m *Model) lookup(p string, exists bool) *Inode {
	n := m.name(p)
	if n.Known {
		return n.Cache
	}
	if !exists {
		if m.opt.Existed != nil {
			if e, known := m.opt.Existed(p); known && e {
				exists = true
			}
		}
	}
	n.Known = true
	if exists {
		ino := m.newInode(m.parents[p], true)
		if n, ok := m.initialSize(p); ok && !ino.Dir {
			ino.Size, ino.DurableSize, ino.HadContent = n, n, n > 0
		}
		m.attach(ino, p)
		n.Cache, n.Durable = ino, ino
		return ino
	}
	return nil
}

// settleDir is lookup(d, true) for a caller that only needs d settled as
// existing when the trace never said: a retired d is settled already, and
// is left retired (a directory gets an entry made in it at every create).
func (m *Model) settleDir(d string) {
	if _, ok := m.restGet(d); !ok {
		m.lookup(d, true)
	}
}

// existedBefore reports whether p named something before the trace,
// asking the Existed hook when the trace never said.
func (m *Model) existedBefore(p string) (bool, bool) {
	if m.opt.Existed == nil {
		return false, false
	}
	return m.opt.Existed(p)
}

// initialSize is the size the listing gave regular file p before the
// trace (Options.InitialSize).
func (m *Model) initialSize(p string) (int64, bool) {
	if m.opt.InitialSize == nil {
		return 0, false
	}
	return m.opt.InitialSize(p)
}

func (m *Model) newInode(dir, initial bool) *Inode {
	ino := &Inode{Dir: dir, Initial: initial}
	if initial {
		ino.Size, ino.DurableSize = -1, -1
	}
	m.inodes.add(ino)
	m.queueInode(ino)
	return ino
}

func (m *Model) attach(ino *Inode, p string) {
	if ino == nil || p == "" {
		return
	}
	if len(ino.Names()) == 0 && len(ino.Paths()) == 0 {
		// A new file's first name: Names and Paths share one array of one
		// string (Inode.Paths), an allocation less for every file created,
		// which the models of a check share too (oneName); LastPath is
		// Path.
		ino.name1, ino.Path = m.oneName(p), p
		if x := ino.more; x != nil {
			x.named, x.lastPath, x.paths = false, "", nil
			x.linked, x.names = false, nil
		}
		return
	}
	if ino.Path == p && (ino.more == nil || !ino.more.named) {
		return // its one name again: nothing changes
	}
	x := ino.history()
	if !ino.HasName(p) {
		// Never in place: a one-name array is shared.
		ns := ino.Names()
		ino.setNames(append(ns[:len(ns):len(ns)], p))
	}
	ino.Path = p
	x.lastPath = p
	if len(x.paths) == 0 || x.paths[len(x.paths)-1] != p {
		x.paths = append(x.paths, p)
	}
}

func (m *Model) detach(ino *Inode, p string) {
	if ino == nil {
		return
	}
	ns := ino.Names()
	if len(ns) == 1 && ns[0] == p {
		// Its last name goes: LastPath and Paths no longer follow from
		// Path and Names.
		ino.history()
		ino.setNames(nil)
		ns = nil
	}
	for i, q := range ns {
		if q == p {
			// In place: more than one name are the inode's own array.
			ns = append(ns[:i], ns[i+1:]...)
			if len(ns) == 0 {
				ns = nil
			}
			ino.setNames(ns)
			break
		}
	}
	if ino.Path == p {
		ino.Path = ""
		if len(ns) > 0 {
			ino.Path = ns[0]
		}
	}
}

// addEntryOp records an entry operation: applies it to the page cache and
// queues it until a barrier makes it durable.
func (m *Model) addEntryOp(op *EntryOp) {
	var seen [maxOpDirs]string
	nseen := 0
	for _, c := range op.Changes {
		n := m.name(c.Path)
		n.Known = true
		m.detach(n.Cache, c.Path)
		n.Cache = c.New
		n.Ops = append(n.Ops, op)
		d := parentDir(c.Path)
		if !slices.Contains(seen[:nseen], d) && nseen < len(seen) {
			seen[nseen] = d
			nseen++
		}
	}
	op.ndirs = uint8(nseen)
	dirs := seen[:nseen]
	for _, c := range op.Changes {
		if c.New != nil {
			m.attach(c.New, c.Path)
			c.New.Modified = true
			c.New.opRefs++
		}
		if c.Old != nil {
			c.Old.Modified = true
			c.Old.opRefs++
		}
	}
	// A path with entries is a directory, however it was opened.
	for _, d := range dirs {
		if n := m.names[d]; n != nil && n.Cache != nil {
			n.Cache.Dir = true
		} else if id, retired, isDir := m.peekDir(d); retired && (isDir || id == 0) {
			// retired, and a directory already or known absent: nothing
			// to change
		} else if ino := m.lookup(d, true); ino != nil {
			ino.Dir = true
		}
	}
	m.nops++
	op.order = int32(m.nops)
	m.pendingOps = append(m.pendingOps, op)
	for _, d := range dirs {
		m.pendingByDir[d] = append(m.pendingByDir[d], op)
	}
	m.byDirPeak = max(m.byDirPeak, len(m.pendingByDir))
}

// pending returns the pending entry ops in order, first dropping from
// the list those made durable since (persistEntriesIn leaves them there
// so that a directory fsync costs what that directory holds, not what
// every directory does).
func (m *Model) pending() []*EntryOp {
	if m.durableInList > 0 {
		keep := m.pendingOps[:0]
		for _, op := range m.pendingOps {
			if !op.Durable {
				keep = append(keep, op)
			}
		}
		clear(m.pendingOps[len(keep):])
		m.pendingOps, m.durableInList = keep, 0
		// The directories' lists drop theirs too: a commit of every
		// directory (a journal's) leaves durable ops in the lists of
		// directories never synced.
		if m.byDirPeak <= byDirInPlace {
			// A map that never held more than a few directories is
			// filtered in place: a new one at each directory fsync of a
			// program that syncs after each file was an allocation a
			// file, in every model.
			for d, l := range m.pendingByDir {
				if k := keepPending(l); len(k) < len(l) {
					m.pendingByDir[d] = k // emptied, it stays (see pendingInDir)
				}
			}
		} else {
			m.pendingByDir = map[string][]*EntryOp{}
			for _, op := range keep {
				ds, k := op.dirs()
				for _, d := range ds[:k] {
					m.pendingByDir[d] = append(m.pendingByDir[d], op)
				}
			}
			m.byDirPeak = len(m.pendingByDir)
		}
	}
	return m.pendingOps
}

// byDirInPlace is the most directories Model.pendingByDir has held since
// it was made for pending to filter it in place: a Go map keeps the room
// of its deleted entries, and a walk over it, at every directory fsync,
// costs that room (the emptied lists that stay are let go at the first
// walk past it).
const byDirInPlace = 16

// keepPending drops the durable ops from l, in place.
func keepPending(l []*EntryOp) []*EntryOp {
	keep := l[:0]
	for _, op := range l {
		if !op.Durable {
			keep = append(keep, op)
		}
	}
	clear(l[len(keep):])
	return keep
}

// pendingInDir returns the pending entry ops that touch directory d, in
// order, dropping the durable ones from its list.
func (m *Model) pendingInDir(d string) []*EntryOp {
	l, ok := m.pendingByDir[d]
	if !ok {
		return nil
	}
	keep := keepPending(l)
	switch {
	case len(keep) > 0:
	case m.byDirPeak <= byDirInPlace:
		// The emptied list stays, for the next op in d (a program that
		// syncs its directory after each file it makes), rather than an
		// allocation a file in every model; the map is let go once it
		// holds too many (pending).
		keep = keep[:0]
	default:
		delete(m.pendingByDir, d)
		return nil
	}
	m.pendingByDir[d] = keep
	if len(keep) == 0 {
		return nil
	}
	return keep
}

// persistEntries makes durable the pending entry operations that touch a
// directory in dirs (all when dirs is nil), as a directory fsync or a
// journal commit does. It returns the ops that became durable.
func (m *Model) persistEntries(dirs map[string]bool, upTo int) []*EntryOp {
	done, _ := m.persistEntriesIn(dirs, upTo)
	return done
}

// pendingIn lists the pending entry ops up to upTo that touch a directory
// in dirs.
func (m *Model) pendingIn(dirs map[string]bool, upTo int) []*EntryOp {
	var out []*EntryOp
	for _, op := range m.pending() {
		if op.seq() > upTo {
			continue
		}
		ds, k := op.dirs()
		for _, d := range ds[:k] {
			if dirs[d] {
				out = append(out, op)
				break
			}
		}
	}
	return out
}

// persistWhere makes durable, whole, the pending entry operations up to
// upTo for which keep returns true, whatever directories they touch (a
// log that records them for one inode).
func (m *Model) persistWhere(upTo int, keep func(*EntryOp) bool) []*EntryOp {
	var marked []*EntryOp
	for _, op := range m.pending() {
		if op.seq() <= upTo && keep(op) {
			op.synced = 1<<op.ndirs - 1
			marked = append(marked, op)
		}
	}
	done, _ := m.persistOps(marked, nil, upTo)
	return done
}

// persistAncestors makes durable the pending entry operations that gave
// the directories above ino's names the inodes they have now (a new
// directory's mkdir, a renamed one's rename): btrfs logs new ancestors
// with the file or directory it syncs.
func (m *Model) persistAncestors(ino *Inode, upTo int) []*EntryOp {
	want := map[*EntryOp]bool{}
	for _, p := range ino.Names() {
		// From the name itself up: a directory's own new name too.
		for q := p; q != "." && q != "/"; q = parentDir(q) {
			n := m.names[q]
			if n == nil {
				if parentDir(q) == q {
					break
				}
				continue
			}
			for _, op := range n.Ops {
				for _, c := range op.Changes {
					if c.Path == q && c.New == n.Cache && c.New != nil {
						want[op] = true
					}
				}
			}
			if parentDir(q) == q {
				break
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	return m.persistWhere(upTo, func(op *EntryOp) bool { return want[op] })
}

// persistEntriesIn is persistEntries that also returns the ops the sync
// covered in some directory, durable or not yet (a rename between two
// directories needs both synced); none when dirs is nil.
func (m *Model) persistEntriesIn(dirs map[string]bool, upTo int) (done, covered []*EntryOp) {
	if dirs == nil {
		return m.persistOps(m.pending(), nil, upTo)
	}
	// Only the ops in the synced directories can change: they are the
	// candidates, in program order.
	var cands []*EntryOp
	if len(dirs) == 1 {
		// The directory's own list, not a copy: persistOps reads it
		// before anything changes it.
		for d := range dirs {
			cands = m.pendingInDir(d)
		}
		return m.persistOps(cands, dirs, upTo)
	}
	for d := range dirs {
		cands = append(cands, m.pendingInDir(d)...)
	}
	if len(dirs) > 1 {
		sort.Slice(cands, func(i, j int) bool { return cands[i].order < cands[j].order })
		cands = slices.Compact(cands)
	}
	return m.persistOps(cands, dirs, upTo)
}

// persistOps is persistEntriesIn on the candidate ops cands, pending and
// in program order: dirs nil syncs every directory (and lists no covered
// ops: no caller of such a sync asks for them).
func (m *Model) persistOps(cands []*EntryOp, dirs map[string]bool, upTo int) (done, covered []*EntryOp) {
	for _, op := range cands {
		if op.seq() > upTo {
			continue
		}
		hit := false
		if dirs == nil {
			op.synced, hit = 1<<op.ndirs-1, op.ndirs > 0
		} else {
			ds, k := op.dirs()
			for i, d := range ds[:k] {
				if dirs[d] {
					op.synced |= 1 << i
					hit = true
				}
			}
		}
		if hit && dirs != nil {
			covered = append(covered, op)
		}
		if op.synced == 1<<op.ndirs-1 {
			op.Durable = true
			done = append(done, op)
		} else if hit && dirs != nil {
			m.persistPart(op)
		}
	}
	m.durableInList += len(done)
	if m.durableInList > len(m.pendingOps)/2 {
		m.pending()
	}
	for _, op := range done {
		for _, c := range op.Changes {
			for _, ino := range [2]*Inode{c.Old, c.New} {
				if ino != nil {
					ino.opRefs--
					m.queueInode(ino)
				}
			}
			n := m.nameOf(c.Path)
			if n == nil {
				continue
			}
			m.queueName(n)
			// Ops before this one on the name are durable too now.
			k := 0
			for k < len(n.Ops) && n.Ops[k] != op {
				k++
			}
			if k == len(n.Ops) {
				continue // a later op on the name was durable first
			}
			n.Durable = c.New
			if k < len(n.Ops) {
				n.Ops = n.Ops[k+1:]
			}
			if len(n.Ops) == 0 {
				n.Ops = nil // let the durable ops go
			}
		}
	}
	return done, covered
}

// persistPart makes durable the names op gave files in the directories
// of it that were synced, while one it changed elsewhere was not: the
// new name of a file renamed between two directories, once the new
// directory was fsynced (fsync(2): syncing the directory that holds an
// entry makes the entry durable). Its old name stays with op, which a
// crash keeps or not: the file under both names, or the new one only.
// The old name is not given up before the new one is durable, as every
// filesystem that journals a rename whole does. A directory renamed
// (whose descendants move with op) waits for op whole.
func (m *Model) persistPart(op *EntryOp) {
	ds, k := op.dirs()
	for _, c := range op.Changes {
		if !slices.Contains(ds[:k], parentDir(c.Path)) || c.New != nil && c.New.Dir {
			return
		}
	}
	for _, c := range op.Changes {
		if c.New == nil || op.synced&(1<<slices.Index(ds[:k], parentDir(c.Path))) == 0 {
			continue
		}
		n := m.nameOf(c.Path)
		if n == nil {
			continue
		}
		i := slices.Index(n.Ops, op)
		if i < 0 {
			continue
		}
		n.Durable = c.New
		n.Ops = n.Ops[i+1:]
		if len(n.Ops) == 0 {
			n.Ops = nil
		}
		m.queueName(n)
	}
}

// renameTree moves every name below a renamed directory. Each moved name
// that is durable where it is becomes two name changes of the rename
// itself, so that one crash state keeps both or neither: the old path
// loses the inode and the new path gains it. Until the rename is durable,
// the old path keeps what the disk had there.
//
// A name whose entry in the directory is not durable yet (made in it since
// it was last synced) moves with the directory too, but its entry
// operations are the directory's, not the rename's: a crash can keep the
// rename without them (posix: the directory comes back without the entries
// nobody synced). Those pending ops are carried (carryOps): each also
// changes the new path, and is covered by a sync of the directory at its
// new path, as the directory inode is the same. renameTree returns them.
func (m *Model) renameTree(op *EntryOp, from, to string) []*EntryOp {
	prefix := from + "/"
	m.reviveBelow(prefix)
	var moved []string
	for p := range m.names {
		if strings.HasPrefix(p, prefix) {
			moved = append(moved, p)
		}
	}
	sort.Strings(moved)
	newPath := func(p string) string { return to + "/" + strings.TrimPrefix(p, prefix) }
	carry, carried := m.carryable(moved, prefix, newPath)
	for _, p := range moved {
		n := m.names[p]
		np := newPath(p)
		ino := n.Cache
		dst := m.name(np)
		dst.Known = true
		old := dst.Cache
		if old != nil && old != ino {
			m.detach(old, np)
		}
		n.Known = true
		if ino != nil {
			m.detach(ino, p)
			m.attach(ino, np)
		}
		n.Cache = nil
		dst.Cache = ino
		if ino == nil && n.Durable == nil && dst.Durable == nil {
			continue // a name gone on both layers: nothing moves
		}
		if carry[p] {
			// The rename takes the name from the old path; the new path
			// gets it from the carried ops, which the rename does not
			// make durable.
			op.Changes = append(op.Changes, NameChange{Path: p, Old: ino})
			if ino != nil {
				ino.opRefs++
			}
			n.Ops = append(n.Ops, op)
			continue
		}
		op.Changes = append(op.Changes, NameChange{Path: p, Old: ino}, NameChange{Path: np, Old: old, New: ino})
		if ino != nil {
			ino.opRefs += 2
		}
		if old != nil {
			old.opRefs++
		}
		n.Ops = append(n.Ops, op)
		dst.Ops = append(dst.Ops, op)
	}
	for _, x := range carried {
		m.carryOp(x, prefix, to, carry, newPath)
	}
	return carried
}

// carryable decides which moved names (paths below prefix, sorted) keep
// their pending entry operations apart from the rename (see renameTree),
// and lists those ops in program order. A name qualifies when it is not
// durable at its old path (its entry in the directory is all pending), its
// new path names nothing on either layer and had no change after the
// first of those ops (the new path's ops stay in program order), and every
// op concerned can carry all its changes below prefix (so that the op's
// directories, which follow from its changes, move as a whole). Any other
// moved name is the rename's, as a name durable in the directory is: the
// rename brings it to the new path.
func (m *Model) carryable(moved []string, prefix string, newPath func(string) string) (map[string]bool, []*EntryOp) {
	carry := map[string]bool{}
	for _, p := range moved {
		n := m.names[p]
		if len(n.Ops) == 0 || n.Durable != nil {
			continue
		}
		first := n.Ops[0].order
		dst := m.names[newPath(p)]
		if dst != nil && (dst.Durable != nil || dst.Cache != nil || len(dst.Ops) > 0 && dst.Ops[len(dst.Ops)-1].order > first) {
			continue
		}
		carry[p] = true
	}
	// An op with a change below prefix at a name not carried, or whose
	// directories would not stay distinct, cannot be carried: neither can
	// any of its names. Repeat until nothing changes.
	for changed := true; changed; {
		changed = false
		for _, p := range moved {
			if !carry[p] {
				continue
			}
			for _, x := range m.names[p].Ops {
				if !m.canCarry(x, prefix, carry, newPath) {
					for _, c := range x.Changes {
						if carry[c.Path] {
							delete(carry, c.Path)
							changed = true
						}
					}
				}
			}
		}
	}
	var ops []*EntryOp
	seen := map[*EntryOp]bool{}
	for _, p := range moved {
		if !carry[p] {
			continue
		}
		for _, x := range m.names[p].Ops {
			if !seen[x] {
				seen[x] = true
				ops = append(ops, x)
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].order < ops[j].order })
	return carry, ops
}

// canCarry reports whether op x can carry its changes below prefix: each
// at a name carried, and its directories distinct once moved.
func (m *Model) canCarry(x *EntryOp, prefix string, carry map[string]bool, newPath func(string) string) bool {
	if x.Durable {
		return false
	}
	for _, c := range x.Changes {
		if strings.HasPrefix(c.Path, prefix) && !carry[c.Path] {
			return false
		}
	}
	ds, k := x.dirs()
	var nd [maxOpDirs]string
	for i, d := range ds[:k] {
		if strings.HasPrefix(d+"/", prefix) {
			d = parentDir(newPath(d + "/x"))
		}
		if slices.Contains(nd[:i], d) {
			return false
		}
		nd[i] = d
	}
	return true
}

// carryOp gives the pending op x, made below the renamed directory (from,
// prefix from+"/"), the same change at the new path of each of its
// changes there, and moves it to the directories' new paths: a sync of
// the directory at its new path covers it, as Dirs says. Its changes are
// put in an order that makes Dirs the moved directories in the order of
// the old ones, so that the op's synced bits keep their meaning.
func (m *Model) carryOp(x *EntryOp, prefix, to string, carry map[string]bool, newPath func(string) string) {
	oldDirs, k := x.dirs()
	var newDirs [maxOpDirs]string
	for i, d := range oldDirs[:k] {
		if strings.HasPrefix(d+"/", prefix) {
			d = parentDir(newPath(d + "/x"))
		}
		newDirs[i] = d
	}
	all := make([]NameChange, 0, 2*len(x.Changes))
	for _, c := range x.Changes {
		if !carry[c.Path] {
			continue
		}
		nc := NameChange{Path: newPath(c.Path), Old: c.Old, New: c.New}
		all = append(all, nc)
		for _, ino := range [2]*Inode{nc.Old, nc.New} {
			if ino != nil {
				ino.opRefs++
			}
		}
		if dst := m.name(nc.Path); !slices.Contains(dst.Ops, x) {
			dst.Ops = append(dst.Ops, x)
		}
	}
	all = append(all, x.Changes...)
	front := make([]NameChange, 0, len(all))
	used := make([]bool, len(all))
	for _, d := range newDirs[:k] {
		for i, c := range all {
			if !used[i] && parentDir(c.Path) == d {
				used[i] = true
				front = append(front, c)
				break
			}
		}
	}
	for i, c := range all {
		if !used[i] {
			front = append(front, c)
		}
	}
	x.Changes = front
	for i, d := range oldDirs[:k] {
		if newDirs[i] == d {
			continue
		}
		l := m.pendingByDir[d]
		if j := slices.Index(l, x); j >= 0 {
			m.pendingByDir[d] = slices.Delete(l, j, j+1)
		}
		nl := m.pendingByDir[newDirs[i]]
		j, _ := slices.BinarySearchFunc(nl, x, func(a, b *EntryOp) int { return int(a.order) - int(b.order) })
		m.pendingByDir[newDirs[i]] = slices.Insert(nl, j, x)
	}
	m.byDirPeak = max(m.byDirPeak, len(m.pendingByDir))
}

// GoneAbove returns the nearest directory above p that no crash leaves
// there (see ancestors), or "": below it p is missing in every crash
// state, whatever p's own pending entry operations are.
func (m *Model) GoneAbove(p string) string {
	_, gone, _ := m.ancestors(p, false, nil)
	return gone
}

// ancestors walks the directories above p. vanishing is the nearest
// one that a crash can leave missing or as another inode than the
// program sees (made, renamed or removed in the trace and not yet
// durable), or "": below it every name can be missing too. gone is the
// nearest one that no crash leaves there: missing on disk, or another
// file than a directory, and no pending entry operation makes it one (a
// directory made and removed, whose removal is durable), or "": below it
// every name is missing, whatever its own entry operations did, as in
// every joint state (reachableWith). When above is not nil, the names of
// the directories above p with pending entry operations are appended to
// it, nearest first. present says that p names a file in the page cache:
// then no directory above it is gone (each is the one the program sees,
// or could be), and without above the walk ends at the first vanishing
// one.
func (m *Model) ancestors(p string, present bool, above []*Name) (vanishing, gone string, _ []*Name) {
	for q := parentDir(p); q != p && q != "." && q != "/"; q = parentDir(q) {
		n := m.names[q]
		p = q
		if n == nil {
			continue
		}
		if n.Durable != n.Cache || len(n.Ops) > 0 {
			if vanishing == "" {
				vanishing = q
			}
			if above != nil && len(n.Ops) > 0 {
				above = append(above, n)
			}
			switch {
			case !present && !n.canBeDir():
				return vanishing, q, above
			case present && above == nil:
				return vanishing, "", above
			}
			continue
		}
		if !present && (n.Durable == nil || !n.Durable.mayBeDir()) {
			return vanishing, q, above
		}
	}
	return vanishing, "", above
}

// canBeDir reports whether some crash state can give the name a
// directory: its durable inode, or one a pending entry operation gave it.
func (n *Name) canBeDir() bool {
	if n.Durable != nil && n.Durable.mayBeDir() || len(n.Ops) == 0 {
		return true // no pending operation: as the program sees it
	}
	for _, op := range n.Ops {
		for _, c := range op.Changes {
			if c.Path == n.Path && c.New != nil && c.New.mayBeDir() {
				return true
			}
		}
	}
	return false
}

// missingMax bounds the paths Model.missing remembers: a program looks
// for a file just before it creates one, while the loader, an
// interpreter's imports and a compiler's include path look for
// thousands that no one creates.
const missingMax = 256

// missingPaths are paths a failed stat, access or open (ENOENT) showed
// absent before the trace named them: nothing was there before the trace
// began either, which an open with O_CREAT (ld.gold's output: stat, then
// open O_RDWR|O_CREAT|O_TRUNC) or a rename onto the name does not say.
// The most recent missingMax are kept. Once the trace moves or removes a
// directory, a name below its old place (or below the one moved there)
// may have been there before the trace: what was noted is forgotten, and
// nothing is noted after (moved).
type missingPaths struct {
	set   map[string]struct{}
	order []string // ring of the paths in set, oldest at next
	next  int
	moved bool
}

func (s *missingPaths) forget() { *s = missingPaths{moved: true} }

func (s *missingPaths) has(p string) bool {
	_, ok := s.set[p]
	return ok
}

func (s *missingPaths) add(p string) {
	if s.moved || s.has(p) {
		return
	}
	if s.set == nil {
		s.set = make(map[string]struct{}, missingMax)
	}
	if len(s.order) < missingMax {
		s.order = append(s.order, p)
	} else {
		delete(s.set, s.order[s.next])
		s.order[s.next] = p
		s.next = (s.next + 1) % missingMax
	}
	s.set[p] = struct{}{}
}

// noteMissing learns from a stat, open or unlink that failed with ENOENT
// that p did not exist before the trace, unless the trace named p already
// (then its state says more than the failure). A server removes its stale
// socket or pid file so before it makes one.
func (m *Model) noteMissing(ev *parser.Event, p string) {
	switch ev.Call.Effect() {
	case syscalls.Stat, syscalls.Open, syscalls.Unlink:
	default:
		return
	}
	if p == "" || PseudoFile(p) {
		return
	}
	if _, _, _, named := m.peek(p); named {
		return
	}
	m.missing.add(p)
}
