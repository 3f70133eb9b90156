// Package varrec writes and reads the records of crashsim's temp files
// (findings past what a check keeps in memory, the records of settled
// files): fields one after the other as varints, bytes and strings after
// their length.
package varrec

import "encoding/binary"

// AppendString appends s after its length.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Reader reads a record's fields in turn from B. A field that does not
// fit in what is left makes it Bad: B is then empty, and every later
// field reads as zero.
type Reader struct {
	B   []byte
	Bad bool
}

// Reset makes r read b from its start.
func (r *Reader) Reset(b []byte) { r.B, r.Bad = b, false }

func (r *Reader) fail() { r.B, r.Bad = nil, true }

// Uvarint reads a binary.AppendUvarint field.
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Varint reads a binary.AppendVarint field.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.B)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.B) == 0 {
		r.fail()
		return 0
	}
	b := r.B[0]
	r.B = r.B[1:]
	return b
}

// Bytes reads an AppendString field, as a slice of B.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		r.fail()
		return nil
	}
	b := r.B[:n]
	r.B = r.B[n:]
	return b
}
