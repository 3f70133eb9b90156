package explore

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestContentHash: the sum of a content does not depend on how it is
// written (the reads of a copy return any lengths), and contents that
// differ anywhere, in a block of zeros or in the length of the tail,
// have different sums.
func TestContentHash(t *testing.T) {
	sumOf := func(b []byte, r *rand.Rand) [32]byte {
		h := newContentHash()
		for len(b) > 0 {
			n := 1 + r.IntN(3*contentBlock)
			if r.IntN(4) == 0 {
				n = 1 + r.IntN(10)
			}
			n = min(n, len(b))
			h.Write(b[:n])
			b = b[n:]
		}
		return h.sum()
	}
	r := rand.New(rand.NewPCG(1, 2))
	data := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	zeros := func(n int) []byte { return make([]byte, n) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	oneAt := func(n, at int) []byte { b := zeros(n); b[at] = 1; return b }
	contents := [][]byte{
		{},
		zeros(1),
		zeros(contentBlock - 1),
		zeros(contentBlock),
		zeros(contentBlock + 1),
		zeros(4 * contentBlock),
		oneAt(4*contentBlock, 0),
		oneAt(4*contentBlock, 3*contentBlock+5),
		oneAt(4*contentBlock, 4*contentBlock-1),
		cat(data(100), zeros(3*contentBlock)),
		cat(zeros(contentBlock), data(contentBlock), zeros(contentBlock)),
		cat(data(contentBlock), zeros(contentBlock), zeros(contentBlock)),
		data(3*contentBlock + 17),
		// A block's tag byte and bytes must not read as another layout.
		cat([]byte{tagZeros}, zeros(contentBlock-1)),
		cat([]byte{tagData}, zeros(contentBlock-1)),
	}
	seen := map[[32]byte]int{}
	for i, c := range contents {
		s := sumOf(c, r)
		for range 5 {
			if again := sumOf(c, r); again != s {
				t.Fatalf("content %d: the sum depends on how it is written", i)
			}
		}
		if j, ok := seen[s]; ok {
			t.Errorf("contents %d and %d differ but have one sum", j, i)
		}
		seen[s] = i
	}
}
