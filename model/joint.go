package model

import (
	"sort"
	"strconv"
	"strings"
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
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	exact = true
	// How many content states of each inode the paths explored.
	seenStates := map[string]map[int]int64{}
	for _, p := range sorted {
		po := paths[p]
		exact = exact && po.Exact
		by := map[int]int64{}
		for _, s := range po.States {
			if s.Inode != 0 {
				by[s.Inode]++
			}
		}
		seenStates[p] = by
	}
	var ops []*EntryOp
	for _, op := range m.pendingOps {
		for _, c := range op.Changes {
			if _, ok := paths[c.Path]; ok {
				ops = append(ops, op)
				break
			}
		}
	}
	ordered := m.opt.Persistence.ordered()
	var configs [][]*EntryOp
	switch {
	case !ordered && len(ops) <= jointSubsetOps:
		for mask := 0; mask < 1<<len(ops); mask++ {
			var c []*EntryOp
			for i, op := range ops {
				if mask&(1<<i) != 0 {
					c = append(c, op)
				}
			}
			configs = append(configs, c)
		}
	case ordered && len(ops) <= jointPrefixOps:
		for j := 0; j <= len(ops); j++ {
			configs = append(configs, ops[:j])
		}
	default:
		configs = [][]*EntryOp{nil, ops}
		exact = false
	}
	done := map[string]bool{}
	names := map[string]*Inode{}
	var key strings.Builder
	for _, cfg := range configs {
		for _, p := range sorted {
			names[p] = nil
			if n := m.names[p]; n != nil {
				names[p] = n.Durable
			}
		}
		for _, op := range cfg {
			for _, c := range op.Changes {
				if _, ok := paths[c.Path]; ok && opOn(m.names[c.Path], op) {
					names[c.Path] = c.New
				}
			}
		}
		key.Reset()
		count, seen := int64(1), int64(1)
		inodes := map[int]bool{}
		for _, p := range sorted {
			ino := names[p]
			if ino == nil || !m.reachable(p, names) {
				continue
			}
			key.WriteString(p)
			key.WriteByte('=')
			key.WriteString(strconv.Itoa(ino.ID))
			key.WriteByte(0)
			if inodes[ino.ID] {
				continue // a hard link: one content for both names
			}
			inodes[ino.ID] = true
			// The torn and size-only states explored come on top of the
			// subsets counted: never count fewer than were seen.
			n := max(seenStates[p][ino.ID], 1)
			count = satMul(count, max(m.contentCount(ino), n))
			seen = satMul(seen, n)
		}
		if done[key.String()] {
			continue
		}
		done[key.String()] = true
		total = satAdd(total, count)
		explored = satAdd(explored, seen)
	}
	return total, min(explored, total), exact
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

// reachable reports whether every directory above p that the state
// assigns is there and a directory.
func (m *Model) reachable(p string, names map[string]*Inode) bool {
	for q := parentDir(p); q != p && q != "." && q != "/"; q = parentDir(q) {
		if ino, ok := names[q]; ok && (ino == nil || !ino.Dir) {
			return false
		}
		p = q
	}
	return true
}

// contentCount is how many content states inode ino can have after a
// crash (a directory: one; its entries are the names').
func (m *Model) contentCount(ino *Inode) int64 {
	if ino.Dir {
		return 1
	}
	cl := classifier{ino: ino, ops: ino.maybeOps(), current: true}
	return cl.count(m.opt.Persistence.ordered(), 0)
}
