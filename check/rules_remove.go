package check

import (
	"fmt"

	"github.com/crashsim/crashsim/model"
)

// removeBeforeSync finds a file removed while what a program made of it
// is not yet durable: the program read F, wrote G, and removed F before
// G's bytes reached the disk (gzip without --synchronous, mv between
// file systems, a journal deleted before the writes it replayed were
// synced). The removal is a directory change that can persist before
// G's data does, so a crash can leave F gone and G empty: the data in
// neither place.
//
// The question asked of the model at each removal of a file's last name:
// did the same process read that file (a read that returned data), and
// does a file it wrote after that read still have writes pending that
// came after it? Only a file whose content was durable counts (it
// existed before the run or its data and name were synced): removing
// one that a crash could lose anyway loses nothing new. A process that
// synced written data between the read and the removal made a durable
// copy: LevelDB replays its log into a table it syncs, then deletes the
// log while its own debug LOG is still unsynced, and that is no loss.
//
// Each process keeps a few of its latest reads and writes (ownerRing
// entries each), so memory stays bounded however long the trace; a
// process that reads more files than that between reading F and
// removing it is not followed that far.
type removeBeforeSync struct {
	owners map[any]*removeOwner
	// pruneAt is the size of owners at which those of processes gone
	// are dropped (a build runs thousands of short processes).
	pruneAt int
	hits    []removeHit
}

// ownerRing is how many reads and how many written files a process
// keeps.
const ownerRing = 4

type removeOwner struct {
	reads   [ownerRing]readMark
	writes  [ownerRing]int // IDs of the files written after a read
	nr, nw  int            // the next slot of each ring
	anyRead bool
	// synced is the event of the process's last sync that made written
	// data durable, -1 before any: a program that synced what it wrote
	// after reading F has made its durable copy, and the files it left
	// unsynced (a debug log) are not that copy.
	synced int
}

type readMark struct {
	id int // the inode's ID; 0 is an empty slot
	at model.Ref
}

type removeHit struct {
	ino         *model.Inode // the file still pending
	removed     string       // the path removed
	read, at    model.Ref    // the read of the removed file, the removal
	first, last model.Ref    // the pending writes' ends
	state       *State
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
// process.
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
		o := rs.owner(r, e.Ref.PID, true)
		if o == nil {
			return
		}
		o.anyRead = true
		for i := range o.reads {
			if o.reads[i].id == e.Inode.ID {
				o.reads[i].at = e.Ref
				return
			}
		}
		o.reads[o.nr] = readMark{e.Inode.ID, e.Ref}
		o.nr = (o.nr + 1) % ownerRing
	case model.EffWrite:
		if len(rs.owners) == 0 || e.Inode == nil || e.Data == nil || e.Data.Kind != model.DataWrite {
			return
		}
		o := rs.owner(r, e.Ref.PID, false)
		if o == nil || !o.anyRead {
			return
		}
		for _, id := range o.writes {
			if id == e.Inode.ID {
				return
			}
		}
		o.writes[o.nw] = e.Inode.ID
		o.nw = (o.nw + 1) % ownerRing
	case model.EffFileSync:
		if len(rs.owners) > 0 && e.HadPending() {
			if o := rs.owner(r, e.Ref.PID, false); o != nil {
				o.synced = e.Ref.Seq
			}
		}
	case model.EffEntry:
		if e.Entry.Kind == model.EntryUnlink && len(rs.owners) > 0 {
			rs.removed(r, e)
		}
	}
}

// removed looks at an unlink: for each file it took the last name of,
// whether the process read it and wrote a file that is still pending.
func (rs *removeBeforeSync) removed(r *run, e *model.Effect) {
	o := rs.owner(r, e.Ref.PID, false)
	if o == nil {
		return
	}
	for _, c := range e.Entry.Changes {
		f := c.Old
		if f == nil || c.New != nil || f.Dir || len(f.Names()) > 0 || f.DataPending() {
			continue
		}
		var read *readMark
		for i := range o.reads {
			if o.reads[i].id == f.ID {
				read = &o.reads[i]
			}
		}
		if read == nil || o.synced > read.at.Seq || !rs.heldDurable(r, f, c.Path) {
			continue
		}
		for _, id := range o.writes {
			if id == 0 || id == f.ID {
				continue
			}
			g := r.m.Inode(id)
			if g == nil || g.Dir || len(g.Names()) == 0 {
				continue
			}
			first, last, ok := g.PendingWriteEnds()
			if !ok || last.Event().Seq < read.at.Seq {
				continue
			}
			r.m.Pin(g)
			rs.hits = append(rs.hits, removeHit{ino: g, removed: c.Path, read: read.at, at: e.Ref,
				first: first.Event(), last: last.Event(), state: demonstrate(r.m, e.Ref, g.Name())})
		}
	}
}

// heldDurable reports whether the removed file f, named p until now, had
// durable content: it existed before the trace, or its name was durable
// (its data is: the caller checked).
func (rs *removeBeforeSync) heldDurable(r *run, f *model.Inode, p string) bool {
	if f.Initial {
		return true
	}
	n := r.m.Names()[p]
	return n != nil && n.Durable == f
}

func (rs *removeBeforeSync) Finish(r *run) {
	for _, h := range rs.hits {
		p, gone := h.ino.Name(), base(h.removed)
		f := newFinding(RemoveBeforeSync, p, h.at,
			fmt.Sprintf("%s was removed while %s, written after the program read %s, was only in the page cache: a crash can leave %s gone and %s empty or partial, the data in neither; fsync %s before removing %s",
				gone, base(p), gone, gone, base(p), base(p), gone))
		f.relate(h.read, "reads "+gone)
		f.relate(h.first, "written, not yet durable")
		if h.last.Line != h.first.Line {
			f.relate(h.last, "written, not yet durable")
		}
		f.relate(h.at, h.at.Syscall+" removes "+gone)
		f.State = h.state
		r.emit(f)
	}
}
