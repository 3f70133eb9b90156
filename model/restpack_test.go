package model

import (
	"math"
	"testing"
	"unsafe"
)

// TestRestInodeSize: a settled file's record fills its 48 bytes in the
// shared table, no more.
func TestRestInodeSize(t *testing.T) {
	if n := unsafe.Sizeof(restInode{}); n != 48 {
		t.Errorf("restInode is %d bytes, want 48", n)
	}
}

// TestRestPackFallback: a last sync the record's packed fields cannot
// hold (a line, an event index or a span past 32 bits, a pid past int32)
// is kept whole beside it, and comes back equal, as a packed one does; a
// record brought back leaves nothing beside it.
func TestRestPackFallback(t *testing.T) {
	refs := []Ref{
		{Seq: 7, File: "t", Line: 9, EndLine: 9, PID: 100, Syscall: "fsync"},
		{Seq: math.MaxUint32 + 1, File: "t", Line: 9, EndLine: 9, PID: 100, Syscall: "fsync"},
		{Seq: 7, File: "t", Line: math.MaxUint32 + 5, EndLine: math.MaxUint32 + 5, PID: 100, Syscall: "fsync"},
		{Seq: 7, File: "t", Line: 9, EndLine: math.MaxUint32 + 10, PID: 100, Syscall: "fdatasync"},
		{Seq: 7, File: "u", Line: 9, EndLine: 8, PID: 100, Syscall: "fsync"},
		{Seq: 7, File: "t", Line: 9, EndLine: 9, PID: math.MaxInt32 + 1, Syscall: "fsync"},
	}
	for i, ref := range refs {
		m := New(Options{Retire: true})
		ino := m.newInode(false, false)
		ino.Size, ino.DurableSize, ino.hist = 10, 10, 3
		ino.setHistory("/gone", []string{"/gone"})
		ino.LastSync = &ref
		m.retireInode(ino)
		s := m.shared()
		packed := i == 0
		if got := len(s.more) == 0; got != packed {
			t.Errorf("ref %d (%+v): packed %v, want %v", i, ref, got, packed)
		}
		back := m.record(int32(ino.ID)).rebuild(ino.ID, s)
		if back.LastSync == nil || *back.LastSync != ref {
			t.Errorf("ref %d: LastSync came back as %+v, want %+v", i, back.LastSync, ref)
		}
		if back.Size != 10 || back.hist != 3 || back.LastPath() != "/gone" || len(back.Paths()) != 1 || back.Paths()[0] != "/gone" {
			t.Errorf("ref %d: came back as %+v", i, back)
		}
		if got := m.reviveID(ino.ID); got != ino {
			t.Errorf("ref %d: a held inode came back as another", i)
		}
		if len(s.more) != 0 || s.names.n != 0 || s.held[0] != 0 || s.blocks[0] != nil {
			t.Errorf("ref %d: after the inode came back the shared table keeps %d more, %d names, %d records", i, len(s.more), s.names.n, s.held[0])
		}
	}
}
