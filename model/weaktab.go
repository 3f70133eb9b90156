package model

import "weak"

// weakTable holds the weak pointers to retired inodes (see keepWeak), by
// inode ID.
//
// A map by ID cost most of a retirement: an assignment that hashes, and
// grows the map, for every file retired, in every model (a settled file
// retires once a model, the directory it is made in again and again). The
// pointers are kept instead in blocks indexed by ID, where setting one is
// a store. A sweep drops the pointers whose inode is gone, and lets go of
// the blocks left empty; the few pointers still set in a block that holds
// almost none move to a map (kept), so that an inode something holds for
// long (an open fd, a rule's map) does not keep a block for itself.
//
// A block holds 64 IDs (520 bytes): a check of settled files retires
// most of them with no pointer, and the few it keeps one for (retired
// while their fd was still open) are far apart, each in a block of its
// own until the next sweep, up to weakSweepMin of them a model. Blocks
// of 256 IDs held 2 MB a model that way at the end of a million files.
//
// A pointer in the blocks is newer than one in kept for the same ID.
type weakTable struct {
	blocks []*weakBlk
	used   []int32 // the blocks that are not nil, by number
	n      int     // pointers in the blocks
	kept   map[int32]weak.Pointer[Inode]
	// sweepAt is how many pointers (n+len(kept)) wait before the next
	// sweep: twice those the last one kept.
	sweepAt int
	// spare holds blocks let go, all zero, for the next ones.
	spare []*weakBlk
}

// weakBlock is how many IDs a block of weakTable holds, weakSparse how
// few pointers a block holds after a sweep for them to move to kept.
const (
	weakBlock  = 64
	weakSparse = 4
)

type weakBlk struct {
	p    [weakBlock]weak.Pointer[Inode]
	live int // pointers set
}

// set keeps w for retired inode id, reporting whether the table holds
// enough pointers for a sweep.
func (t *weakTable) set(id int32, w weak.Pointer[Inode]) bool {
	b := int(id-1) / weakBlock
	for len(t.blocks) <= b {
		t.blocks = append(t.blocks, nil)
	}
	blk := t.blocks[b]
	if blk == nil {
		if k := len(t.spare); k > 0 {
			blk, t.spare = t.spare[k-1], t.spare[:k-1]
		} else {
			blk = new(weakBlk)
		}
		t.blocks[b] = blk
		t.used = append(t.used, int32(b))
	}
	s := &blk.p[int(id-1)%weakBlock]
	if *s == (weak.Pointer[Inode]{}) {
		blk.live++
		t.n++
	}
	*s = w
	return t.n+len(t.kept) >= max(weakSweepMin, t.sweepAt)
}

// slot returns the place of id in the blocks, nil when its block does
// not exist.
func (t *weakTable) slot(id int32) (*weakBlk, *weak.Pointer[Inode]) {
	b := int(id-1) / weakBlock
	if b >= len(t.blocks) || t.blocks[b] == nil {
		return nil, nil
	}
	blk := t.blocks[b]
	return blk, &blk.p[int(id-1)%weakBlock]
}

// get returns the pointer kept for inode id, and whether there is one.
func (t *weakTable) get(id int32) (weak.Pointer[Inode], bool) {
	if _, s := t.slot(id); s != nil && *s != (weak.Pointer[Inode]{}) {
		return *s, true
	}
	w, ok := t.kept[id]
	return w, ok
}

// clear forgets the pointer of inode id.
func (t *weakTable) clear(id int32) {
	if blk, s := t.slot(id); s != nil && *s != (weak.Pointer[Inode]{}) {
		*s = weak.Pointer[Inode]{}
		blk.live--
		t.n--
	}
	if len(t.kept) > 0 {
		delete(t.kept, id)
	}
}

// sweep drops the pointers whose inode nobody holds any more.
func (t *weakTable) sweep() {
	held := 0
	for id, w := range t.kept {
		if _, s := t.slot(id); (s == nil || *s == weak.Pointer[Inode]{}) && w.Value() != nil {
			held++
		}
	}
	// A new map: a Go map keeps the room of its deleted entries.
	kept := make(map[int32]weak.Pointer[Inode], held)
	for id, w := range t.kept {
		if _, s := t.slot(id); (s == nil || *s == weak.Pointer[Inode]{}) && w.Value() != nil {
			kept[id] = w
		}
	}
	used := t.used[:0]
	for _, b := range t.used {
		blk := t.blocks[b]
		for i := range blk.p {
			if w := blk.p[i]; w != (weak.Pointer[Inode]{}) && w.Value() == nil {
				blk.p[i] = weak.Pointer[Inode]{}
				blk.live--
				t.n--
			}
		}
		if blk.live > 0 && blk.live < weakSparse {
			for i, w := range blk.p {
				if w != (weak.Pointer[Inode]{}) {
					kept[int32(int(b)*weakBlock+i+1)] = w
					blk.p[i] = weak.Pointer[Inode]{}
				}
			}
			t.n -= blk.live
			blk.live = 0
		}
		if blk.live > 0 {
			used = append(used, b)
			continue
		}
		if len(t.spare) < spareBlocks {
			t.spare = append(t.spare, blk)
		}
		t.blocks[b] = nil
	}
	t.used = used
	t.kept, t.sweepAt = kept, 2*(t.n+len(kept))
}
