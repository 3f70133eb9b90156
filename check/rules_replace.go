package check

import (
	"fmt"
	"slices"

	"github.com/crashsim/crashsim/model"
)

// renameBeforeDirSync finds renames that replace a file while files the
// program made and synced just before have names not yet durable: the
// pointer swap of a store that writes a new manifest (or log segment),
// fsyncs it, renames a small file that names it over the old one, and
// only then fsyncs the directory (RocksDB's CURRENT). Under posix the
// directory's changes persist in any order, so a crash can keep the new
// pointer and lose the file it points to.
// The ordered models commit the create with or before the rename, so it
// asks nothing of them (model.Model.NameLostWithLast says so).
//
// Only a file whose data the program synced counts: it wanted the file
// durable. Not yet seen: a new file named by a rename of its own before
// the pointer's (redis's AOF base), one made durable by O_SYNC writes, a
// pointer that is new (no replace), a file whose creation the trace
// cannot tell from an emptying (O_CREAT|O_TRUNC with no listing).
//
// Only a name that did become durable later in the trace is reported:
// one never made durable is name-not-synced's, whose fix (a directory
// fsync) placed before the rename is this one's too.
type renameBeforeDirSync struct {
	// waiting are the files synced while an entry operation naming them
	// was pending, in the order of their syncs (a file synced again
	// later may be in it twice; a rename reports it once).
	waiting []syncedName
	hits    []replaceHit
	// unsettled holds, by the path of its file, the hits whose file's
	// name is not durable yet: one the program renames or removes
	// before then was a temp name of its own, which the replaced file
	// cannot name (two saves renamed in one batch), and is dropped.
	unsettled map[string][]int
	// compactAt is the length of waiting past which a directory sync
	// drops every entry whose name is durable, not only those in front:
	// twice what was left the last time, so that the list stays within
	// twice the names pending (a million files each synced and
	// dir-synced keep it at one).
	compactAt int
}

// syncedName is a file whose data a sync made durable while its name was
// not.
type syncedName struct {
	ino  *model.Inode
	path string
	made *model.EntryOp // what gave it the name: set when a rename finds it
	sync model.Ref
}

// replaceHit is one rename that replaced a file while the name of a
// file synced before it was not durable.
type replaceHit struct {
	at       model.Ref
	replaced string
	name     syncedName
	state    *State
	dropped  bool
}

func (rd *renameBeforeDirSync) Observe(r *run, e *model.Effect) {
	if r.m.Persistence().Ordered() {
		return
	}
	switch e.Kind {
	case model.EffFileSync:
		if e.HadPending() {
			rd.synced(e)
		}
	case model.EffSyncAll:
		if e.FS == "" {
			clear(rd.waiting)
			rd.waiting = rd.waiting[:0]
		} else {
			rd.prune(r)
		}
	case model.EffDirSync:
		rd.prune(r)
	case model.EffEntry:
		if len(rd.unsettled) > 0 {
			rd.moved(e)
		}
		if e.Entry.Kind == model.EntryRename || e.Entry.Kind == model.EntryExchange {
			rd.renamed(r, e)
		}
	}
}

// synced notes the file a sync made durable when the name it has came
// from an entry operation still pending.
//
// It asks no name of the model: a check of a million files, each synced
// and then dir-synced, passes here a million times. Which operation gave
// the name is asked when a rename finds the file still waiting.
func (rd *renameBeforeDirSync) synced(e *model.Effect) {
	ino := e.Inode
	if ino == nil || ino.Dir || ino.Path == "" || !ino.NamesPending() || ino.DataPending() {
		return
	}
	if n := len(rd.waiting); n > 0 && rd.waiting[n-1].ino == ino && rd.waiting[n-1].path == ino.Path {
		return // synced again
	}
	// Not pinned: while an operation naming it is pending the model
	// keeps the inode, and once none is, prune drops it.
	rd.waiting = append(rd.waiting, syncedName{ino: ino, path: ino.Path, sync: e.Ref})
}

// moved drops the hits whose file the entry operation e takes a name
// from before that name was durable; a path's hits are not watched
// after the first operation that takes a name there.
func (rd *renameBeforeDirSync) moved(e *model.Effect) {
	for _, c := range e.Entry.Changes {
		is, ok := rd.unsettled[c.Path]
		if !ok || c.Old == nil || c.Old == c.New {
			continue
		}
		for _, i := range is {
			if h := &rd.hits[i]; h.name.ino == c.Old && !h.name.made.Durable {
				h.dropped = true
			}
		}
		delete(rd.unsettled, c.Path)
	}
}

// prune drops the waiting files whose name a sync made durable: those in
// front at each directory sync, and all of them once the list is past
// compactAt.
func (rd *renameBeforeDirSync) prune(r *run) {
	i := 0
	for i < len(rd.waiting) && !rd.waiting[i].ino.NamesPending() {
		i++
	}
	if i > 0 {
		n := copy(rd.waiting, rd.waiting[i:])
		clear(rd.waiting[n:])
		rd.waiting = rd.waiting[:n]
	}
	if len(rd.waiting) <= rd.compactAt {
		return
	}
	keep := rd.waiting[:0]
	for _, w := range rd.waiting {
		if w.ino.NamesPending() && pendingMaker(r.m, w.ino, w.path) != nil {
			keep = append(keep, w)
		}
	}
	clear(rd.waiting[len(keep):])
	rd.waiting = keep
	rd.compactAt = 2*len(keep) + 64
}

// pendingMaker is the pending entry operation that gave ino the name p,
// nil when none is pending (the name is durable) or p does not name ino.
func pendingMaker(m *model.Model, ino *model.Inode, p string) *model.EntryOp {
	n := m.Names()[p]
	if n == nil || n.Cache != ino {
		return nil
	}
	for i := len(n.Ops) - 1; i >= 0; i-- {
		op := n.Ops[i]
		if op.Durable {
			continue
		}
		for _, c := range op.Changes {
			if c.Path == p && c.New == ino {
				return op
			}
		}
	}
	return nil
}

// renamed asks, at a rename that replaced a file, which of the waiting
// files a crash can lose while keeping it.
func (rd *renameBeforeDirSync) renamed(r *run, e *model.Effect) {
	replaced := ""
	for _, c := range e.Entry.Changes {
		if c.New != nil && c.Old != nil && c.Old != c.New {
			replaced = c.Path
			break
		}
	}
	if replaced == "" || len(rd.waiting) == 0 {
		return
	}
	keep := rd.waiting[:0]
	first := len(rd.hits)
	for _, w := range rd.waiting {
		if w.ino == e.Inode || w.ino.DataPending() {
			continue // moved by this rename, or written again: a later sync adds it anew
		}
		if w.made = pendingMaker(r.m, w.ino, w.path); w.made == nil {
			continue // its name durable, or gone
		}
		if slices.ContainsFunc(rd.hits[first:], func(h replaceHit) bool { return h.name.ino == w.ino }) {
			continue // synced twice while waiting: found once
		}
		st, ok := r.m.NameLostWithLast(w.path, 256, w.ino)
		if !ok {
			keep = append(keep, w)
			continue
		}
		r.m.Pin(w.ino) // its name at the end, for the finding
		if rd.unsettled == nil {
			rd.unsettled = map[string][]int{}
		}
		rd.unsettled[w.path] = append(rd.unsettled[w.path], len(rd.hits))
		rd.hits = append(rd.hits, replaceHit{at: e.Ref, replaced: replaced, name: w, state: stateOf(r.m, e.Ref, w.path, st)})
	}
	clear(rd.waiting[len(keep):])
	rd.waiting = keep
}

func (rd *renameBeforeDirSync) Finish(r *run) {
	for _, h := range rd.hits {
		w := h.name
		if h.dropped || !w.made.Durable {
			continue // a temp name, or one never made durable (name-not-synced's)
		}
		p, d, old := w.ino.Name(), dirWords(parentDirOf(w.path)), base(h.replaced)
		f := newFinding(RenameBeforeDirSync, p, h.at,
			fmt.Sprintf("%s replaced %s while the name of %s, whose data was synced, was not yet durable (%s was fsynced only later): the directory's changes can reach the disk in any order, so a crash can keep the new %s and leave %s missing; if %s names or needs %s, fsync %s before the %s",
				h.at.Syscall, old, base(w.path), d, old, base(w.path), old, base(w.path), d, h.at.Syscall))
		f.relate(w.made.Event(), "gives "+base(w.path)+" its name, not yet durable")
		f.relate(w.sync, "data synced")
		f.relate(h.at, h.at.Syscall+" replaces "+old)
		f.State = h.state
		r.emit(f)
	}
}
