package parser

import (
	"encoding/binary"
	"math/bits"
)

// digitRun returns the end of the run of decimal digits at b[i:] and its
// value, modulo 2^64 past 19 digits (callers bound the length they
// accept). Eight bytes are looked at at once while eight remain: every
// line starts with a timestamp of 14 to 17 digits and most with a pid,
// which a byte at a time cost some 300 instructions a line.
func digitRun(b []byte, i int) (end int, v uint64) {
	j := i
	for j+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[j:])
		// A byte is a digit when neither c-'0' borrows nor c+0x46 (0x7f
		// for '9') carries into its high bit. A borrow or a carry only
		// reaches the bytes after the one that made it (the higher ones,
		// read little-endian), so the lowest byte flagged is the first
		// that is not a digit.
		lo := x - 0x3030303030303030
		hi := x + 0x4646464646464646
		n := bits.TrailingZeros64((lo|hi)&0x8080808080808080) >> 3
		if n > 0 {
			// The n digits, moved to the top bytes: the bytes below are
			// zeros, leading digits that add nothing. Then pairs, fours,
			// eights are summed in place.
			d := lo << (64 - 8*n)
			d = (d & 0x0f0f0f0f0f0f0f0f) * (1 + 10<<8) >> 8
			d = (d & 0x00ff00ff00ff00ff) * (1 + 100<<16) >> 16
			d = (d & 0x0000ffff0000ffff) * (1 + 10000<<32) >> 32
			v = v*uint64(pow10[n]) + d
			j += n
		}
		if n < 8 {
			return j, v
		}
	}
	for j < len(b) {
		d := b[j] - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint64(d)
		j++
	}
	return j, v
}
