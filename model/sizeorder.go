package model

import (
	"math"
	"slices"
)

// The journal's order of size changes and entry operations.
//
// Under the ordered models a file's size is journaled metadata, as the
// names are: ext4 (data=ordered, delayed allocation) sets the size on
// disk when writeback allocates the blocks, xfs logs it when the write's
// I/O completes, btrfs commits it with its transaction. Each of them does
// so in a commit made at or after the call that changed the size, and
// that commit holds every entry operation the program made before the
// call. So a crash state in which an entry operation did not persist
// holds no size change made after it: a revlog's append cannot reach the
// disk while the journal created before it is missing. The data of a
// rewrite in place, which changes no size, reaches the disk on its own,
// whenever writeback runs.
//
// The joint states take the pending entry operations as a prefix under
// the ordered models; cutSeq is where a configuration's prefix ends, and
// a content state is admitted with it when the newest size change it puts
// on disk (sizeSeq) comes before that.

// noCut is the cut of a configuration in which every entry operation
// persisted, or of any configuration under posix.
const noCut = math.MaxInt

// changesSize reports whether data op op is known to change the file's
// size. An op whose sizes the trace does not show counts as none: a
// constraint the model cannot be sure of is not applied.
func changesSize(op *DataOp) bool {
	return op.Size >= 0 && op.SizeBefore >= 0 && op.Size != op.SizeBefore
}

// sizeSeq is the program position (event Seq) of the newest size change
// content state cs of ino puts on disk, -1 when it puts none.
func sizeSeq(ino *Inode, cs PathState) int {
	if ino == nil || ino.Dir {
		return -1
	}
	ops := ino.maybeOps()
	newest := -1
	for i := range ops.len() {
		if s := persistedSize(ops.at(i), i, &cs); s > newest {
			newest = s
		}
	}
	return newest
}

// persistedSize is the Seq of pending op i (op) when content state cs
// puts a change of the size it made on disk, else -1.
func persistedSize(op *DataOp, i int, cs *PathState) int {
	bytes, sizeOnly := cs.Persists(i, *op)
	changed := sizeOnly
	if !changed && bytes > 0 {
		if bytes < op.Len && op.Kind == DataWrite {
			// Torn: the part on disk changes the size when it reaches
			// past the old end.
			changed = op.Off >= 0 && op.SizeBefore >= 0 && op.Off+bytes > op.SizeBefore
		} else {
			changed = changesSize(op)
		}
	}
	if changed {
		return op.seq()
	}
	return -1
}

// sizeSeqs gives sizeSeq for each of states that is a content state of
// ino (by its index in states), in O(ops + states) for the states a
// prefix describes (all of them but omissions and subsets): the timeline
// asks at every step. buf is room it may keep.
func sizeSeqs(ino *Inode, states []PathState, buf *[]int, yield func(k, seq int)) {
	if ino == nil || ino.Dir {
		return
	}
	ops := ino.maybeOps()
	// newest[j]: the newest size change among the first j ops.
	var newest []int
	for k := range states {
		cs := &states[k]
		if cs.Inode != ino.ID {
			continue
		}
		switch cs.Kind {
		case StatePrefix, StateTorn, StateSizeOnly:
		default:
			yield(k, sizeSeq(ino, *cs))
			continue
		}
		if newest == nil {
			newest = slices.Grow((*buf)[:0], ops.len()+1)[:ops.len()+1]
			*buf = newest
			newest[0] = -1
			for i := range ops.len() {
				newest[i+1] = newest[i]
				if op := ops.at(i); changesSize(op) {
					newest[i+1] = max(newest[i], op.seq())
				}
			}
		}
		j := min(cs.J, ops.len())
		s := newest[j]
		if cs.Kind != StatePrefix && j < ops.len() {
			s = max(s, persistedSize(ops.at(j), j, cs))
		}
		yield(k, s)
	}
}

// cutSeq is the program position from which configuration cfg of the
// space persisted no entry operation: the Seq of the first of its ops
// that did not persist, under the ordered models; noCut when all did, or
// under posix.
func (sp *JointSpace) cutSeq(cfg []bool) int {
	if sp.m == nil || !sp.m.opt.Persistence.Ordered() {
		return noCut
	}
	for i, ok := range cfg {
		if !ok {
			return sp.ops[i].seq()
		}
	}
	return noCut
}

// admits reports whether content state cs of ino can be on disk in a
// configuration cut at cut.
func admits(ino *Inode, cs PathState, cut int) bool {
	return cut == noCut || sizeSeq(ino, cs) < cut
}

// contentBefore is ino's content with as many of its pending data ops on
// disk as a configuration cut at cut allows: all of them (contentAll)
// unless one changes the size at or after the cut, then the prefix before
// the first that does.
func (m *Model) contentBefore(ino *Inode, cut int) PathState {
	if cut == noCut || ino.Dir {
		return m.contentAll(ino)
	}
	ops := ino.maybeOps()
	for i := range ops.len() {
		if op := ops.at(i); op.seq() >= cut && changesSize(op) {
			return m.contentPrefix(ino, i)
		}
	}
	return m.contentAll(ino)
}

// sizedPaths counts the paths whose states a configuration cut at cut
// leaves out some of: of their explored states, or of those the path's
// own cuts left out already (PathOutcomes.leftOut), which the counts
// subtract at each cut as well, as jointInc's sized list holds them.
func (m *Model) sizedPaths(paths map[string]PathOutcomes, cut int) int {
	n := 0
	for _, po := range paths {
		if sizedPath(m, po, cut) {
			n++
		}
	}
	return n
}

func sizedPath(m *Model, po PathOutcomes, cut int) bool {
	for _, s := range po.leftOut {
		if s.seq >= cut {
			return true
		}
	}
	for _, s := range po.States {
		if s.Inode != 0 && sizeSeq(m.Inode(s.Inode), s) >= cut {
			return true
		}
	}
	return false
}

// pathCuts is what the per-path states of one name (Model.crashName)
// need of the journal's order: under the ordered models the name shows
// candidate i (its durable inode, then each pending entry operation's)
// only in a configuration that left candidate i+1's operation out, so
// cut at it at the widest. A content state of an inode is a state of the
// path when the widest cut among the candidates naming that inode
// admits it, and candidate i counts the states its own cut admits. The
// joint states apply the same rule with each configuration's own cut
// (JointSpace.trees), so that every state of the path is one of theirs.
type pathCuts struct {
	cut  []int // per candidate
	inos []cutIno
	// idx finds an inode's part once there are many (a name renamed
	// over thousands of times with no sync): a scan of inos for each
	// candidate made a crash of such a name quadratic.
	idx map[int]int
}

// cutIno is one inode's part of a pathCuts.
type cutIno struct {
	id                   int
	widest               int   // the widest cut of the candidates naming it
	enumerated, complete bool  // its states were enumerated; all of them
	all                  int64 // how many content states it has, no cut applied
	seqs                 []int // the sizeSeq of each state enumerated and admitted
}

// unreachable is the cut of a candidate that no configuration shows:
// in each one that would, a directory above the name is missing.
const unreachable = -1

// candidateCuts returns the cuts of a name's n candidates (at gives
// candidate i's inode, nil for none, and entry operation, nil for the
// durable one; above are the directories above the name with pending
// entry operations, nearest first), or nil when no cut can leave out a
// state: under posix, or when only the last candidate names a file and
// the directories above are there wherever the name shows a candidate.
func (m *Model) candidateCuts(above []*Name, n int, at func(i int) (*Inode, *EntryOp)) *pathCuts {
	if !m.opt.Persistence.Ordered() || n == 0 || n < 2 && len(above) == 0 {
		return nil
	}
	sized := false // a candidate before the last names a file
	for i := range n - 1 {
		if ino, _ := at(i); ino != nil && !ino.Dir {
			sized = true
			break
		}
	}
	if !sized && len(above) == 0 {
		return nil
	}
	// Most names below a new directory are there in every configuration
	// that shows them: no cut but the next candidate's, and no pathCuts.
	var cutRoom [4]int
	cuts := cutRoom[:0]
	narrowed := false
	for i := range n {
		lo, hi := -1, noCut
		if _, op := at(i); op != nil {
			lo = op.seq()
		}
		if i+1 < n {
			_, next := at(i + 1)
			hi = next.seq()
		}
		c := widestThere(above, lo, hi)
		narrowed = narrowed || c != hi
		cuts = append(cuts, c)
	}
	if !sized && !narrowed {
		return nil
	}
	pc := &pathCuts{cut: slices.Clone(cuts)}
	for i, c := range pc.cut {
		ino, _ := at(i)
		if ino == nil || c == unreachable {
			continue
		}
		d := pc.of(ino)
		d.widest = max(d.widest, c)
	}
	return pc
}

// widestThere is the widest cut in (lo, hi] of a configuration (the
// pending entry operations before the cut persisted, none after) in which
// each of the directories above is a directory, or unreachable. Their
// operations split the range; each part is tried, the widest first.
func widestThere(above []*Name, lo, hi int) int {
	if len(above) == 0 {
		return hi
	}
	var bounds [8]int
	ends := append(bounds[:0], hi)
	for _, a := range above {
		for _, op := range a.Ops {
			if s := op.seq(); s > lo && s < hi {
				ends = append(ends, s)
			}
		}
	}
	slices.Sort(ends)
	for k := len(ends) - 1; k >= 0; k-- {
		e := ends[k]
		if k > 0 && ends[k-1] == e {
			continue
		}
		there := true
		for _, a := range above {
			if ino := a.at(e); ino == nil || !ino.mayBeDir() {
				there = false
				break
			}
		}
		if there {
			return e
		}
	}
	return unreachable
}

// at is the inode the name gives in the configuration cut at cut (its
// pending entry operations before cut persisted, the others not).
func (n *Name) at(cut int) *Inode {
	ino := n.Durable
	for _, op := range n.Ops {
		if op.seq() >= cut {
			break
		}
		for _, c := range op.Changes {
			if c.Path == n.Path {
				ino = c.New
			}
		}
	}
	return ino
}

// of is inode ino's part, made on first use.
func (pc *pathCuts) of(ino *Inode) *cutIno {
	if pc.idx != nil {
		if k, ok := pc.idx[ino.ID]; ok {
			return &pc.inos[k]
		}
	} else {
		for k := range pc.inos {
			if pc.inos[k].id == ino.ID {
				return &pc.inos[k]
			}
		}
	}
	pc.inos = append(pc.inos, cutIno{id: ino.ID, widest: -1})
	switch n := len(pc.inos); {
	case pc.idx != nil:
		pc.idx[ino.ID] = n - 1
	case n > cutsScan:
		pc.idx = make(map[int]int, 2*n)
		for k := range pc.inos {
			pc.idx[pc.inos[k].id] = k
		}
	}
	return &pc.inos[len(pc.inos)-1]
}

// cutsScan is how many inodes pathCuts.of scans before it indexes them.
const cutsScan = 16

// count is how many states candidate i, which names ino (enumerated),
// gives the path, and whether that is exact rather than a lower bound.
func (pc *pathCuts) count(i int, ino *Inode) (int64, bool) {
	d := pc.of(ino)
	cut := pc.cut[i]
	if cut == noCut {
		return d.all, d.complete
	}
	var n int64
	for _, s := range d.seqs {
		if s < cut {
			n++
		}
	}
	return max(n, 1), d.complete
}
