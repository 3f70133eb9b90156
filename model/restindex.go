package model

import (
	"hash/maphash"
	"slices"
	"strings"
)

// restIndex finds retired names: the path of a retired inode (the inode
// ID) and the paths known to name nothing.
//
// A map from path to ID cost about 40 bytes a retired file (the string
// header, the ID, the map's slack), the largest share of what a settled
// file kept. A retired inode's record holds its one name already
// (restInode.lastPath), so the index keeps only the ID, in an open
// addressing table of int32 (linear probing), and compares a path with
// the name in the record the slot points at: 5 to 11 bytes a file. That
// needs every ID in the table to be a retired inode whose one name is its
// key, so an inode that comes back brings its name back with it
// (reviveID). Names known absent have no record, and stay in a map: there
// are few of them.
type restIndex struct {
	slots  []int32 // ID of a retired inode, 0 for an empty slot; len is a power of 2
	n      int     // slots in use
	seed   maphash.Seed
	absent map[string]struct{}
}

func newRestIndex() restIndex {
	return restIndex{seed: maphash.MakeSeed(), absent: map[string]struct{}{}}
}

// restKey is the name slot id stands for.
func (m *Model) restKey(id int32) string { return m.record(id).lastPath }

func (x *restIndex) home(p string) int {
	return int(maphash.String(x.seed, p)) & (len(x.slots) - 1)
}

// find returns the slot that holds p, or -1.
func (m *Model) restFind(p string) int {
	x := &m.restIdx
	if x.n == 0 {
		return -1
	}
	mask := len(x.slots) - 1
	for i := x.home(p); ; i = (i + 1) & mask {
		id := x.slots[i]
		if id == 0 {
			return -1
		}
		if m.restKey(id) == p {
			return i
		}
	}
}

// restGet returns the retired inode p names (0: p is known to name
// nothing), and whether p is retired at all.
func (m *Model) restGet(p string) (int32, bool) {
	if i := m.restFind(p); i >= 0 {
		return m.restIdx.slots[i], true
	}
	_, ok := m.restIdx.absent[p]
	return 0, ok
}

// restPut records that p names retired inode id, or nothing (id 0). A
// retired inode's record must be the model's already, with p its one name.
func (m *Model) restPut(p string, id int32) {
	x := &m.restIdx
	if id == 0 {
		x.absent[p] = struct{}{}
		return
	}
	if (x.n+1)*4 > len(x.slots)*3 {
		m.restGrow()
	}
	mask := len(x.slots) - 1
	i := x.home(p)
	for x.slots[i] != 0 {
		if m.restKey(x.slots[i]) == p {
			x.slots[i] = id
			return
		}
		i = (i + 1) & mask
	}
	x.slots[i] = id
	x.n++
}

func (m *Model) restGrow() {
	x := &m.restIdx
	old := x.slots
	x.slots = make([]int32, max(64, 2*len(old)))
	mask := len(x.slots) - 1
	for _, id := range old {
		if id == 0 {
			continue
		}
		i := x.home(m.restKey(id))
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = id
	}
}

// restDelete forgets p, while the record its slot points at is still the
// model's.
func (m *Model) restDelete(p string) {
	x := &m.restIdx
	i := m.restFind(p)
	if i < 0 {
		delete(x.absent, p)
		return
	}
	// Shift back the entries after i that probed past it (linear
	// probing's deletion without tombstones).
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		k := x.home(m.restKey(x.slots[j]))
		// Move j into the hole at i unless its home lies cyclically in
		// (i, j].
		if i <= j && (k <= i || k > j) || i > j && k <= i && k > j {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = 0
	x.n--
}

// restBelow lists the retired names below prefix, sorted.
func (m *Model) restBelow(prefix string) []string {
	var below []string
	for _, id := range m.restIdx.slots {
		if id != 0 {
			if p := m.restKey(id); strings.HasPrefix(p, prefix) {
				below = append(below, p)
			}
		}
	}
	for p := range m.restIdx.absent {
		if strings.HasPrefix(p, prefix) {
			below = append(below, p)
		}
	}
	slices.Sort(below)
	return below
}
