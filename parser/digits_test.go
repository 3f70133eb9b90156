package parser

import (
	"math/rand/v2"
	"testing"
)

// digitRunByBytes is digitRun a byte at a time, as the parser read
// digits before.
func digitRunByBytes(b []byte, i int) (int, uint64) {
	var v uint64
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		v = v*10 + uint64(b[j]-'0')
		j++
	}
	return j, v
}

// TestDigitRun: the eight-at-a-time digit reader finds the same end and
// value as a byte at a time, for runs of every length up to past 19
// digits, at every offset, followed by every byte (those just below '0'
// and above '9' and with the high bit set make the borrows and carries
// it must not mistake for digits).
func TestDigitRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 24; n++ {
		for after := 0; after < 256; after++ {
			for _, lead := range []int{0, 1, 3, 8} {
				b := make([]byte, 0, lead+n+10)
				for range lead {
					b = append(b, 'x')
				}
				for range n {
					b = append(b, byte('0'+rng.IntN(10)))
				}
				b = append(b, byte(after))
				for range rng.IntN(10) {
					b = append(b, byte(rng.IntN(256)))
				}
				for _, cut := range []int{len(b), lead + n} {
					in := b[:cut]
					gotEnd, gotV := digitRun(in, lead)
					wantEnd, wantV := digitRunByBytes(in, lead)
					if gotEnd != wantEnd || gotV != wantV {
						t.Fatalf("digitRun(%q, %d) = %d, %d, want %d, %d", in, lead, gotEnd, gotV, wantEnd, wantV)
					}
				}
			}
		}
	}
}
