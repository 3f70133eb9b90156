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
// (restInode.lastPath, or its copy in the temp file: restspill.go), so
// the index keeps only the ID and a hash of the path, in an open
// addressing table (linear probing), and compares a path with the name in
// the record the slot points at: 11 to 21 bytes a file. That needs every
// ID in the table to be a retired inode whose one name is its key, so an
// inode that comes back brings its name back with it (reviveID).
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
	// parts split the index by the top bits of a path's hash (restPart):
	// each grows on its own, so that growing allocates a sixteenth of
	// the index at a time. A single table doubled at once: 16 MB while
	// the 8 MB before it was still live, at three quarters of a million
	// names, the peak of a check of a million settled files.
	parts [1 << restPartBits]restPart
	n     int // slots in use
	seed  maphash.Seed
}

const restPartBits = 4

// restPart is one table of a restIndex.
type restPart struct {
	// slots hold the ID of a retired inode (0: an empty slot) and 32
	// bits of its path's hash side by side, so that a probe reads one
	// cache line where two arrays cost two misses (find was 4% of a
	// check of a million settled files); len is a power of 2.
	slots []restSlot
	n     int // slots in use
}

// restSlot is one slot of a restPart. The hash bits matter: a probe that
// meets another path's ID would read that ID's record (a cache miss in a
// table of a million files, a read of the temp file for a record there:
// restspill.go) to compare names, and a lookup of a new name (every file
// created) meets several. The hash turns away all but one in 2^32 of
// them, and lets the table grow and shift entries without reading a
// record.
type restSlot struct {
	id   int32
	hash uint32
}

// A place in the index, as find returns it: the part in the bits above
// 32, the slot below.
const restSlotBits = 32

func newRestIndex() restIndex { return restIndex{seed: maphash.MakeSeed()} }

// restHash hashes a path for the index. A variable so that a test can
// make paths collide: the index must still tell them apart.
var restHash = func(seed maphash.Seed, p string) uint64 { return maphash.String(seed, p) }

// hash returns the part of p and the 32 bits of its hash the part keeps.
func (x *restIndex) hash(p string) (*restPart, int, uint32) {
	h := restHash(x.seed, p)
	k := int(h >> (64 - restPartBits))
	return &x.parts[k], k, uint32(h)
}

// find returns the place (see restSlotBits) of the first slot of the
// probe of p, past any that ok rejects, that holds an ID whose record
// names p (is), or -1.
func (x *restIndex) find(p string, is func(int32, string) bool, ok func(int32) bool) int {
	if x.n == 0 {
		return -1
	}
	pt, k, h := x.hash(p)
	if pt.n == 0 {
		return -1
	}
	mask := len(pt.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		sl := pt.slots[i]
		if sl.id == 0 {
			return -1
		}
		if sl.hash == h && ok(sl.id) && is(sl.id, p) {
			return k<<restSlotBits | i
		}
	}
}

// id returns the ID at place at.
func (x *restIndex) id(at int) int32 {
	return x.parts[at>>restSlotBits].slots[at&(1<<restSlotBits-1)].id
}

// all yields every ID in the index.
func (x *restIndex) all(yield func(int32) bool) {
	for k := range x.parts {
		for _, sl := range x.parts[k].slots {
			if sl.id != 0 && !yield(sl.id) {
				return
			}
		}
	}
}

// put adds id with key p.
func (x *restIndex) put(p string, id int32) {
	pt, _, h := x.hash(p)
	if (pt.n+1)*4 > len(pt.slots)*3 {
		pt.grow()
	}
	pt.place(id, h)
	pt.n++
	x.n++
}

// place puts id with hash h in the first empty slot of its probe.
func (x *restPart) place(id int32, h uint32) {
	mask := len(x.slots) - 1
	i := int(h) & mask
	for x.slots[i].id != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = restSlot{id, h}
}

func (x *restPart) grow() {
	old := x.slots
	x.slots = make([]restSlot, max(64, 2*len(old)))
	for _, sl := range old {
		if sl.id != 0 {
			x.place(sl.id, sl.hash)
		}
	}
}

// remove empties the slot at place at.
func (x *restIndex) remove(at int) {
	x.parts[at>>restSlotBits].remove(at & (1<<restSlotBits - 1))
	x.n--
}

// remove empties slot i.
func (x *restPart) remove(i int) {
	// Shift back the entries after i that probed past it (linear
	// probing's deletion without tombstones).
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.slots[j].id != 0; j = (j + 1) & mask {
		k := int(x.slots[j].hash) & mask
		// Move j into the hole at i unless its home lies cyclically in
		// (i, j].
		if i <= j && (k <= i || k > j) || i > j && k <= i && k > j {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = restSlot{}
	x.n--
}

// ownIs and sharedIs report whether the record of ID of the model's
// table and of the shared one names path p.
func (m *Model) ownIs(id int32, p string) bool { return m.own[id].lastPath == p }

func (s *restShared) is(id int32, p string) bool {
	if w := s.spill.loc(id); w != 0 {
		return s.spill.hasPath(id, w, p)
	}
	return s.slot(id).lastPath == p
}

// holdsShared reports whether the model retired inode id with the shared
// record.
func (m *Model) holdsShared(id int32) bool {
	return int(id) <= m.inodes.n && m.inodes.get(int(id)) == nil && m.own[id] == nil
}

func anyID(int32) bool { return true }

// restFind returns the table that holds p for the model, and the slot.
func (m *Model) restFind(p string) (*restIndex, int) {
	if !m.opt.Retire {
		return nil, -1
	}
	s := m.shared()
	if i := s.names.find(p, s.is, m.holdsShared); i >= 0 {
		return &s.names, i
	}
	if i := m.restIdx.find(p, m.ownIs, anyID); i >= 0 {
		return &m.restIdx, i
	}
	return nil, -1
}

// restGet returns the retired inode p names (0: p is known to name
// nothing), and whether p is retired at all.
func (m *Model) restGet(p string) (int32, bool) {
	if x, i := m.restFind(p); i >= 0 {
		return x.id(i), true
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
		m.restIdx.put(p, id)
	case s.names.find(p, s.is, func(got int32) bool { return got == id }) < 0:
		s.names.put(p, id)
	}
}

// restDelete forgets p, while the record its slot points at is still the
// model's: a shared record's name stays for the other models holding it.
func (m *Model) restDelete(p string) {
	x, i := m.restFind(p)
	switch {
	case i < 0:
		delete(m.restAbsent, p)
	case x == &m.restIdx || m.record(x.id(i)).refs <= 1:
		x.remove(i)
	}
}

// restBelow lists the retired names below prefix, sorted.
func (m *Model) restBelow(prefix string) []string {
	var below []string
	if !m.opt.Retire {
		return nil
	}
	s := m.shared()
	for id := range s.names.all {
		if s.spill.loc(id) == 0 && m.holdsShared(id) {
			if p := s.slot(id).lastPath; strings.HasPrefix(p, prefix) {
				below = append(below, p)
			}
		}
	}
	// The records in the temp file, read in order rather than one by one
	// in the order of the index. Every model holds them, and a named one
	// has its name in the index.
	s.spill.below(prefix, func(id int32, path []byte, flags restFlags) {
		if flags&restNamed != 0 && m.holdsShared(id) {
			below = append(below, string(path))
		}
	})
	for id := range m.restIdx.all {
		if p := m.own[id].lastPath; strings.HasPrefix(p, prefix) {
			below = append(below, p)
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
