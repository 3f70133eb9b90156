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
// (reviveID).
//
// The names of the records the models of one check share are in one
// table, restShared.names, which a model reads only at the IDs it holds
// the shared record of: a model that has not retired the inode, or has
// its own record, passes over them, so one path may be there more than
// once, for models that numbered their inodes differently. A model's own
// records have their names in its own table (Model.restIdx). Names known
// absent have no record, and stay in a map of the model's: there are few
// of them.
type restIndex struct {
	slots []int32 // ID of a retired inode, 0 for an empty slot; len is a power of 2
	// tags are 8 bits of each slot's hash, beside it: a probe that meets
	// another path's ID would read that ID's record (a cache miss in a
	// table of a million files) to compare names, and a lookup of a new
	// name (every file created) meets several. A tag turns away all but
	// one in 256 of them, for a byte a slot.
	tags []uint8
	n    int // slots in use
	seed maphash.Seed
}

func newRestIndex() restIndex { return restIndex{seed: maphash.MakeSeed()} }

// home returns p's first slot and its tag.
func (x *restIndex) home(p string) (int, uint8) {
	h := maphash.String(x.seed, p)
	return int(h) & (len(x.slots) - 1), uint8(h >> 56)
}

// find returns the first slot from home(p) on, past any that ok rejects,
// that holds an ID of key p, or -1.
func (x *restIndex) find(p string, key func(int32) string, ok func(int32) bool) int {
	if x.n == 0 {
		return -1
	}
	mask := len(x.slots) - 1
	i, tag := x.home(p)
	for ; ; i = (i + 1) & mask {
		id := x.slots[i]
		if id == 0 {
			return -1
		}
		if x.tags[i] == tag && key(id) == p && ok(id) {
			return i
		}
	}
}

// put adds id with key p.
func (x *restIndex) put(p string, id int32, key func(int32) string) {
	if (x.n+1)*4 > len(x.slots)*3 {
		x.grow(key)
	}
	mask := len(x.slots) - 1
	i, tag := x.home(p)
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i], x.tags[i] = id, tag
	x.n++
}

func (x *restIndex) grow(key func(int32) string) {
	old := x.slots
	x.slots = make([]int32, max(64, 2*len(old)))
	x.tags = make([]uint8, len(x.slots))
	mask := len(x.slots) - 1
	for _, id := range old {
		if id == 0 {
			continue
		}
		i, tag := x.home(key(id))
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i], x.tags[i] = id, tag
	}
}

// remove empties slot i, while the records of its ID and the others' are
// still there to give their keys.
func (x *restIndex) remove(i int, key func(int32) string) {
	// Shift back the entries after i that probed past it (linear
	// probing's deletion without tombstones).
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		k, _ := x.home(key(x.slots[j]))
		// Move j into the hole at i unless its home lies cyclically in
		// (i, j].
		if i <= j && (k <= i || k > j) || i > j && k <= i && k > j {
			x.slots[i], x.tags[i] = x.slots[j], x.tags[j]
			i = j
		}
	}
	x.slots[i], x.tags[i] = 0, 0
	x.n--
}

// ownKey and sharedKey are the names the IDs of the model's table and of
// the shared one stand for.
func (m *Model) ownKey(id int32) string { return m.own[id].lastPath }

func (s *restShared) key(id int32) string { return s.slot(id).lastPath }

// holdsShared reports whether the model retired inode id with the shared
// record.
func (m *Model) holdsShared(id int32) bool {
	return int(id) <= m.inodes.n && m.inodes.get(int(id)) == nil && m.own[id] == nil
}

func anyID(int32) bool { return true }

// restFind returns the table that holds p for the model, and the slot.
func (m *Model) restFind(p string) (*restIndex, int, func(int32) string) {
	if !m.opt.Retire {
		return nil, -1, nil
	}
	s := m.shared()
	if i := s.names.find(p, s.key, m.holdsShared); i >= 0 {
		return &s.names, i, s.key
	}
	if i := m.restIdx.find(p, m.ownKey, anyID); i >= 0 {
		return &m.restIdx, i, m.ownKey
	}
	return nil, -1, nil
}

// restGet returns the retired inode p names (0: p is known to name
// nothing), and whether p is retired at all.
func (m *Model) restGet(p string) (int32, bool) {
	if x, i, _ := m.restFind(p); i >= 0 {
		return x.slots[i], true
	}
	_, ok := m.restAbsent[p]
	return 0, ok
}

// restPut records that p names retired inode id, or nothing (id 0). A
// retired inode's record must be the model's already, with p its one
// name: a shared one is put once for all the models holding it.
func (m *Model) restPut(p string, id int32) {
	switch s := m.shared(); {
	case id == 0:
		if m.restAbsent == nil {
			m.restAbsent = map[string]struct{}{}
		}
		m.restAbsent[p] = struct{}{}
	case m.own[id] != nil:
		m.restIdx.put(p, id, m.ownKey)
	case s.names.find(p, s.key, func(got int32) bool { return got == id }) < 0:
		s.names.put(p, id, s.key)
	}
}

// restDelete forgets p, while the record its slot points at is still the
// model's: a shared record's name stays for the other models holding it.
func (m *Model) restDelete(p string) {
	x, i, key := m.restFind(p)
	switch {
	case i < 0:
		delete(m.restAbsent, p)
	case x == &m.restIdx || m.record(x.slots[i]).refs <= 1:
		x.remove(i, key)
	}
}

// restBelow lists the retired names below prefix, sorted.
func (m *Model) restBelow(prefix string) []string {
	var below []string
	if !m.opt.Retire {
		return nil
	}
	s := m.shared()
	for _, id := range s.names.slots {
		if id != 0 && m.holdsShared(id) {
			if p := s.key(id); strings.HasPrefix(p, prefix) {
				below = append(below, p)
			}
		}
	}
	for _, id := range m.restIdx.slots {
		if id != 0 {
			if p := m.ownKey(id); strings.HasPrefix(p, prefix) {
				below = append(below, p)
			}
		}
	}
	for p := range m.restAbsent {
		if strings.HasPrefix(p, prefix) {
			below = append(below, p)
		}
	}
	slices.Sort(below)
	return below
}
