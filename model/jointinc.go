package model

import (
	"math"
	"slices"
)

// jointInc counts joint crash states (see jointCount, which it must equal)
// at a cost that follows what an event changed, not the number of paths.
//
// Every path the timeline holds has a record, which keeps what the count
// and the timeline read of the path's outcome set (not the set: its
// states are most of a timeline's memory). The record says whether a pending entry op
// in scope names it, whether it varies with the configuration of pending
// ops (it is named by one, or lies below one that is), and what it
// contributes to the product of content states in two configurations:
// "none persisted" and "all persisted". A path that does not vary
// contributes the same to every configuration. Products are kept as
// multisets of factors with an inode's factor counted once (hard links),
// so that a record can leave and come back when its path changes.
//
// The count then needs no walk over the paths:
//   - past the bound on configurations (jointSubsetOps, jointPrefixOps):
//     the products of "none" and "all", as jointCount's lower bound;
//   - within it: the product of the paths that do not vary, times the
//     enumeration over the varying ones only. Under posix the varying
//     paths fall apart into groups no op, directory or inode joins, and
//     each group's subsets are enumerated on their own.
type jointInc struct {
	m    *Model
	recs map[string]*jrec
	// below lists, for each directory, its children on the way to the
	// recorded paths under it, each once (see link).
	below map[string][]string
	// ops are the pending entry ops with a change on a recorded path.
	ops    map[*EntryOp]bool
	order  []*EntryOp // ops in the order the model made them, and some since durable
	newOps []*EntryOp
	// carriedOps are ops made earlier that a directory rename gave
	// changes at new paths (Effect.Carried), with those paths.
	carriedOps []carriedOp
	// parts are the changes of pending ops made durable on their own
	// (Model.persistPart), which records no longer count in opN.
	parts   map[opPath]bool
	varying map[string]bool // the recorded paths that vary
	// static: the paths that do not vary; none, all: every path, in the
	// configuration where no pending op persisted, or all did.
	static, none, all product
	// hang: per op-named directory, the varying paths below it no op
	// names ("hanging": present in a configuration exactly when the
	// op-named directories above them are), with the inodes they hold.
	hang map[string]*product
	// Claims of inodes by hanging paths and by the others (any inode a
	// path can name in some configuration): an inode both claim, or two
	// hanging paths, is a hard link the grouped enumeration cannot split.
	claimHang, claimOther map[int]int
	conflict              int
	differ                int // paths whose inode differs between none and all
	inexact               int // paths whose outcome set is sampled
	// sized lists, in no order, the records whose explored states put a
	// size change on disk (jrec.maxSeq), with its Seq: under the ordered
	// models a configuration's cut can leave such a state out (see
	// sizeorder.go). count drops the entries it finds before every cut
	// to come.
	sized []sizedRec
	// scratch is the room count, groups and enumerate work in, kept from
	// one count to the next: a timeline counts at every crash point, and
	// making it anew each time was a third of the count's time on a
	// trace of many files.
	scratch jointScratch
}

type sizedRec struct {
	path string
	r    *jrec
}

// setSized lists record r of path p in sized, or takes it off, as its
// maxSeq says.
func (j *jointInc) setSized(p string, r *jrec) {
	switch {
	case r.maxSeq >= 0 && r.sized == 0:
		j.sized = append(j.sized, sizedRec{p, r})
		r.sized = len(j.sized)
	case r.maxSeq < 0 && r.sized > 0:
		j.unsize(r)
	}
}

func (j *jointInc) unsize(r *jrec) {
	i, last := r.sized-1, len(j.sized)-1
	j.sized[i] = j.sized[last]
	j.sized[i].r.sized = i + 1
	j.sized[last] = sizedRec{}
	j.sized = j.sized[:last]
	r.sized = 0
}

// jointCutPaths bounds the paths whose states a configuration's cut can
// leave out that a count takes into account. Past it the count is a
// lower bound: the states of the configuration in which every pending op
// persisted, which no cut constrains (that many files of changed sizes
// make more states than anyone enumerates).
const jointCutPaths = 64

// cutPaths lists the records of paths whose explored states put on disk
// a size change made at or after cut, the earliest cut of the count:
// false when there are more than jointCutPaths. It takes off sized the
// records whose newest size change comes before cut, which no later cut
// constrains (the pending ops leave in program order, and new ones come
// after the old).
func (j *jointInc) cutPaths(cut int) ([]sizedRec, bool) {
	out := j.scratch.cands[:0]
	defer func() { j.scratch.cands = out[:0] }()
	for i := 0; i < len(j.sized); {
		e := j.sized[i]
		if e.r.maxSeq < cut {
			j.unsize(e.r)
			continue
		}
		if len(out) == jointCutPaths {
			return nil, false
		}
		out = append(out, e)
		i++
	}
	return out, true
}

// jointScratch is jointInc's working room. Nothing in it outlives the
// count that fills it.
type jointScratch struct {
	varying []string
	idx     map[string]int
	parent  []int
	byIno   map[int]int
	at      map[int]int
	groups  []jgroup
	configs [][]*EntryOp
	cfgOps  []*EntryOp
	done    map[uint64][2]int64
	seenIno map[int]int // enumerate's: the configuration that counted an inode, 1 + its index
	plan    enumPlan
	newest  []int
	cands   []sizedRec // cutPaths's: valid until the next count
}

// reuseMap returns m emptied, or a new map when m is nil or grew past a
// few dozen entries (clearing walks a map's whole room, which a burst
// would leave large for every count after).
func reuseMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil || len(m) > 64 {
		return map[K]V{}
	}
	clear(m)
	return m
}

type jrec struct {
	opN      int // pending ops in ops with a change on this path
	varying  bool
	inexact  bool
	noneIno  *Inode // the inode the path holds with nothing persisted (nil: none, or unreachable)
	allIno   *Inode // ... with every pending op persisted
	dirNone  bool   // the name is a directory with nothing persisted
	dirAll   bool   // ... with everything persisted
	recorded bool
	hang     bool   // varying, named by no op: hangs below anchor
	anchor   string // the nearest op-named directory above
	hangIno  *Inode // the inode it holds when the dirs above are there
	claims   []int  // inodes claimed as one of the others

	// Of the path's latest outcome set: which outcomes it holds (the
	// timeline compares them, for Point.Moved), whether its states were
	// cut short, and how many of its states each inode holds.
	outcomes outcomeSet
	sampled  bool
	seen     []inoSeen
	seqs     []int32 // see inoSeen
	maxSeq   int     // the newest sizeSeq among seqs, -1 when none
	sized    int     // 1 + the index of its entry in jointInc.sized; 0: none
}

// inoSeen is how many of a path's explored states name inode id; under
// the ordered models, the record's seqs[lo:hi] are the sizeSeq of those
// of them that put a size change on disk, in order (see sizeorder.go).
type inoSeen struct {
	id     int
	n      int64
	lo, hi int32
}

// note keeps what the record needs of the path's new outcome set; m is
// the model under the ordered models, else nil, and buf room for
// sizeSeqs.
func (r *jrec) note(po PathOutcomes, m *Model, buf *[]int) {
	r.outcomes = setOf(po.Outcomes)
	r.sampled = !po.Exact
	r.seen = r.seen[:0]
	r.seqs = r.seqs[:0]
	r.maxSeq = -1
	for _, s := range po.States {
		if s.Inode != 0 {
			r.countSeen(s.Inode, 1)
		}
	}
	for _, s := range po.leftOut {
		r.countSeen(s.ino, 1)
	}
	for _, c := range po.summed {
		r.countSeen(c.id, c.n)
	}
	if m == nil {
		return
	}
	for i := range r.seen {
		e := &r.seen[i]
		e.lo = int32(len(r.seqs))
		// A retired inode has no pending op: none of its states changes
		// a size.
		if ino := m.inodes.get(e.id); ino != nil && !ino.Dir {
			sizeSeqs(ino, po.States, buf, func(_, seq int) {
				if seq >= 0 {
					// Past 2^31 events a Seq counts as the newest: a
					// cut then leaves out no more than it should.
					r.seqs = append(r.seqs, int32(min(seq, math.MaxInt32)))
				}
			})
			for _, s := range po.leftOut {
				if s.ino == e.id {
					r.seqs = append(r.seqs, int32(min(s.seq, math.MaxInt32)))
				}
			}
		}
		e.hi = int32(len(r.seqs))
		run := r.seqs[e.lo:e.hi]
		slices.Sort(run)
		if len(run) > 0 {
			r.maxSeq = max(r.maxSeq, int(run[len(run)-1]))
		}
	}
	if cap(r.seqs) > 2*len(r.seqs)+8 {
		r.seqs = slices.Clip(r.seqs)
	}
}

// countSeen counts n more states of inode id among the path's.
func (r *jrec) countSeen(id int, n int64) {
	i := 0
	for i < len(r.seen) && r.seen[i].id != id {
		i++
	}
	if i == len(r.seen) {
		r.seen = append(r.seen, inoSeen{id: id})
	}
	r.seen[i].n += n
}

// seenAt is what inode id, named by the path, multiplies the count and
// the explored states by in a configuration cut at cut, and whether the
// cut leaves out one of its explored states (else: what factor says).
// Those it leaves out put a size change made at or after the cut on disk;
// the count keeps at least the state with none of them.
func (r *jrec) seenAt(id, cut int) (n int64, cuts bool) {
	for _, e := range r.seen {
		if e.id != id {
			continue
		}
		run := r.seqs[e.lo:e.hi]
		k := len(run)
		if k == 0 || int(run[k-1]) < cut {
			return e.n, false
		}
		first, _ := slices.BinarySearch(run, int32(min(cut, math.MaxInt32)))
		return max(e.n-int64(k-first), 1), true
	}
	return 0, false
}

// seenOf is how many of the path's explored states name inode id.
func (r *jrec) seenOf(id int) int64 {
	for _, s := range r.seen {
		if s.id == id {
			return s.n
		}
	}
	return 0
}

// product is a saturating product over inodes, each counted once
// whatever number of paths name it.
type product struct {
	inodes map[int]*pino
	count  map[int64]int // factor -> multiplicity
	seen   map[int64]int
}

type pino struct {
	refs        int
	count, seen int64
}

func newProduct() product {
	return product{inodes: map[int]*pino{}, count: map[int64]int{}, seen: map[int64]int{}}
}

func (p *product) add(id int, count, seen int64) {
	if pi := p.inodes[id]; pi != nil {
		// Another path names it (a hard link). Its states changed with
		// this path's: its factor is the latest record's, not the one
		// the first path brought when the inode had fewer states.
		pi.refs++
		if pi.count != count || pi.seen != seen {
			dec(p.count, pi.count)
			dec(p.seen, pi.seen)
			pi.count, pi.seen = count, seen
			p.count[count]++
			p.seen[seen]++
		}
		return
	}
	p.inodes[id] = &pino{refs: 1, count: count, seen: seen}
	p.count[count]++
	p.seen[seen]++
}

// take takes inode id out of the product whatever the paths that name
// it, for restore to put back.
func (p *product) take(id int) (pino, bool) {
	pi := p.inodes[id]
	if pi == nil {
		return pino{}, false
	}
	delete(p.inodes, id)
	dec(p.count, pi.count)
	dec(p.seen, pi.seen)
	return *pi, true
}

func (p *product) restore(id int, pi pino) {
	p.inodes[id] = &pi
	p.count[pi.count]++
	p.seen[pi.seen]++
}

func (p *product) remove(id int) {
	pi := p.inodes[id]
	if pi == nil {
		return
	}
	if pi.refs--; pi.refs > 0 {
		return
	}
	delete(p.inodes, id)
	dec(p.count, pi.count)
	dec(p.seen, pi.seen)
}

func dec(m map[int64]int, k int64) {
	if m[k]--; m[k] == 0 {
		delete(m, k)
	}
}

func (p *product) value() (count, seen int64) {
	return multisetProduct(p.count), multisetProduct(p.seen)
}

func multisetProduct(m map[int64]int) int64 {
	v := int64(1)
	for f, n := range m {
		if f == 1 {
			continue // a factor of 1 many times over: a file with one state each
		}
		for ; n > 0 && v < 1<<62; n-- {
			v = satMul(v, f)
		}
	}
	return v
}

func newJointInc(m *Model) *jointInc {
	return &jointInc{m: m, recs: map[string]*jrec{}, below: map[string][]string{}, ops: map[*EntryOp]bool{},
		varying: map[string]bool{}, static: newProduct(), none: newProduct(), all: newProduct(),
		hang: map[string]*product{}, claimHang: map[int]int{}, claimOther: map[int]int{}}
}

// entry notes an entry op the model made; persisted, ops that became
// durable.
func (j *jointInc) entry(op *EntryOp) { j.newOps = append(j.newOps, op) }

type carriedOp struct {
	op    *EntryOp
	paths []string
}

// carried notes that op, made earlier, now changes paths too.
func (j *jointInc) carried(op *EntryOp, paths []string) {
	j.carriedOps = append(j.carriedOps, carriedOp{op, paths})
}

func (j *jointInc) persisted(op *EntryOp) {
	if !j.ops[op] {
		return
	}
	delete(j.ops, op)
	for _, c := range op.Changes {
		if j.parts[opPath{op, c.Path}] {
			delete(j.parts, opPath{op, c.Path})
			continue
		}
		if r := j.recs[c.Path]; r != nil {
			r.opN--
		}
	}
}

// opPath is one change of an op: the op and the path it changed.
type opPath struct {
	op *EntryOp
	p  string
}

// persistedPart notes that op's change of p became durable while op
// did not (Model.persistPart): p's name no longer waits for op.
func (j *jointInc) persistedPart(op *EntryOp, p string) {
	if !j.ops[op] || j.parts[opPath{op, p}] {
		return
	}
	if j.parts == nil {
		j.parts = map[opPath]bool{}
	}
	j.parts[opPath{op, p}] = true
	if r := j.recs[p]; r != nil {
		r.opN--
	}
}

// onRecorded reports whether op changes a path that has a record.
func (j *jointInc) onRecorded(op *EntryOp) bool {
	for _, c := range op.Changes {
		if j.recs[c.Path] != nil {
			return true
		}
	}
	return false
}

// enlistOp counts op among the pending ops (placed in j.order by the
// caller) and in each record of a path it changes.
func (j *jointInc) enlistOp(op *EntryOp) {
	j.ops[op] = true
	for _, c := range op.Changes {
		if r := j.recs[c.Path]; r != nil {
			r.opN++
		}
	}
}

// update brings the records of the changed paths (and what depends on
// them) up to date after a step; outs are the changed paths' new outcome
// sets.
func (j *jointInc) update(changed []string, outs []PathOutcomes) {
	// The model for the records' sizeSeqs: the ordered models only.
	var om *Model
	if j.m.opt.Persistence.Ordered() {
		om = j.m
	}
	for i, p := range changed {
		r := j.enlist(p)
		r.note(outs[i], om, &j.scratch.newest)
		j.setSized(p, r)
	}
	for _, co := range j.carriedOps {
		op := co.op
		switch {
		case op.Durable:
		case j.ops[op]:
			for _, p := range co.paths {
				if r := j.recs[p]; r != nil {
					r.opN++
				}
			}
		case j.onRecorded(op):
			// Not on a recorded path before: in the model's order, as
			// the prefix enumeration reads it.
			i, _ := slices.BinarySearchFunc(j.order, op, func(a, b *EntryOp) int { return int(a.order) - int(b.order) })
			j.order = slices.Insert(j.order, i, op)
			j.enlistOp(op)
		}
	}
	clear(j.carriedOps)
	j.carriedOps = j.carriedOps[:0]
	for _, op := range j.newOps {
		if op.Durable || j.ops[op] || !j.onRecorded(op) {
			continue
		}
		j.order = append(j.order, op)
		j.enlistOp(op)
	}
	j.newOps = j.newOps[:0]
	queue := append([]string(nil), changed...)
	queued := map[string]bool{}
	for _, p := range changed {
		queued[p] = true
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		delete(queued, p)
		r := j.recs[p]
		if r == nil {
			// A directory on the way to recorded paths, with none of its
			// own (link): it has nothing to recompute, but the names
			// below it see the change above it.
			for _, q := range j.below[p] {
				if !queued[q] {
					queued[q] = true
					queue = append(queue, q)
				}
			}
			continue
		}
		wasVarying, wasNone, wasAll, wasOps := r.varying, r.dirNone, r.dirAll, r.opN > 0
		j.refresh(p, r, func(q string) {
			if !queued[q] {
				queued[q] = true
				queue = append(queue, q)
			}
		})
		// What the names below see of this one changed: they change.
		if r.varying != wasVarying || r.dirNone != wasNone || r.dirAll != wasAll || (r.opN > 0) != wasOps {
			for _, q := range j.below[p] {
				if !queued[q] {
					queued[q] = true
					queue = append(queue, q)
				}
			}
		}
	}
}

// link lists a new record p in below: each directory above it lists its
// child on the way to p. A child is listed once: once one already was,
// so were the directories above it.
// enlist returns path p's record, made and linked below the directories
// above it when p has none yet.
func (j *jointInc) enlist(p string) *jrec {
	r := j.recs[p]
	if r == nil {
		// Already on the way to a recorded path: listed above.
		linked := len(j.below[p]) > 0
		r = &jrec{maxSeq: -1}
		j.recs[p] = r
		if !linked {
			j.link(p)
		}
	}
	return r
}

func (j *jointInc) link(p string) {
	for q, c := parentDir(p), p; q != c && q != "." && q != "/"; q, c = parentDir(q), q {
		// q is listed above it when it is recorded, or on the way to a
		// path that is.
		listed := j.recs[q] != nil || len(j.below[q]) > 0
		j.below[q] = append(j.below[q], c)
		if listed {
			return
		}
	}
}

// allName is the inode path p names once every pending op persisted.
func (j *jointInc) allName(p string, r *jrec) *Inode {
	n := j.m.names[p]
	if n == nil {
		return nil
	}
	if r.opN > 0 {
		for i := len(n.Ops) - 1; i >= 0; i-- {
			op := n.Ops[i]
			if !j.ops[op] {
				continue
			}
			for k := len(op.Changes) - 1; k >= 0; k-- {
				if op.Changes[k].Path == p {
					return op.Changes[k].New
				}
			}
		}
	}
	return n.Durable
}

func (j *jointInc) durable(p string) *Inode {
	if n := j.m.names[p]; n != nil {
		return n.Durable
	}
	return nil
}

// refresh recomputes one record and its share of the products; an
// ancestor whose record is out of date is handed to stale.
func (j *jointInc) refresh(p string, r *jrec, stale func(string)) {
	if r.recorded {
		j.unrecord(r)
	}
	r.varying = r.opN > 0
	reachNone, reachAll, reachStatic := true, true, true
	r.anchor = ""
	for q, c := parentDir(p), p; q != c && q != "." && q != "/"; q, c = parentDir(q), q {
		a := j.recs[q]
		if a == nil {
			continue
		}
		if a.opN > 0 {
			r.varying = true
			if r.anchor == "" {
				r.anchor = q
			}
		}
		dn := isDir(j.durable(q))
		da := isDir(j.allName(q, a))
		if dn != a.dirNone || da != a.dirAll {
			stale(q)
		}
		reachNone = reachNone && dn
		reachAll = reachAll && da
		if a.opN == 0 {
			reachStatic = reachStatic && dn
		}
	}
	dur := j.durable(p)
	if r.varying {
		j.varying[p] = true
	} else {
		delete(j.varying, p)
	}
	r.hang = r.varying && r.opN == 0
	r.hangIno, r.claims = nil, r.claims[:0]
	if r.hang {
		if reachStatic {
			r.hangIno = dur
		}
	} else {
		if dur != nil {
			r.claims = append(r.claims, dur.ID)
		}
		if n := j.m.names[p]; n != nil && r.opN > 0 {
			for _, op := range n.Ops {
				for _, c := range op.Changes {
					if c.Path == p && c.New != nil && j.ops[op] {
						r.claims = append(r.claims, c.New.ID)
					}
				}
			}
		}
		slices.Sort(r.claims)
		r.claims = slices.Compact(r.claims)
	}
	r.dirNone = isDir(dur)
	all := j.allName(p, r)
	r.dirAll = isDir(all)
	r.noneIno, r.allIno = nil, nil
	if reachNone {
		r.noneIno = dur
	}
	if reachAll {
		r.allIno = all
	}
	r.inexact = r.sampled
	j.record(r)
}

func isDir(ino *Inode) bool { return ino != nil && ino.Dir }

// factor is what inode ino, named by the path of record r, multiplies the
// count and the explored states by.
func (j *jointInc) factor(ino *Inode, r *jrec) (count, seen int64) {
	n := max(r.seenOf(ino.ID), 1)
	return max(j.m.contentCount(ino), n), n
}

func (j *jointInc) record(r *jrec) {
	r.recorded = true
	if r.inexact {
		j.inexact++
	}
	if r.noneIno != r.allIno {
		j.differ++
	}
	if ino := r.noneIno; ino != nil {
		c, s := j.factor(ino, r)
		j.none.add(ino.ID, c, s)
		if !r.varying {
			j.static.add(ino.ID, c, s)
		}
	}
	if ino := r.allIno; ino != nil {
		c, s := j.factor(ino, r)
		j.all.add(ino.ID, c, s)
	}
	if ino := r.hangIno; ino != nil {
		h := j.hang[r.anchor]
		if h == nil {
			p := newProduct()
			h = &p
			j.hang[r.anchor] = h
		}
		c, s := j.factor(ino, r)
		h.add(ino.ID, c, s)
		j.claim(ino.ID, 1, 0)
	}
	for _, id := range r.claims {
		j.claim(id, 0, 1)
	}
}

// claim counts claims of inode id and keeps conflict, the number of
// inodes a hanging path shares.
func (j *jointInc) claim(id, hang, other int) {
	bad := func() bool { h := j.claimHang[id]; return h >= 1 && h+j.claimOther[id] >= 2 }
	if bad() {
		j.conflict--
	}
	j.claimHang[id] += hang
	j.claimOther[id] += other
	if j.claimHang[id] == 0 && j.claimOther[id] == 0 {
		delete(j.claimHang, id)
		delete(j.claimOther, id)
	}
	if bad() {
		j.conflict++
	}
}

func (j *jointInc) unrecord(r *jrec) {
	r.recorded = false
	if r.inexact {
		j.inexact--
	}
	if r.noneIno != r.allIno {
		j.differ--
	}
	if ino := r.noneIno; ino != nil {
		j.none.remove(ino.ID)
		if !r.varying {
			j.static.remove(ino.ID)
		}
	}
	if ino := r.allIno; ino != nil {
		j.all.remove(ino.ID)
	}
	if ino := r.hangIno; ino != nil {
		h := j.hang[r.anchor]
		h.remove(ino.ID)
		if len(h.inodes) == 0 {
			delete(j.hang, r.anchor)
		}
		j.claim(ino.ID, -1, 0)
	}
	for _, id := range r.claims {
		j.claim(id, 0, -1)
	}
}

// count is jointCount over every recorded path's outcome set, from the
// records.
func (j *jointInc) count() (total, explored int64, exact bool) {
	if len(j.recs) == 0 {
		return 1, 1, true
	}
	// The varying set, kept for the enumerations.
	exact = j.inexact == 0
	ordered := j.m.opt.Persistence.Ordered()
	k := len(j.ops)
	if len(j.order) > 2*k+64 {
		j.prune()
	}
	// Under the ordered models, the records whose states a configuration
	// can leave out: none when every op persisted, a few (or past the
	// bound, the lower bound of that configuration alone).
	var cands []sizedRec
	cut0 := noCut
	if ordered && k > 0 {
		for _, op := range j.order {
			if j.ops[op] {
				cut0 = op.seq()
				break
			}
		}
		var ok bool
		if cands, ok = j.cutPaths(cut0); !ok {
			total, explored = j.all.value()
			return total, min(explored, total), false
		}
	}
	if !ordered && k > jointSubsetOps || ordered && k > jointPrefixOps {
		// "None persisted" and "all persisted"; when they name the same
		// inodes, one tree, counted at the wider cut.
		total, explored = j.all.value()
		if j.differ > 0 {
			n, e := j.cutValue(&j.none, cands, func(r *jrec) *Inode { return r.noneIno }, cut0)
			total, explored = satAdd(total, n), satAdd(explored, e)
		}
		return total, min(explored, total), false
	}
	// The model's pending list can be long with ops out of scope: the
	// timeline keeps its own.
	j.prune()
	ops := slices.Clip(j.order)
	// Hanging paths enter through their directory, unless a hard link
	// joins one to another path: then every varying path is enumerated.
	grouped := j.conflict == 0
	varying := j.scratch.varying[:0]
	defer func() { j.scratch.varying = varying[:0] }()
	for p := range j.varying {
		if !(grouped && j.recs[p].hang) {
			varying = append(varying, p)
		}
	}
	if ordered {
		cuts := make([]int, len(ops)+1)
		for i, op := range ops {
			cuts[i] = op.seq()
		}
		cuts[len(ops)] = noCut
		cc := j.takeCut(cands, grouped)
		count0, seen0 := j.static.value()
		t, e := j.enumerate(varying, prefixes(ops), grouped, cuts, cc)
		putBack(cc)
		return satMul(count0, t), min(satMul(seen0, e), satMul(count0, t)), exact
	}
	// Posix: every subset, group by group.
	count0, seen0 := j.static.value()
	total, explored = count0, seen0
	for _, g := range j.groups(varying, ops) {
		t, e := j.enumerate(g.paths, j.subsets(g.ops), grouped, nil, nil)
		total, explored = satMul(total, t), satMul(explored, e)
	}
	return total, min(explored, total), exact
}

// cutRec is a record whose states a cut can leave out, its inode taken
// out of the product (static, or a hanging directory's) that holds it, to
// be multiplied back configuration by configuration. Paths that name one
// inode (hard links) share its states: it is taken once.
type cutRec struct {
	r      *jrec
	ino    *Inode
	anchor string   // the hanging directory; "" for a static path
	p      *product // where it was taken from
	pi     pino     // what it was there
}

// takeCut takes the inodes of the static and hanging records among
// cands out of their products.
func (j *jointInc) takeCut(cands []sizedRec, grouped bool) []cutRec {
	var out []cutRec
	for _, c := range cands {
		r := c.r
		x := cutRec{r: r}
		switch {
		case !r.varying && r.noneIno != nil:
			x.ino, x.p = r.noneIno, &j.static
		case grouped && r.hang && r.hangIno != nil:
			x.ino, x.anchor, x.p = r.hangIno, r.anchor, j.hang[r.anchor]
		default:
			continue
		}
		var ok bool
		if x.pi, ok = x.p.take(x.ino.ID); ok {
			out = append(out, x)
		}
	}
	return out
}

func putBack(cc []cutRec) {
	for _, c := range cc {
		c.p.restore(c.ino.ID, c.pi)
	}
}

// cutValue is product p's value with the inodes inoOf gives the records
// of cands counted as a configuration cut at cut admits them.
func (j *jointInc) cutValue(p *product, cands []sizedRec, inoOf func(*jrec) *Inode, cut int) (count, seen int64) {
	var cc []cutRec
	for _, c := range cands {
		ino := inoOf(c.r)
		if ino == nil {
			continue
		}
		if _, cuts := c.r.seenAt(ino.ID, cut); !cuts {
			continue
		}
		if pi, ok := p.take(ino.ID); ok {
			cc = append(cc, cutRec{r: c.r, ino: ino, p: p, pi: pi})
		}
	}
	count, seen = p.value()
	putBack(cc)
	for _, c := range cc {
		n, _ := c.r.seenAt(c.ino.ID, cut)
		count, seen = satMul(count, n), satMul(seen, n)
	}
	return count, seen
}

// factorAt is factor in a configuration cut at cut.
func (j *jointInc) factorAt(ino *Inode, r *jrec, cut int) (count, seen int64) {
	if cut != noCut {
		if n, cuts := r.seenAt(ino.ID, cut); cuts {
			return n, n
		}
	}
	return j.factor(ino, r)
}

func prefixes(ops []*EntryOp) [][]*EntryOp {
	out := make([][]*EntryOp, 0, len(ops)+1)
	for i := 0; i <= len(ops); i++ {
		out = append(out, ops[:i])
	}
	return out
}

// subsetsInto appends every subset of ops to configs, in the order of
// the bit masks, each a slice of back (which it grows and returns): one
// backing array for all of them, len(ops) * 2^(len-1) ops in all.
func subsetsInto(ops []*EntryOp, configs [][]*EntryOp, back []*EntryOp) ([][]*EntryOp, []*EntryOp) {
	n := 1 << len(ops)
	if need := len(back) + len(ops)*n/2; cap(back) < need {
		back = make([]*EntryOp, 0, need)
	}
	for mask := 0; mask < n; mask++ {
		start := len(back)
		for i, op := range ops {
			if mask&(1<<i) != 0 {
				back = append(back, op)
			}
		}
		configs = append(configs, back[start:len(back):len(back)])
	}
	return configs, back
}

// subsets is subsetsInto in j's scratch room: the configurations stay
// valid until the next call.
func (j *jointInc) subsets(ops []*EntryOp) [][]*EntryOp {
	sc := &j.scratch
	sc.configs, sc.cfgOps = subsetsInto(ops, sc.configs[:0], sc.cfgOps[:0])
	return sc.configs
}

type jgroup struct {
	paths []string
	ops   []*EntryOp
}

// groups splits the varying paths into groups whose configurations are
// independent: an op joins the paths it changes, a path joins the
// varying directories above it, and an inode joins the paths that can
// name it.
func (j *jointInc) groups(varying []string, ops []*EntryOp) []jgroup {
	sc := &j.scratch
	idx := reuseMap(sc.idx)
	sc.idx = idx
	for i, p := range varying {
		idx[p] = i
	}
	parent := sc.parent[:0]
	for i := range varying {
		parent = append(parent, i)
	}
	sc.parent = parent
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) { parent[find(a)] = find(b) }
	byIno := reuseMap(sc.byIno)
	sc.byIno = byIno
	joinIno := func(ino *Inode, i int) {
		if ino == nil {
			return
		}
		if k, ok := byIno[ino.ID]; ok {
			union(i, k)
		} else {
			byIno[ino.ID] = i
		}
	}
	for i, p := range varying {
		for q, c := parentDir(p), p; q != c && q != "." && q != "/"; q, c = parentDir(q), q {
			if k, ok := idx[q]; ok {
				union(i, k)
			}
		}
		joinIno(j.durable(p), i)
	}
	for _, op := range ops {
		first := -1
		for _, c := range op.Changes {
			i, ok := idx[c.Path]
			if !ok {
				continue
			}
			joinIno(c.New, i)
			if first < 0 {
				first = i
			} else {
				union(i, first)
			}
		}
	}
	at := reuseMap(sc.at)
	sc.at = at
	// The groups' slices are the last count's, emptied.
	out := sc.groups[:0]
	for i, p := range varying {
		r := find(i)
		g, ok := at[r]
		if !ok {
			g = len(out)
			at[r] = g
			if g < cap(out) {
				out = out[:g+1]
				out[g].paths, out[g].ops = out[g].paths[:0], out[g].ops[:0]
			} else {
				out = append(out, jgroup{})
			}
		}
		out[g].paths = append(out[g].paths, p)
	}
	for _, op := range ops {
		for _, c := range op.Changes {
			if i, ok := idx[c.Path]; ok {
				g := at[find(i)]
				out[g].ops = append(out[g].ops, op)
				break
			}
		}
	}
	sc.groups = out
	return out
}

// enumerate sums, over the distinct name maps the configurations give the
// paths, the content states of the inodes the paths then name, and the
// explored ones; inodes the paths that do not vary hold are theirs. Under
// the ordered models, cuts are the configurations' cuts and cc the
// records taken out of their products (takeCut), and a name map counts
// as its last configuration: the widest cut, which leaves out fewest.
func (j *jointInc) enumerate(paths []string, configs [][]*EntryOp, grouped bool, cuts []int, cc []cutRec) (total, explored int64) {
	// Everything but the names a configuration gives is the same in
	// every configuration of the call: what is read of the records, the
	// directories above each path, the changes each op makes and the
	// factors of the inodes are looked up once, and a configuration is a
	// pass over slices indexed by path. Looking them up again in maps,
	// configuration by configuration, was most of a states run on a
	// program that keeps a few renames in an unsynced directory pending
	// for its whole run (up to 2^jointSubsetOps configurations at every
	// crash point).
	sc := &j.scratch
	pl := j.plan(paths, grouped, cc)
	done, seenIno := reuseMap(sc.done), reuseMap(sc.seenIno)
	sc.done, sc.seenIno = done, seenIno
	names := pl.names
	for ci, cfg := range configs {
		cut := noCut
		if cuts != nil {
			cut = cuts[ci]
		}
		for i := range pl.paths {
			names[i] = pl.paths[i].dur
		}
		for _, op := range cfg {
			for _, ch := range pl.changesOf(j, op) {
				names[ch.i] = ch.ino
			}
		}
		key := fnvKey(fnvOffset)
		count, seen := int64(1), int64(1)
		stamp := ci + 1
		for i := range pl.paths {
			e := &pl.paths[i]
			if e.skip {
				continue
			}
			ino := names[i]
			if ino == nil || !pl.reachable(e) {
				continue
			}
			// The same paths in the same order in every configuration of
			// this call: equal name maps hash alike.
			key = key.bytes(0, byte(i), byte(i>>8), byte(i>>16), byte(i>>24),
				byte(ino.ID), byte(ino.ID>>8), byte(ino.ID>>16), byte(ino.ID>>24))
			if seenIno[ino.ID] == stamp {
				continue
			}
			f := e.factorOf(j, ino, cc)
			if f.static {
				continue
			}
			seenIno[ino.ID] = stamp
			c, s := f.count, f.seen
			if cut != noCut {
				c, s = j.factorAt(ino, e.rec, cut)
			}
			count = satMul(count, c)
			seen = satMul(seen, s)
		}
		// The paths hanging below an op-named directory are there when it
		// and the op-named directories above it are.
		for hi := range pl.hangs {
			h := &pl.hangs[hi]
			if !pl.hangsIn(h) {
				continue
			}
			key = key.bytes(1, byte(h.i), byte(h.i>>8), byte(h.i>>16), byte(h.i>>24))
			count, seen = satMul(count, h.count), satMul(seen, h.seen)
			for _, x := range h.cc {
				c, s := j.factorAt(x.ino, x.r, cut)
				count, seen = satMul(count, c), satMul(seen, s)
			}
		}
		for _, x := range cc {
			if x.anchor == "" {
				c, s := j.factorAt(x.ino, x.r, cut)
				count, seen = satMul(count, c), satMul(seen, s)
			}
		}
		done[uint64(key)] = [2]int64{count, seen}
	}
	for _, v := range done {
		total = satAdd(total, v[0])
		explored = satAdd(explored, v[1])
	}
	return total, explored
}

// enumPlan is what enumerate reads of the records for one call, by the
// index of a path in the call's paths; names is the name map of the
// configuration at hand.
type enumPlan struct {
	paths []enumPath
	names []*Inode
	idx   map[string]int
	// ops: the changes each op makes on the call's paths, by op (see
	// changesOf); chg holds them all.
	ops   map[*EntryOp][2]int
	chg   []enumChange
	hangs []enumHang
	up    []int // the enumPaths' up and hangUp, back to back
}

type enumPath struct {
	rec  *jrec
	dur  *Inode
	skip bool // a hanging path, entering through its directory
	// up: the indices of the recorded directories above it among the
	// call's paths; upOK: those outside them are directories as
	// durable.
	up   []int
	upOK bool
	// The factors of the inodes it named in the call, each the first
	// time: few per path.
	fs []enumFactor
}

type enumFactor struct {
	id          int
	static      bool // the inode is a static path's (or taken out as one)
	count, seen int64
}

type enumChange struct {
	i   int
	ino *Inode
}

// enumHang is an op-named directory among the call's paths with paths
// hanging below it: their product, the records cut out of it, and the
// op-named directories above it (up; bad: one outside the call's paths,
// which no configuration of the call makes a directory).
type enumHang struct {
	i           int
	count, seen int64
	cc          []cutRec
	up          []int
	bad         bool
}

// plan fills the scratch plan for paths.
func (j *jointInc) plan(paths []string, grouped bool, cc []cutRec) *enumPlan {
	pl := &j.scratch.plan
	pl.idx = reuseMap(pl.idx)
	for i, p := range paths {
		pl.idx[p] = i
	}
	if cap(pl.paths) < len(paths) {
		pl.paths = make([]enumPath, len(paths))
		pl.names = make([]*Inode, len(paths))
	}
	pl.paths, pl.names = pl.paths[:len(paths)], pl.names[:len(paths)]
	pl.ops = reuseMap(pl.ops)
	pl.chg, pl.hangs, pl.up = pl.chg[:0], pl.hangs[:0], pl.up[:0]
	for i, p := range paths {
		r := j.recs[p]
		e := &pl.paths[i]
		*e = enumPath{rec: r, dur: j.durable(p), skip: grouped && r.hang, upOK: true, fs: e.fs[:0]}
		start := len(pl.up)
		for q, c := parentDir(p), p; q != c && q != "." && q != "/"; q, c = parentDir(q), q {
			if j.recs[q] == nil {
				continue
			}
			if k, ok := pl.idx[q]; ok {
				pl.up = append(pl.up, k)
			} else if ino := j.durable(q); ino == nil || !ino.mayBeDir() {
				e.upOK = false
			}
		}
		e.up = pl.up[start:len(pl.up):len(pl.up)]
	}
	if grouped {
		for i, a := range paths {
			h := j.hang[a]
			if h == nil {
				continue
			}
			eh := enumHang{i: i}
			eh.count, eh.seen = h.value()
			for _, x := range cc {
				if x.anchor == a {
					eh.cc = append(eh.cc, x)
				}
			}
			start := len(pl.up)
			for q, c := parentDir(a), a; q != c && q != "." && q != "/"; q, c = parentDir(q), q {
				if r := j.recs[q]; r != nil && r.opN > 0 {
					if k, ok := pl.idx[q]; ok {
						pl.up = append(pl.up, k)
					} else {
						eh.bad = true
					}
				}
			}
			eh.up = pl.up[start:len(pl.up):len(pl.up)]
			pl.hangs = append(pl.hangs, eh)
		}
	}
	return pl
}

// changesOf lists the changes op makes on the plan's paths that the
// configurations apply: on a path with a pending op of its own, where op
// is still one of the name's.
func (pl *enumPlan) changesOf(j *jointInc, op *EntryOp) []enumChange {
	if se, ok := pl.ops[op]; ok {
		return pl.chg[se[0]:se[1]]
	}
	start := len(pl.chg)
	for _, c := range op.Changes {
		i, ok := pl.idx[c.Path]
		if !ok {
			continue
		}
		if r := j.recs[c.Path]; r != nil && r.opN > 0 && opOn(j.m.names[c.Path], op) {
			pl.chg = append(pl.chg, enumChange{i, c.New})
		}
	}
	pl.ops[op] = [2]int{start, len(pl.chg)}
	return pl.chg[start:len(pl.chg)]
}

// reachable is reachableWith for path e in the configuration at hand.
func (pl *enumPlan) reachable(e *enumPath) bool {
	if !e.upOK {
		return false
	}
	for _, k := range e.up {
		if ino := pl.names[k]; ino == nil || !ino.mayBeDir() {
			return false
		}
	}
	return true
}

// hangsIn is jointInc.hangsIn for h in the configuration at hand.
func (pl *enumPlan) hangsIn(h *enumHang) bool {
	if !isDir(pl.names[h.i]) || h.bad {
		return false
	}
	for _, k := range h.up {
		if !isDir(pl.names[k]) {
			return false
		}
	}
	return true
}

// factorOf is the factor inode ino brings at path e with no cut, and
// whether it is a static path's inode instead, which the configurations
// leave to the static product.
func (e *enumPath) factorOf(j *jointInc, ino *Inode, cc []cutRec) enumFactor {
	for _, f := range e.fs {
		if f.id == ino.ID {
			return f
		}
	}
	f := enumFactor{id: ino.ID, static: j.static.inodes[ino.ID] != nil || staticCut(cc, ino.ID)}
	if !f.static {
		f.count, f.seen = j.factor(ino, e.rec)
	}
	e.fs = append(e.fs, f)
	return f
}

// staticCut reports whether inode id is a static one takeCut took out.
func staticCut(cc []cutRec, id int) bool {
	for _, x := range cc {
		if x.anchor == "" && x.ino.ID == id {
			return true
		}
	}
	return false
}

// fnvKey is a 64-bit FNV-1a hash as hash/fnv's New64a computes it,
// without the allocation and the interface calls: enumerate keys every
// configuration's name map with one.
type fnvKey uint64

const (
	fnvOffset fnvKey = 14695981039346656037
	fnvPrime  fnvKey = 1099511628211
)

func (h fnvKey) str(s string) fnvKey {
	for i := 0; i < len(s); i++ {
		h = (h ^ fnvKey(s[i])) * fnvPrime
	}
	return h
}

func (h fnvKey) bytes(b ...byte) fnvKey {
	for _, c := range b {
		h = (h ^ fnvKey(c)) * fnvPrime
	}
	return h
}

// hangsIn reports whether op-named directory a, and every op-named
// directory above it, is a directory in the configuration names gives.
func (j *jointInc) hangsIn(a string, names map[string]*Inode) bool {
	if !isDir(names[a]) {
		return false
	}
	for q, c := parentDir(a), a; q != c && q != "." && q != "/"; q, c = parentDir(q), q {
		if r := j.recs[q]; r != nil && r.opN > 0 && !isDir(names[q]) {
			return false
		}
	}
	return true
}

// prune drops the ops since durable from order.
func (j *jointInc) prune() {
	keep := j.order[:0]
	for _, op := range j.order {
		if j.ops[op] {
			keep = append(keep, op)
		}
	}
	clear(j.order[len(keep):])
	j.order = keep
}
