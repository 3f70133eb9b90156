package model

import (
	"runtime"
	"testing"
	"weak"
)

// TestWeakTable: the inodes something holds come back through the table
// after a sweep, as the same objects; those nobody holds are dropped; a
// block left with few pointers is let go, its pointers moved to the map.
func TestWeakTable(t *testing.T) {
	if n := weakSweepMin; n != 1<<30 {
		weakSweepMin = 1 << 30 // sweep only when the test says
		t.Cleanup(func() { weakSweepMin = n })
	}
	var tab weakTable
	held := map[int32]*Inode{}
	for id := int32(1); id <= 3*weakBlock; id++ {
		ino := &Inode{ID: int(id)}
		// Block 0 keeps one inode (sparse), block 1 all but a few,
		// block 2 none.
		if id == 3 || id > weakBlock && id <= 2*weakBlock-5 {
			held[id] = ino
		}
		tab.set(id, weak.Make(ino))
	}
	if tab.n != 3*weakBlock {
		t.Fatalf("n = %d after %d sets", tab.n, 3*weakBlock)
	}
	runtime.GC()
	tab.sweep()
	for id := int32(1); id <= 3*weakBlock; id++ {
		w, ok := tab.get(id)
		switch want := held[id]; {
		case want != nil && (!ok || w.Value() != want):
			t.Fatalf("inode %d, held, does not come back as itself after a sweep", id)
		case want == nil && ok:
			t.Fatalf("inode %d, held by nobody, still has a pointer after a sweep", id)
		}
	}
	if tab.blocks[0] != nil || tab.blocks[2] != nil || tab.blocks[1] == nil {
		t.Errorf("blocks kept after the sweep: %v %v %v, want only block 1", tab.blocks[0] != nil, tab.blocks[1] != nil, tab.blocks[2] != nil)
	}
	if _, ok := tab.kept[3]; !ok || len(tab.kept) != 1 {
		t.Errorf("kept = %v, want the one inode of the sparse block", tab.kept)
	}
	if got, want := tab.n+len(tab.kept), len(held); got != want {
		t.Errorf("%d pointers counted after the sweep, %d held", got, want)
	}
	// Cleared: gone, wherever it was.
	tab.clear(3)
	tab.clear(weakBlock + 1)
	for _, id := range []int32{3, weakBlock + 1} {
		if _, ok := tab.get(id); ok {
			t.Errorf("inode %d still has a pointer after clear", id)
		}
	}
	// A pointer set in the blocks for an ID that kept still has is the
	// one that counts, before a sweep and after.
	old, now := &Inode{ID: 7}, &Inode{ID: 7}
	tab.kept[7] = weak.Make(old)
	tab.set(7, weak.Make(now))
	tab.sweep()
	if w, ok := tab.get(7); !ok || w.Value() != now {
		t.Errorf("inode 7 comes back as the older object after a sweep")
	}
	runtime.KeepAlive(held)
	runtime.KeepAlive(old)
	runtime.KeepAlive(now)
}
