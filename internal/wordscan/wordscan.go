// Package wordscan tests eight bytes of a string at once, for the loops
// that pass over long runs of plain text looking for the rare byte that
// needs escaping (a report's paths and messages, a terminal's names).
//
// Each test is exact as a yes or no for the whole word; which byte made
// it true is left to a byte loop, which only a word that says yes needs.
package wordscan

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// Word is s[i:i+8] as a little-endian word; i+8 must be at most len(s).
// The compiler reads it with one load where the machine allows.
func Word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// HasHigh reports whether a byte of x is 0x80 or above (not ASCII).
func HasHigh(x uint64) bool { return x&high != 0 }

// HasLess reports whether a byte of x is below n; n is at most 128.
func HasLess(x uint64, n byte) bool {
	return (x-ones*uint64(n))&^x&high != 0
}

// Has reports whether a byte of x is c.
func Has(x uint64, c byte) bool {
	y := x ^ (ones * uint64(c))
	return (y-ones)&^y&high != 0
}
