package check

import (
	"fmt"

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
// durable. A file synced under a temp name and renamed into place keeps
// waiting under its new name, which the rename gave it (several files
// saved each by temp file and rename, then a manifest renamed over the
// old one, the directory fsynced only at the end). A new directory whose
// entries the program fsynced counts as a file synced (a snapshot
// directory a pointer then names). A rename that gives a synced file a
// new name publishes it as a replace does (Exim's -H file renamed into
// the spool beside its -D file); there a waiting file renamed again later
// was under a temp name, which the new file cannot name, and is not
// reported. Not yet seen: one made durable by O_SYNC writes, a file
// whose creation the trace cannot tell from an emptying (O_CREAT|O_TRUNC
// with no listing).
//
// Only a name that did become durable later in the trace is reported:
// one never made durable is name-not-synced's, whose fix (a directory
// fsync) placed before the rename is this one's too.
type renameBeforeDirSync struct {
	// waiting are the files synced while an entry operation naming them
	// was pending, in the order of their syncs (a file synced again
	// later may be in it twice; a rename reports it once). A file stays
	// until its name is durable: its hit is at the last rename that
	// replaced a file before then.
	waiting []syncedName
	// at finds a file's latest entry in waiting, so that a rename that
	// moves it needs no pass over the list: by ID, its place counted
	// from the first entry ever queued since the last reindex, base the
	// number of those let go from the front since.
	at   map[int]int
	base int
	hits []replaceHit
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
//
// It holds the file's ID, not the Inode: a file waits behind others until
// a directory sync finds it in front, and its name may be durable (the
// model retires it) long before; the model asks its callers to hold only
// the inodes they pin. Its name (current) gives the Inode back while it is
// pending.
type syncedName struct {
	id   int
	path string
	made *model.EntryOp // what gave it the name: set when a rename finds it
	sync model.Ref
	hit  int // 1 + the index of its hit in hits, 0 before one
	// moved: a rename moved it since its sync (saved by temp file and
	// rename, a file of its own that no new name publishes).
	moved bool
}

// replaceHit is one rename that replaced a file while the name of a
// file synced before it was not durable.
type replaceHit struct {
	ino      *model.Inode // pinned
	at       model.Ref
	replaced string // the path the rename replaced, or made (made)
	made     bool
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
			rd.reindex()
		} else {
			rd.prune(r)
		}
	case model.EffDirSync:
		rd.prune(r)
		if ino := e.Inode; ino != nil && ino.Path != "" && ino.NamesPending() {
			rd.wait(ino, e.Ref) // a new directory's entries made durable, not its name
		}
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
	rd.wait(ino, e.Ref)
}

// wait queues ino, which sync made durable while its name was pending.
func (rd *renameBeforeDirSync) wait(ino *model.Inode, sync model.Ref) {
	if n := len(rd.waiting); n > 0 && rd.waiting[n-1].id == ino.ID && rd.waiting[n-1].path == ino.Path {
		return // synced again
	}
	rd.waiting = append(rd.waiting, syncedName{id: ino.ID, path: ino.Path, sync: sync})
	if rd.at == nil {
		rd.at = map[int]int{}
	}
	rd.at[ino.ID] = rd.base + len(rd.waiting) - 1
}

// reindex makes at anew from waiting, after the list was rebuilt.
func (rd *renameBeforeDirSync) reindex() {
	rd.base = 0
	clear(rd.at)
	for i, w := range rd.waiting {
		rd.at[w.id] = i
	}
}

// latest is file id's latest entry in waiting, nil if it has none.
func (rd *renameBeforeDirSync) latest(id int) *syncedName {
	p, ok := rd.at[id]
	if i := p - rd.base; ok && i >= 0 && i < len(rd.waiting) && rd.waiting[i].id == id {
		return &rd.waiting[i]
	}
	return nil
}

// current is the file w waits for while a pending operation gave it its
// name, nil once the name is durable or names another file.
func (w *syncedName) current(m *model.Model) *model.Inode {
	n := m.Names()[w.path]
	if n == nil || n.Cache == nil || n.Cache.ID != w.id || !n.Cache.NamesPending() {
		return nil
	}
	return n.Cache
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
			if h := &rd.hits[i]; h.ino == c.Old && !h.name.made.Durable {
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
	for i < len(rd.waiting) && rd.waiting[i].current(r.m) == nil {
		i++
	}
	if i > 0 {
		for k, w := range rd.waiting[:i] {
			if rd.at[w.id] == rd.base+k {
				delete(rd.at, w.id)
			}
		}
		rd.base += i
		n := copy(rd.waiting, rd.waiting[i:])
		clear(rd.waiting[n:])
		rd.waiting = rd.waiting[:n]
	}
	if len(rd.waiting) <= rd.compactAt {
		return
	}
	keep := rd.waiting[:0]
	for _, w := range rd.waiting {
		if ino := w.current(r.m); ino != nil && pendingMaker(r.m, ino, w.path) != nil {
			keep = append(keep, w)
		}
	}
	clear(rd.waiting[len(keep):])
	rd.waiting = keep
	rd.reindex()
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
	// A waiting file this rename moves into place waits under the name
	// the rename gave it, pending as the old one was (its latest entry:
	// an older one keeps the name it had, and is let go as gone).
	if w := rd.latest(e.Inode.ID); w != nil {
		if p, ok := movedTo(e, e.Inode); ok {
			w.path, w.moved = p, true
		}
	}
	replaced := ""
	for _, c := range e.Entry.Changes {
		if c.New != nil && c.Old != nil && c.Old != c.New {
			replaced = c.Path
			break
		}
	}
	if replaced == "" {
		if p, ok := movedTo(e, e.Inode); ok && !e.Inode.Dir && e.Inode.LastSync != nil && !e.Inode.DataPending() {
			rd.published(r, e, p)
		}
		return
	}
	if len(rd.waiting) == 0 {
		return
	}
	keep := rd.waiting[:0]
	var found map[int]bool // the files found at this rename
	moving := 0            // the files found that wait on
	for _, w := range rd.waiting {
		if w.id == e.Inode.ID {
			keep = append(keep, w) // the file this rename moves
			continue
		}
		ino := w.current(r.m)
		if ino == nil {
			continue // its name durable, or gone
		}
		if ino.DataPending() {
			continue // written again: a later sync adds it anew
		}
		if w.made = pendingMaker(r.m, ino, w.path); w.made == nil {
			continue // its name durable, or gone
		}
		if found[w.id] {
			continue // synced twice while waiting: found once
		}
		if w.hit > 0 && moving == maxMoving {
			continue // its hit stays where it is
		}
		st, ok := r.m.NameLostWithLast(w.path, 256, ino)
		if !ok {
			w.made = nil // asked again at the next rename
			keep = append(keep, w)
			continue
		}
		// It waits on: a later rename that replaces a file while its
		// name is still pending moves its hit there. Of several saves
		// renamed in one batch, the last rename is the likeliest
		// pointer (the manifest renamed after its parts).
		if found == nil {
			found = map[int]bool{}
		}
		found[w.id] = true
		if w.hit > 0 && !rd.hits[w.hit-1].dropped && rd.hits[w.hit-1].name.path == w.path {
			h := &rd.hits[w.hit-1]
			h.at, h.replaced, h.made, h.name.made, h.state = e.Ref, replaced, false, w.made, stateOf(r.m, e.Ref, w.path, st)
			pinOp(r.m, w.made)
			w.made = nil
			keep = append(keep, w)
			moving++
			continue
		}
		rd.hit(r, ino, w, e.Ref, replaced, false, st)
		if moving < maxMoving {
			w.hit, w.made = len(rd.hits), nil
			keep = append(keep, w)
			moving++
		}
	}
	clear(rd.waiting[len(keep):])
	rd.waiting = keep
	rd.reindex()
}

// published asks, at a rename that gave a synced file the new name p
// (Exim renames its -H file into the spool beside the -D file it made
// and synced under its own name), which of the files synced just before
// it a crash can lose while keeping p: a file made under its name, not
// moved since, which a crash leaves missing. Of the waiting files it
// looks at the last maxMoving alone, the ones the new file was made
// beside, so that a run of saves, each a temp file renamed to a new name,
// costs nothing per rename. A file found keeps its first hit: a later
// rename that replaces a file moves it as it moves others.
func (rd *renameBeforeDirSync) published(r *run, e *model.Effect, p string) {
	for i := len(rd.waiting) - 1; i >= 0 && i >= len(rd.waiting)-maxMoving; i-- {
		w := &rd.waiting[i]
		if w.id == e.Inode.ID || w.moved || w.hit > 0 {
			continue
		}
		ino := w.current(r.m)
		if ino == nil || ino.DataPending() {
			continue
		}
		made := pendingMaker(r.m, ino, w.path)
		if made == nil || made.Kind != model.EntryCreate {
			continue
		}
		st, ok := r.m.NameLostWithLast(w.path, 256, ino)
		if !ok || st.Outcome != model.Missing {
			continue
		}
		w.made = made
		rd.hit(r, ino, *w, e.Ref, p, true, st)
		w.hit, w.made = len(rd.hits), nil
	}
}

// hit records that the rename at at, which replaced (or, made, gave the
// new name) pointer, can be kept by a crash that loses the name of the
// waiting file w (ino, its name given by w.made), st the state that
// shows it: it pins what the finding will name and watches w's path for
// a temp name (unsettled).
func (rd *renameBeforeDirSync) hit(r *run, ino *model.Inode, w syncedName, at model.Ref, pointer string, made bool, st model.PathState) {
	r.m.Pin(ino) // its name at the end, for the finding
	pinOp(r.m, w.made)
	if rd.unsettled == nil {
		rd.unsettled = map[string][]int{}
	}
	rd.unsettled[w.path] = append(rd.unsettled[w.path], len(rd.hits))
	rd.hits = append(rd.hits, replaceHit{ino: ino, at: at, replaced: pointer, made: made, name: w, state: stateOf(r.m, at, w.path, st)})
}

// pinOp pins the files entry operation op names: a hit keeps op (its
// event, whether it became durable), and with it the file a rename
// replaced, which the model may retire.
func pinOp(m *model.Model, op *model.EntryOp) {
	for _, c := range op.Changes {
		m.Pin(c.Old)
		m.Pin(c.New)
	}
}

// maxMoving is how many found files a rename keeps waiting, to move their
// hits to a later rename: each costs a question to the model at every
// rename that replaces a file, and a program that never syncs a
// directory keeps its files waiting to the end. Past it a file's hit
// stays at the rename that found it.
const maxMoving = 16

// movedTo is the path entry operation e gave ino.
func movedTo(e *model.Effect, ino *model.Inode) (string, bool) {
	for _, c := range e.Entry.Changes {
		if c.New == ino && c.Old != ino {
			return c.Path, true
		}
	}
	return "", false
}

func (rd *renameBeforeDirSync) Finish(r *run) {
	for _, h := range rd.hits {
		w := h.name
		if h.dropped || !w.made.Durable {
			continue // a temp name, or one never made durable (name-not-synced's)
		}
		if h.made && h.ino.Name() != w.path {
			// Renamed again later: a temp name when the new file was
			// published, which it cannot have named (Borg renames its
			// integrity file into place before its hints and index).
			continue
		}
		p, d, old, name := h.ino.Name(), dirWords(parentDirOf(w.path)), base(h.replaced), base(w.path)
		synced, related, left := "whose data was synced", "data synced", name+" missing"
		if h.ino.Dir {
			synced, related = "whose entries were synced", "entries synced"
		}
		if h.state != nil && h.state.Outcome != string(model.Missing) && h.state.Words != "" {
			left = name + " " + h.state.Words // the rename that gave the name replaced a file
		}
		did, kept, does := "replaced "+old, "the new "+old, " replaces "+old
		if h.made {
			did, kept, does = "gave "+old+" its name", old, " gives "+old+" its name"
		}
		f := newFinding(RenameBeforeDirSync, p, h.at,
			fmt.Sprintf("%s %s while the name of %s, %s, was not yet durable (%s was fsynced only later): the directory's changes can reach the disk in any order, so a crash can keep %s and leave %s; if %s names or needs %s, fsync %s before the %s",
				h.at.Syscall, did, name, synced, d, kept, left, old, name, d, h.at.Syscall))
		f.relate(w.made.Event(), "gives "+name+" its name, not yet durable")
		f.relate(w.sync, related)
		f.relate(h.at, h.at.Syscall+does)
		f.State = h.state
		r.emit(f)
	}
}
