package model

import (
	"math"
)

// Joint crash states. A crash state is one state of the whole tree, not a
// path at a time: the entry operations that persisted decide at once which
// inode every path names (a rename moves a name from one path to another
// in the same state, a directory that is missing takes every name below it
// with it), and each inode named then holds one of its content states.
// Counting per path and multiplying would count combinations no crash can
// leave: a renamed file at both of its names, a file present in a missing
// directory.

// Bounds on the entry-operation configurations enumerated to count joint
// states exactly: every subset of the pending operations under posix,
// every prefix under the ordered models. Past them the count is a lower
// bound, from the configurations "none persisted" and "all persisted".
const (
	jointSubsetOps = 10
	jointPrefixOps = 256
)

// jointCount counts the crash states over the given paths jointly:
// total (saturating), explored (how many of them the paths' explored
// states make up) and whether total is exact.
func (m *Model) jointCount(paths map[string]PathOutcomes) (total, explored int64, exact bool) {
	if len(paths) == 0 {
		return 1, 1, true
	}
	exact = true
	for _, po := range paths {
		exact = exact && po.Exact
	}
	// How many content states of inode id the explored states at p hold.
	seenStates := func(p string, id int) int64 {
		var n int64
		for _, s := range paths[p].States {
			if s.Inode == id {
				n++
			}
		}
		for _, c := range paths[p].summed {
			if c.id == id {
				n += c.n
			}
		}
		return n
	}
	// Marks on the names instead of maps: this runs at every crash point.
	if m.jointStamp == math.MaxInt32 {
		// The stamps start again: no name may keep one from before.
		for _, n := range m.names {
			n.touched = 0
		}
		m.jointStamp = 0
	}
	m.jointStamp++
	stamp := m.jointStamp
	var ops []*EntryOp
	ntouched := 0
	for _, op := range m.pending() {
		hit := false
		for _, c := range op.Changes {
			if _, ok := paths[c.Path]; ok {
				if n := m.names[c.Path]; n != nil && n.touched != stamp {
					n.touched = stamp
					ntouched++
				}
				hit = true
			}
		}
		if hit {
			ops = append(ops, op)
		}
	}
	touched := func(p string) bool {
		n := m.names[p]
		return n != nil && n.touched == stamp
	}
	// The paths no pending entry op can change, nor a directory above
	// them: the same name in every configuration, counted once. The
	// others vary with the configuration.
	var varying []string
	durable := func(p string) *Inode {
		if n := m.names[p]; n != nil {
			return n.Durable
		}
		return nil
	}
	ordered := m.opt.Persistence.Ordered()
	// Under the ordered models a configuration's cut leaves out the
	// states that put on disk a size change made at or after it
	// (sizeorder.go): the factor of inode ino at p in a configuration cut
	// at cut. More than jointCutPaths paths whose states the earliest cut
	// leaves out: the count is that of "all persisted" alone, a lower
	// bound.
	cut0 := noCut
	if ordered && len(ops) > 0 {
		cut0 = ops[0].seq()
	}
	sized := 0
	if cut0 != noCut {
		sized = m.sizedPaths(paths, cut0)
	}
	factorAt := func(p string, ino *Inode, cut int) (int64, int64) {
		n := max(seenStates(p, ino.ID), 1)
		if cut != noCut {
			var all, out int64
			for _, s := range paths[p].States {
				if s.Inode == ino.ID {
					all++
					if sizeSeq(ino, s) >= cut {
						out++
					}
				}
			}
			for _, s := range paths[p].leftOut {
				if s.ino == ino.ID {
					all++
					if s.seq >= cut {
						out++
					}
				}
			}
			if out > 0 {
				v := max(all-out, 1)
				return v, v
			}
		}
		return max(m.contentCount(ino), n), n
	}
	var static []string // one path of each inode no configuration changes
	inodes0 := map[int]bool{}
	for p := range paths {
		if touched(p) || ntouched > 0 && m.belowAny(p, touched) {
			varying = append(varying, p)
			continue
		}
		ino := durable(p)
		if ino == nil || inodes0[ino.ID] || !reachableWith(p, paths, nil, durable) {
			continue
		}
		inodes0[ino.ID] = true
		static = append(static, p)
	}
	var configs [][]*EntryOp
	switch {
	case !ordered && len(ops) <= jointSubsetOps:
		configs, _ = subsetsInto(ops, nil, nil)
	case ordered && len(ops) <= jointPrefixOps:
		configs = prefixes(ops)
	default:
		configs = [][]*EntryOp{nil, ops}
		exact = false
	}
	if sized > jointCutPaths {
		configs = [][]*EntryOp{ops}
		exact = false
	}
	done := map[uint64][2]int64{}
	names := make(map[string]*Inode, len(varying))
	for _, cfg := range configs {
		cut := noCut
		if ordered && len(cfg) < len(ops) {
			cut = ops[len(cfg)].seq()
		}
		for _, p := range varying {
			names[p] = durable(p)
		}
		for _, op := range cfg {
			for _, c := range op.Changes {
				if touched(c.Path) && opOn(m.names[c.Path], op) {
					names[c.Path] = c.New
				}
			}
		}
		key := fnvKey(fnvOffset)
		count, seen := int64(1), int64(1)
		for _, p := range static {
			c, s := factorAt(p, durable(p), cut)
			count, seen = satMul(count, c), satMul(seen, s)
		}
		inodes := map[int]bool{}
		for _, p := range varying {
			ino := names[p]
			if ino == nil || !reachableWith(p, paths, names, durable) {
				continue
			}
			// The same paths in the same order in every configuration of
			// this call: equal name maps hash alike.
			key = key.str(p).bytes(0, byte(ino.ID), byte(ino.ID>>8), byte(ino.ID>>16), byte(ino.ID>>24))
			if inodes[ino.ID] || inodes0[ino.ID] {
				continue // a hard link: one content for both names
			}
			inodes[ino.ID] = true
			// The torn and size-only states explored come on top of the
			// subsets counted: never count fewer than were seen.
			c, s := factorAt(p, ino, cut)
			count, seen = satMul(count, c), satMul(seen, s)
		}
		// A tree of names counts as its last configuration: the widest
		// cut, which leaves out fewest.
		done[uint64(key)] = [2]int64{count, seen}
	}
	for _, v := range done {
		total = satAdd(total, v[0])
		explored = satAdd(explored, v[1])
	}
	return total, min(explored, total), exact
}

// belowAny reports whether a directory above p is in set.
func (m *Model) belowAny(p string, set func(string) bool) bool {
	for q := parentDir(p); q != p && q != "." && q != "/"; q = parentDir(q) {
		if set(q) {
			return true
		}
		p = q
	}
	return false
}

// reachableWith reports whether every directory above p among paths (the
// keys: an outcome set or a timeline's record per path) is there and a
// directory in a state: names gives the varying paths' inodes, durable the
// others'.
func reachableWith[V any](p string, paths map[string]V, names map[string]*Inode, durable func(string) *Inode) bool {
	for q := parentDir(p); q != p && q != "." && q != "/"; q = parentDir(q) {
		if _, ok := paths[q]; ok {
			ino, varying := names[q]
			if !varying {
				ino = durable(q)
			}
			if ino == nil || !ino.mayBeDir() {
				return false
			}
		}
		p = q
	}
	return true
}

// opOn reports whether op is still one of the name's pending operations
// (not superseded by a later one that was durable first).
func opOn(n *Name, op *EntryOp) bool {
	if n == nil {
		return false
	}
	for _, o := range n.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// contentCount is how many content states inode ino can have after a
// crash (a directory: one; its entries are the names').
func (m *Model) contentCount(ino *Inode) int64 {
	if ino.Dir {
		return 1
	}
	cl := classifier{ino: ino, ops: ino.maybeOps(), current: true, files: m.opt.NameFiles}
	return cl.count(m.opt.Persistence.Ordered(), 0)
}
