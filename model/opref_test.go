package model

import (
	"math"
	"testing"
)

// TestOpRefRoundTrip: an op gives back the Ref it was made with, whether
// its process and end line fit in the op or go in the interned key.
func TestOpRefRoundTrip(t *testing.T) {
	m := New(Options{})
	refs := []Ref{
		{},
		{Seq: 3, File: "t", Line: 9, EndLine: 9, PID: 100, Syscall: "write"},
		{Seq: 4, File: "t", Line: 9, EndLine: 12, PID: 100, Syscall: "write"},
		{Seq: 5, File: "u", Line: 9, EndLine: 12, PID: 101, Syscall: "openat"},
		{Seq: 6, File: "t", Line: 20, EndLine: 0, PID: 100, Syscall: "write"},
		{Seq: 7, File: "t", Line: 1, EndLine: math.MaxInt32 + 10, PID: 100, Syscall: "write"},
		{Seq: 8, File: "t", Line: math.MaxInt32 + 10, EndLine: math.MaxInt32 + 10, PID: math.MaxInt32 + 1, Syscall: "write"},
		{Seq: 9, File: "t", Line: 9, EndLine: 9, PID: math.MinInt32 - 1, Syscall: "write"},
		// seq and line past 32 bits, or negative: the key holds them.
		{Seq: math.MaxUint32, File: "t", Line: 9, EndLine: 9, PID: 100, Syscall: "write"},
		{Seq: math.MaxUint32 + 7, File: "t", Line: 9, EndLine: 11, PID: 100, Syscall: "write"},
		{Seq: 10, File: "t", Line: math.MaxUint32 + 1, EndLine: math.MaxUint32 + 1, PID: 100, Syscall: "write"},
		{Seq: math.MaxUint32 - 1, File: "t", Line: math.MaxUint32, EndLine: math.MaxUint32, PID: 100, Syscall: "write"},
		{Seq: -1, File: "t", Line: -2, EndLine: 3, PID: 100, Syscall: "write"},
	}
	for i := 0; i < 3; i++ { // again: the handles come from the model's cache
		for _, r := range refs {
			p := m.packRef(r)
			if got := p.ref(); got != r {
				t.Errorf("packRef(%+v).ref() = %+v", r, got)
			}
			if got := p.seqOf(); got != r.Seq {
				t.Errorf("packRef(%+v).seqOf() = %d", r, got)
			}
		}
	}
	var zero opRef
	if got := zero.ref(); got != (Ref{}) {
		t.Errorf("zero opRef: %+v", got)
	}
}

// TestOpRefTableBounded: the process-wide table of refKeys, which never
// lets one go, grows with the trace files, syscalls and end-line
// distances, not with the processes or events: a thousand processes
// writing on a thousand lines add one key.
func TestOpRefTableBounded(t *testing.T) {
	m := New(Options{})
	file := "bounded-" + t.Name()
	before := refTableLen()
	for i := range 1000 {
		r := Ref{Seq: i, File: file, Line: 10 + i, EndLine: 10 + i, PID: 5000 + i, Syscall: "write"}
		p := m.packRef(r)
		if got := p.ref(); got != r {
			t.Fatalf("packRef(%+v).ref() = %+v", r, got)
		}
	}
	if grown := refTableLen() - before; grown != 1 {
		t.Errorf("the table grew by %d keys, want 1", grown)
	}
}

func refTableLen() int {
	refTable.RLock()
	defer refTable.RUnlock()
	return len(refTable.keys)
}
