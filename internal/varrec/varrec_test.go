package varrec

import (
	"encoding/binary"
	"testing"
)

// TestReader: fields written with AppendString and binary's Append
// functions read back in turn; a record cut anywhere reads as Bad, with
// no field past the cut.
func TestReader(t *testing.T) {
	var b []byte
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -70000)
	b = append(b, 7)
	b = AppendString(b, "a/b.txt")
	var r Reader
	r.Reset(b)
	if u, v, c, s := r.Uvarint(), r.Varint(), r.Byte(), string(r.Bytes()); u != 300 || v != -70000 || c != 7 || s != "a/b.txt" || r.Bad || len(r.B) != 0 {
		t.Fatalf("read %d %d %d %q, bad %v, %d left", u, v, c, s, r.Bad, len(r.B))
	}
	for cut := range len(b) {
		r.Reset(b[:cut])
		r.Uvarint()
		r.Varint()
		r.Byte()
		r.Bytes()
		if !r.Bad {
			t.Errorf("cut after %d of %d bytes: not bad", cut, len(b))
		}
	}
	r.Reset(AppendString(nil, "xyz")[:2])
	if got := r.Bytes(); got != nil || !r.Bad {
		t.Errorf("a string cut short read %q, bad %v", got, r.Bad)
	}
}
