package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/model"
)

// nameNotSynced asks, at the end, which names a crash can show otherwise
// than the program saw them: the disk's version, or the result of some
// of the pending entry operations and not of others.
//
// A name the program made and removed again is litter, not data, under
// every model alike: whether a filesystem happened to commit its creation
// (ext4's journal does with any later fsync) must not decide whether it
// is reported, or a stronger model would report what posix does not. So
// litter is decided from what the program did, the same under every
// model: the name did not exist before the trace and no fsync of its
// directory (or sync) came after it was made.
// Being the same under every model, that history is kept once, by the
// first model's run, and read by every run (run.names). A path whose last
// making a sync covered is pruned from it (see prune): a trace of a
// million settled files keeps few paths in it.
type nameNotSynced struct {
	// notFollowedBy is what a related event says of each kind of entry
	// op, made once.
	notFollowedBy map[model.EntryKind]string
}

// notFollowed is what a finding says of an entry op of kind k not
// followed by a directory fsync.
func (s *nameNotSynced) notFollowed(k model.EntryKind) string {
	w, ok := s.notFollowedBy[k]
	if !ok {
		if s.notFollowedBy == nil {
			s.notFollowedBy = map[model.EntryKind]string{}
		}
		w = k.String() + " not followed by a directory fsync"
		s.notFollowedBy[k] = w
	}
	return w
}

// nameHistory is what the program did to names, for litter.
type nameHistory struct {
	made map[string]int // path -> seq of the last op that gave it an inode
	// madeInitial: paths whose last op gave them an inode from before the
	// trace, which prune keeps.
	madeInitial map[string]bool
	existed     map[string]bool
	dirSync     map[string]int // directory path -> seq of its last fsync
	// synced is the first model's SyncedAfter: whether a sync, or a
	// syncfs of a path's filesystem, came after an event.
	synced  func(p string, seq int) bool
	pruneAt int // len(made) at which to prune next
}

// namePrune is the fewest paths made keeps before it is pruned; 0:
// prune at every op (a test's setting). A variable for tests.
var namePrune = 1024

func newNameHistory() *nameHistory {
	return &nameHistory{made: map[string]int{}, madeInitial: map[string]bool{}, existed: map[string]bool{}, dirSync: map[string]int{}, pruneAt: namePrune}
}

// syncedAfter reports whether a sync after seq made the entries of p's
// directory durable: its fsync, a sync, or a syncfs of its filesystem.
func (s *nameHistory) syncedAfter(p string, seq int) bool {
	if d, ok := s.dirSync[parentDirOf(p)]; ok && d > seq {
		return true
	}
	return s.synced != nil && s.synced(p, seq)
}

func (*nameNotSynced) Observe(r *run, e *model.Effect) {
	if r.index == 0 {
		r.names.observe(e)
	}
}

func (s *nameHistory) observe(e *model.Effect) {
	switch e.Kind {
	case model.EffEntry:
		for _, c := range e.Entry.Changes {
			if _, seen := s.made[c.Path]; !seen && c.Old != nil && c.Old.Initial {
				s.existed[c.Path] = true
			}
			if c.New != nil {
				s.made[c.Path] = e.Ref.Seq
				if c.New.Initial {
					s.madeInitial[c.Path] = true
				} else if s.madeInitial[c.Path] {
					delete(s.madeInitial, c.Path)
				}
			} else if _, seen := s.made[c.Path]; !seen {
				s.made[c.Path] = -1
			}
		}
		if len(e.Carried) > 0 {
			// A directory renamed with names made in it and never synced:
			// the rename made them at the new path, as litter there if
			// removed before its directory is synced.
			to := e.Entry.Changes[1].Path + "/"
			for _, op := range e.Carried {
				for _, c := range op.Changes {
					if c.New != nil && !c.New.Initial && strings.HasPrefix(c.Path, to) {
						s.made[c.Path] = e.Ref.Seq
					}
				}
			}
		}
		if len(s.made) >= s.pruneAt {
			s.prune()
		}
	case model.EffDirSync:
		if e.Inode != nil && e.Inode.Path != "" {
			s.dirSync[e.Inode.Path] = e.Ref.Seq
		}
	}
}

// prune forgets the paths whose last making a sync after it covered: a
// directory fsync of their parent, or a sync. Such a path is no litter
// whatever follows (dirSync and the model's syncs only grow) until an op makes it
// again, which puts it back. Forgetting it must not change what else made
// says:
//   - existed is decided at a path's first change, which a forgotten path
//     seems to have again; but it names the inode made last, or nothing,
//     and that inode is not from before the trace (madeInitial is kept),
//     so the change cannot mark it as existing;
//   - unsureCreates skips the paths an op changed: a path the trace made
//     is known to the model from then on, and no open of it is unsure.
//
// Paths only removed (-1) stay: there is no making for a sync to cover.
// It runs when made has doubled since the last, so its cost is spread
// over the ops that filled it.
func (s *nameHistory) prune() {
	kept := 0
	for p, seq := range s.made {
		if !s.covered(p, seq) {
			kept++
		}
	}
	// A new map: a Go map keeps the room of its deleted entries.
	made := make(map[string]int, kept)
	for p, seq := range s.made {
		if !s.covered(p, seq) {
			made[p] = seq
		}
	}
	s.made, s.pruneAt = made, max(namePrune, 2*len(made))
	if namePrune == 0 {
		s.pruneAt = 0
	}
}

// covered reports whether a sync after made's seq made the path's last
// making durable, so that prune may forget it.
func (s *nameHistory) covered(p string, seq int) bool {
	if seq < 0 || s.madeInitial[p] {
		return false
	}
	return s.syncedAfter(p, seq)
}

// litter reports whether p is a name the program made, never had synced
// and removed again.
func (s *nameHistory) litter(p string, n *model.Name) bool {
	if n.Cache != nil || s.existed[p] {
		return false
	}
	made, ok := s.made[p]
	if !ok || made < 0 {
		return false
	}
	return !s.syncedAfter(p, made-1)
}

func (s *nameNotSynced) Finish(r *run) {
	h := r.names
	names := r.m.Names()
	// Each path with its name, sorted by path: looked up again in the
	// map, the names of a trace of many files missed the cache.
	type named struct {
		p string
		n *model.Name
	}
	paths := make([]named, 0, len(names))
	for p, n := range names {
		if len(n.Ops) > 0 && canDiffer(n) && !h.litter(p, n) && !goneWithDir(r.m, p, n) {
			paths = append(paths, named{p, n})
		}
	}
	sortBig(paths, func(a, b named) int { return strings.Compare(a.p, b.p) })
	k := len(paths)
	if r.index > 0 {
		k = 0 // as in dataNotSynced.Finish: a later model's findings mostly join
	}
	type nameAhead struct {
		state *State
		room  []model.PathState
	}
	st, end := r.m.Still(), r.m.Last()
	ahead(k, func(i int, a *nameAhead) bool {
		var ok bool
		a.state, ok = demonstrateName(viewAsker{st, &a.room}, end, paths[i].p, paths[i].n)
		return ok
	}, func(i int, a *nameAhead, ok bool) {
		s.nameNotSyncedAt(r, paths[i].p, paths[i].n, a.state, ok)
	})
	for _, x := range paths[k:] {
		s.nameNotSyncedAt(r, x.p, x.n, nil, false)
	}
	s.unsureCreates(r)
}

// nameNotSyncedAt asks about one name, with the state that shows it
// worked out ahead when known.
func (s *nameNotSynced) nameNotSyncedAt(r *run, p string, n *model.Name, state *State, known bool) {
	last := n.Ops[len(n.Ops)-1]
	if r.joins(NameNotSynced, p, last.Event()) {
		return
	}
	dir := parentOf(p)
	if d, ok := otherDirLeft(last, p); ok {
		// A rename between two directories whose one here was synced:
		// the one the crash still waits for is the other.
		dir = dirWords(d)
	}
	// Constants all, joined when compiled: a format made per name was a
	// fifth of what name-not-synced allocated.
	const dirSyncFix = "; open the directory and fsync it after the change"
	const unsureTail = " (the trace cannot tell whether it existed: record with crashsim trace, or pass --initial-list)"
	var format string
	hedged := false
	switch {
	case n.Durable == nil && n.Cache == nil:
		format = "%s can be left behind after a crash: its %s is not durable until %s is fsynced" + dirSyncFix
	case n.Durable == nil:
		format = "%s can be missing after a crash: its %s is not durable until %s is fsynced" + dirSyncFix
	case n.Cache == nil && n.Durable.Unsure && !gaveInode(n, p) && !r.m.MadeDurably(p):
		// Whether anything was there before the open with O_CREAT the
		// trace cannot tell, and nothing since put a file there durably:
		// had the open made it, a crash leaves nothing to come back (as
		// a listing that says so finds). Said as unsureCreates says it.
		format = "if %s existed before, it can come back after a crash: its %s is not durable until %s is fsynced" + dirSyncFix + unsureTail
		hedged = true
	case n.Cache == nil:
		format = "%s can come back after a crash: its %s is not durable until %s is fsynced" + dirSyncFix
	case n.Durable.Unsure:
		format = "%s can name its old file again after a crash, or be missing if it did not exist before: the %s is not durable until %s is fsynced" + dirSyncFix
	case removedBetween(n, p):
		// Moved away (vim's backup) or unlinked, then made again: a crash
		// can keep the removal and not what came after.
		format = "%s can name its old file again after a crash, or be missing: the %s is not durable until %s is fsynced" + dirSyncFix
	default:
		format = "%s can name its old file again after a crash: the %s is not durable until %s is fsynced" + dirSyncFix
	}
	f := r.newFinding(NameNotSynced, p, last.Event(), "")
	if hedged {
		f.Rule = f.Rule.lowered(Warning) // as unsureCreates' findings
	}
	if socketName(p, n) {
		// A server binds its socket anew at each start, and has to
		// clear one left behind by any kill, crash or not.
		format = strings.TrimSuffix(strings.TrimSuffix(format, unsureTail), dirSyncFix) + "; but it is a socket, which holds no data (a server makes it anew at each start, and removes one a crash left behind), so this loses nothing"
		f.Rule = f.Rule.lowered(Info)
	}
	r.message(f, format, base(p), what(last), dir)
	for _, op := range n.Ops {
		f.relate(op.Event(), s.notFollowed(op.Kind))
	}
	if !known {
		state, _ = demonstrateName(modelAsker{r.m}, r.m.Last(), p, n)
	}
	f.State = state
	r.emit(f)
}

// socketName reports whether name n (path p) is a socket's: the program
// made it one (bind), or removed one there, and left nothing else there
// that holds data, in the page cache or in an entry operation still
// pending. What a crash does to that name loses none of the program's
// data: what was there before the run may come back, as after a removal
// of any file.
func socketName(p string, n *model.Name) bool {
	sock := n.Durable != nil && n.Durable.Socket()
	dataless := func(ino *model.Inode) bool {
		switch {
		case ino == nil:
			return true
		case ino.Socket():
			sock = true
			return true
		}
		return false
	}
	if !dataless(n.Cache) {
		return false
	}
	for _, op := range n.Ops {
		for _, c := range op.Changes {
			if c.Path != p {
				continue
			}
			if !dataless(c.New) {
				return false
			}
			sock = sock || c.Old != nil && c.Old.Socket()
		}
	}
	return sock
}

// gaveInode reports whether a pending entry operation of name n (path
// p) put a file there (a rename or link onto it): one a crash can leave
// whatever was there before.
func gaveInode(n *model.Name, p string) bool {
	for _, op := range n.Ops {
		for _, c := range op.Changes {
			if c.Path == p && c.New != nil {
				return true
			}
		}
	}
	return false
}

// removedBetween reports whether a pending entry operation of name n
// (path p) removed it on its own, before a later one gave it a file.
func removedBetween(n *model.Name, p string) bool {
	for _, op := range n.Ops[:len(n.Ops)-1] {
		for _, c := range op.Changes {
			if c.Path == p && c.New == nil {
				return true
			}
		}
	}
	return false
}

// unsureCreates reports the files the program opened with O_CREAT where
// the trace cannot tell whether that created them: if it did, the name
// is not durable until the directory is synced. The finding says so
// conditionally, one severity lower, and how to settle it.
func (s *nameNotSynced) unsureCreates(r *run) {
	h := r.names
	names := r.m.Names()
	var paths []string
	for p, n := range names {
		if !n.Unsure || r.m.UnsureAt(n) == nil || n.Cache == nil || !n.Cache.Unsure {
			continue
		}
		if _, changed := h.made[p]; changed {
			continue // an entry op changed the name: the rule above asks about it, alike in every model
		}
		at := r.m.UnsureAt(n).Seq
		if h.syncedAfter(p, at) {
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		n := names[p]
		at := *r.m.UnsureAt(n)
		f := newFinding(NameNotSynced, p, at,
			fmt.Sprintf("if %s did not exist before, its creation is not durable until %s is fsynced: a crash can leave it as it was before the run, that is missing; open the directory and fsync it after the create (the trace cannot tell whether %s existed: record with crashsim trace, or pass --initial-list)",
				base(p), parentOf(p), base(p)))
		f.Rule = f.Rule.lowered(Warning)
		f.relate(at, "opened with O_CREAT: created, or opened an existing file")
		if po := r.m.Crash(p, 256); len(po.States) > 0 {
			f.State = demonstrateFrom(r.m, r.m.Last(), p, po, []model.Outcome{model.Initial})
		}
		r.emit(f)
	}
}

// goneWithDir reports whether name n at p, which the program removed,
// went with a directory above it whose removal is durable: its own
// removal not being durable leaves nothing, as no crash brings the
// directory back (rm -rf of a directory, then an fsync of its parent).
// A name the program sees never has such a directory.
func goneWithDir(m *model.Model, p string, n *model.Name) bool {
	return n.Cache == nil && m.GoneAbove(p) != ""
}

// canDiffer reports whether some crash state can give the name another
// inode (or none) than the page cache: its durable one, or what one of
// its pending entry operations left.
func canDiffer(n *model.Name) bool {
	if n.Durable != n.Cache {
		return true
	}
	for _, op := range n.Ops {
		for _, c := range op.Changes {
			if c.Path == n.Path && c.New != n.Cache {
				return true
			}
		}
	}
	return false
}

// demonstrateName is a crash state in which the name shows what the
// finding says: missing when the program sees it, present when the
// program removed it; else one that loses something (demonstrate).
// false where a declined.
func demonstrateName(a asker, at model.Ref, p string, n *model.Name) (*State, bool) {
	s, found, ok := a.crashFirst(p, nameShows(n))
	if ok && !found {
		var po model.PathOutcomes
		po, ok = a.crash(p)
		s, found = pickState(po, lossOrder)
	}
	if !ok || !found {
		return nil, ok
	}
	w, ok := a.words(p, s)
	return stateWith(at, p, s, w), ok
}

// nameShows says whether a crash state of name n shows what
// name-not-synced says: see demonstrateName.
func nameShows(n *model.Name) func(model.PathState) bool {
	return func(s model.PathState) bool {
		return n.Cache != nil && s.Outcome == model.Missing || n.Cache == nil && s.Outcome != model.Missing ||
			n.Cache != nil && s.Inode != 0 && s.Inode != n.Cache.ID
	}
}

func what(op *model.EntryOp) string {
	switch op.Kind {
	case model.EntryCreate, model.EntryMkdir, model.EntrySymlink:
		return "creation"
	case model.EntryLink:
		return "new link"
	case model.EntryUnlink, model.EntryRmdir:
		return "removal"
	}
	return op.Kind.String()
}

func parentOf(p string) string { return dirWords(parentDirOf(p)) }

// dirWords names directory d in a message: "the directory NAME".
func dirWords(d string) string {
	d = base(d)
	if d == "." || d == "/" {
		return "its directory"
	}
	return "the directory " + d
}

// otherDirLeft returns the directory op still needs synced when that is
// not p's own: a rename into p's directory, which was fsynced, from one
// that was not.
func otherDirLeft(op *model.EntryOp, p string) (string, bool) {
	left := op.UnsyncedDirs()
	if len(left) == 0 || slices.Contains(left, parentDirOf(p)) {
		return "", false
	}
	return left[0], true
}

func parentDirOf(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "."
}

// renameBeforeSync records renames and links that publish a file whose
// data is not yet durable.
type renameBeforeSync struct {
	hits []renameHit
	// byIno indexes the hits by file, for a file that gives up the name
	// a hit is about (gaveUp): its last hit, counted from 1, whose prev
	// chains the others (an int a file, not a slice: a trace of 100,000
	// files renamed unsynced keeps 100,000 of them).
	byIno map[*model.Inode]int32
}

type renameHit struct {
	ino         *model.Inode
	at          model.Ref
	first, last model.Ref // the events of the first and last pending writes
	state       *State
	name        string // the name the rename or link gave the file
	prev        int32  // the file's hit before this one, counted from 1 (0: none)
	// cleared: the file gave that name up once its data was durable
	// (ostree links each object into a staging directory, syncs the
	// filesystem, then renames it into objects/): no name the program
	// kept ever showed it without its data.
	cleared bool
}

func (rb *renameBeforeSync) Observe(r *run, e *model.Effect) {
	if e.Kind != model.EffEntry {
		return
	}
	op := e.Entry
	if len(rb.byIno) > 0 {
		rb.gaveUp(op)
	}
	if op.Kind != model.EntryRename && op.Kind != model.EntryLink && op.Kind != model.EntryExchange {
		return
	}
	ino := e.Inode
	if ino == nil || ino.Dir {
		return
	}
	if first, last, ok := ino.PendingWriteEnds(); ok {
		r.m.Pin(ino)
		if rb.byIno == nil {
			rb.byIno = map[*model.Inode]int32{}
		}
		prev := rb.byIno[ino]
		rb.hits = append(rb.hits, renameHit{ino: ino, at: e.Ref, first: first.Event(), last: last.Event(), state: demonstrate(r.m, e.Ref, ino.Path), name: ino.Path, prev: prev})
		rb.byIno[ino] = int32(len(rb.hits))
	}
}

// gaveUp clears the hits whose file op takes the name they are about
// from, once every write pending at the hit is durable.
func (rb *renameBeforeSync) gaveUp(op *model.EntryOp) {
	for _, c := range op.Changes {
		if c.Old == nil || c.Old == c.New {
			continue
		}
		i := rb.byIno[c.Old]
		if i == 0 {
			continue
		}
		pending := firstPending(c.Old)
		for ; i != 0; i = rb.hits[i-1].prev {
			if h := &rb.hits[i-1]; h.name == c.Path && pending > h.at.Seq {
				h.cleared = true
			}
		}
	}
}

func (rb *renameBeforeSync) Finish(r *run) {
	for _, h := range rb.hits {
		if h.cleared {
			continue
		}
		p := h.ino.Name()
		f := newFinding(RenameBeforeSync, p, h.at,
			fmt.Sprintf("%s was put in place by %s while its data was only in the page cache: a crash can leave %s empty or partial; fsync the file before the %s",
				base(p), h.at.Syscall, base(p), h.at.Syscall))
		f.relate(h.first, "written, not yet durable")
		if h.last.Line != h.first.Line {
			f.relate(h.last, "written, not yet durable")
		}
		f.relate(h.at, h.at.Syscall+" publishes it")
		f.State = h.state
		r.emit(f)
	}
}

// dirSyncBeforeData finds directory fsyncs that made a name durable while
// the file it names still had its data only in the page cache, and the
// file kept that name until its data was durable (or to the end): then a
// crash can show the name the program keeps with its data missing.
//
// A name the file gives up only after that data was made durable (a temp
// name a save renames away once its fsync returned) is not reported: the
// crash states that show it empty show a name the program never relied
// on, and every name it gets later was made after the data was durable.
// A JVM thread pool saving one file a thread meets that case when one
// thread's directory fsync returns while another thread's temp file is
// written and its fsync still running.
type dirSyncBeforeData struct {
	// watch holds, by file, the findings not yet emitted that a later
	// rename or unlink of the durable name can still clear.
	watch map[*model.Inode][]*dirSyncHit
	// open holds the hits made since the last sync of everything, which
	// ends the window of each still watched.
	open []*dirSyncHit
}

// dirSyncHit is one file a directory fsync made a name durable for while
// its data was pending.
type dirSyncHit struct {
	ino     *model.Inode // the file (pinned)
	name    string       // the name the fsync made durable
	seq     int          // the directory fsync's event
	pid     int          // the process that made it
	cleared bool         // the file gave the name up after the data was durable
	// synced is the sync that made the data durable while the file kept
	// the name, ending the window (zero while it lasts); gone is set once
	// the file gave the name up.
	synced model.Ref
	gone   bool
}

// closes reports whether a sync at ends h's window at the very next
// event of the trace, by the process that fsynced the directory: nothing
// happened in between, so every state a crash there can leave is one a
// crash just before the directory fsync could leave as well (the name
// of a new file may reach the disk before its data without any fsync),
// and the order of the two syncs cannot be told from the disk.
func (h *dirSyncHit) closes(at model.Ref, pid int) bool {
	return at.Seq == h.seq+1 && at.PID == pid
}

func (d *dirSyncBeforeData) Observe(r *run, e *model.Effect) {
	switch e.Kind {
	case model.EffEntry:
		d.gaveUp(e.Entry)
		return
	case model.EffFileSync:
		d.synced(e.Inode, e.Ref)
		return
	case model.EffSyncAll:
		kept := d.open[:0]
		for _, h := range d.open {
			if !r.m.Covers(e, h.ino) {
				kept = append(kept, h) // a syncfs of another filesystem
				continue
			}
			if !h.gone && h.synced.Line == 0 {
				h.synced = e.Ref
				h.cleared = h.cleared || h.closes(e.Ref, h.pid)
			}
		}
		clear(d.open[len(kept):])
		d.open = kept
		return
	}
	if e.Kind != model.EffDirSync {
		return
	}
	at := e.Ref
	// One finding per file, naming every entry operation the fsync made
	// durable for it (the create of a temp name and the rename, say).
	ops := map[*model.Inode][]*model.EntryOp{}
	firsts := map[*model.Inode]model.Ref{}
	// durable is the name the fsync made durable for each file: the
	// newest covered change that gave it one. It is the name the finding
	// gives, not the file's last one: a name it gets later, after its data
	// was synced (dpkg's updates/tmp.i renamed to 0000), was never
	// durable with the data missing.
	durable := map[*model.Inode]string{}
	var order []*model.Inode
	// The ops the fsync wrote in this directory, even if another
	// directory still has to be synced: posix lets such a rename persist
	// anyway, and a stronger model that commits everything must not be
	// the only one to report it.
	for _, op := range e.Covered {
		for _, c := range op.Changes {
			ino := c.New
			if ino == nil || ino.Dir {
				continue
			}
			if _, ok := ops[ino]; !ok {
				first, _, ok := ino.PendingWriteEnds()
				if !ok {
					continue
				}
				firsts[ino] = first.Event()
				order = append(order, ino)
			}
			ops[ino] = append(ops[ino], op)
			durable[ino] = c.Path
		}
	}
	for _, ino := range order {
		// The related events are gathered now, so that the finding made
		// at the end holds no entry op the model has let go.
		var rel Finding
		rel.relate(firsts[ino], "written, not yet durable")
		for _, op := range ops[ino] {
			rel.relate(op.Event(), op.Kind.String()+" made durable")
		}
		rel.relate(at, "directory fsync")
		ino, related, p := ino, slices.Clip(rel.Related), durable[ino]
		r.m.Pin(ino)
		st := demonstrate(r.m, at, p)
		h := &dirSyncHit{ino: ino, name: p, seq: at.Seq, pid: at.PID}
		if d.watch == nil {
			d.watch = map[*model.Inode][]*dirSyncHit{}
		}
		d.watch[ino] = append(d.watch[ino], h)
		d.open = append(d.open, h)
		r.later(func() {
			if h.cleared {
				return
			}
			until := "from here on"
			if h.synced.Line != 0 {
				until = fmt.Sprintf("before the %s at line %d", h.synced.Syscall, h.synced.Line)
			}
			f := newFinding(DirSyncBeforeData, p, at,
				fmt.Sprintf("the directory fsync made %s durable while its data was only in the page cache: a crash %s leaves %s present but empty or partial; fsync the file before the directory",
					base(p), until, base(p)))
			f.Related = related
			if h.synced.Line != 0 {
				f.relate(h.synced, "the sync that ends the window")
			}
			f.State = st
			r.emit(f)
		})
	}
}

// gaveUp settles the watched findings of the files op takes a durable
// name from: cleared when none of the writes that were pending at the
// directory fsync still is (a sync of the file, or of everything, made
// them durable before the name went), kept otherwise (the data is still
// at risk, under the new name or none). Either way the name no longer
// names the file, and no later op can change the verdict.
func (d *dirSyncBeforeData) gaveUp(op *model.EntryOp) {
	if len(d.watch) == 0 || op == nil {
		return
	}
	for _, c := range op.Changes {
		ino := c.Old
		if ino == nil || ino == c.New {
			continue
		}
		hits := d.watch[ino]
		if len(hits) == 0 {
			continue
		}
		pending := firstPending(ino)
		kept := hits[:0]
		for _, h := range hits {
			if h.name != c.Path {
				kept = append(kept, h)
				continue
			}
			h.cleared = h.cleared || pending > h.seq
			h.gone = true
		}
		if len(kept) == 0 {
			delete(d.watch, ino)
		} else {
			d.watch[ino] = kept
		}
	}
}

// synced notes, for the watched findings of ino, the sync at that made
// durable every write that was pending at their directory fsync: the end
// of the window in which a crash shows the name without the data.
func (d *dirSyncBeforeData) synced(ino *model.Inode, at model.Ref) {
	hits := d.watch[ino]
	if len(hits) == 0 {
		return
	}
	pending := firstPending(ino)
	for _, h := range hits {
		if h.synced.Line == 0 && pending > h.seq {
			h.synced = at
			h.cleared = h.cleared || h.closes(at, h.pid)
		}
	}
}

func (*dirSyncBeforeData) Finish(*run) {}

// firstPending is the event of ino's first write not yet durable, or
// math.MaxInt when none is: every write pending at an event before it
// is durable now.
func firstPending(ino *model.Inode) int {
	if first, _, pending := ino.PendingWriteEnds(); pending {
		return first.Event().Seq
	}
	return math.MaxInt
}

// crossDirRename warns about renames between directories.
type crossDirRename struct{}

func (crossDirRename) Observe(r *run, e *model.Effect) {
	if e.Kind != model.EffEntry || e.Entry.Kind != model.EntryRename || e.Entry.NumDirs() < 2 {
		return
	}
	from, at, ino, op := e.Entry.Changes[0].Path, e.Ref, e.Inode, e.Entry
	r.m.Pin(ino)
	r.later(func() {
		to := ino.Name()
		var f *Finding
		if op.Durable {
			// Both directories were synced after it (redis's AOF
			// rewrite, mv): nothing a crash can undo, only the
			// EXDEV a move across filesystems would meet.
			f = newFinding(CrossDirRename, to, at,
				fmt.Sprintf("%s was renamed from another directory (%s), and both directories were synced after it, so the move is durable; the rename would fail with EXDEV were they ever on different filesystems",
					base(to), parentDirOf(from)))
			f.Rule = f.Rule.lowered(Info)
		} else {
			f = newFinding(CrossDirRename, to, at,
				fmt.Sprintf("%s was renamed from another directory (%s): both directories need an fsync for the move to be durable, and the rename fails with EXDEV if they are on different filesystems; create the temp file in the target's directory, or fsync both directories after the rename",
					base(to), parentDirOf(from)))
		}
		f.relate(at, "rename across directories")
		r.emit(f)
	})
}

func (crossDirRename) Finish(*run) {}

// syncErrorIgnored finds programs that went on after a failed sync as if
// the data were safe.
type syncErrorIgnored struct {
	seen map[*model.Inode]bool
	// failed are the inodes a sync failed on, by ID: what an exit asks
	// about, where a walk over every inode at every exit made a trace of
	// many processes and files quadratic.
	failed []*model.Inode
}

func (s *syncErrorIgnored) Observe(r *run, e *model.Effect) {
	var ino *model.Inode
	published := false
	switch e.Kind {
	case model.EffSyncFailed:
		if n := e.Inode; n != nil && n.FailedSync() != nil && n.FailedSync().Seq == e.Ref.Seq {
			i, found := slices.BinarySearchFunc(s.failed, n.ID, func(a *model.Inode, id int) int { return a.ID - id })
			if !found {
				r.m.Pin(n)
				s.failed = slices.Insert(s.failed, i, n)
			}
		}
		return
	case model.EffFileSync:
		ino = e.Inode
	case model.EffEntry:
		if e.Entry.Kind == model.EntryRename || e.Entry.Kind == model.EntryLink {
			ino, published = e.Inode, true
		}
	case model.EffExit:
		if e.Exit.Signal == "" && e.Exit.Status == 0 {
			for _, n := range s.failed {
				if n.FailedSync() != nil && !s.seen[n] && n.FailedSync().PID == e.Ref.PID {
					s.report(r, n, e.Ref, "the program then exited with status 0")
				}
			}
		}
		return
	}
	if ino == nil || ino.FailedSync() == nil || s.seen[ino] || e.Ref.Seq <= ino.FailedSync().Seq {
		return
	}
	// Worked out only here: every file sync passes above.
	how := "a later " + e.Ref.Syscall + " returned 0, which proves nothing about the lost pages"
	if published {
		how = "it was then published by " + e.Ref.Syscall
	}
	s.report(r, ino, e.Ref, how)
}

func (s *syncErrorIgnored) report(r *run, ino *model.Inode, at model.Ref, how string) {
	s.seen[ino] = true
	r.m.Pin(ino)
	failed := *ino.FailedSync()
	st := demonstrate(r.m, at, ino.Path)
	words := leaves(r.m, ino.Path)
	r.later(func() {
		p := ino.Name()
		f := newFinding(FsyncErrorIgnored, p, at,
			fmt.Sprintf("%s failed to sync (line %d) and %s: after a failed fsync Linux drops the dirty pages, so %s can be %s after a crash; treat a failed sync as lost data and rewrite the file from a copy",
				base(p), failed.Line, how, base(p), words))
		f.relate(failed, "sync failed")
		f.relate(at, "went on as if the data were safe")
		f.State = st
		r.emit(f)
	})
}

func (s *syncErrorIgnored) Finish(*run) {}
