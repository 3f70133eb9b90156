package wordscan

import (
	"math/rand/v2"
	"testing"
)

// byWord checks each test against the same question asked byte by byte,
// on words made to sit at the edges (bytes next to the ones asked for).
func TestAgainstBytes(t *testing.T) {
	edges := []byte{0, 1, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200000; n++ {
		var b [8]byte
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = edges[r.IntN(len(edges))]
			} else {
				b[i] = byte(r.IntN(256))
			}
		}
		s := "x" + string(b[:])
		x := Word(s, 1)
		high, less20, less80, has22, has5c, has7f := false, false, false, false, false, false
		for _, c := range b {
			high = high || c >= 0x80
			less20 = less20 || c < 0x20
			less80 = less80 || c < 0x80
			has22 = has22 || c == 0x22
			has5c = has5c || c == 0x5c
			has7f = has7f || c == 0x7f
		}
		for _, tc := range []struct {
			name      string
			got, want bool
		}{
			{"HasHigh", HasHigh(x), high},
			{"HasLess 0x20", HasLess(x, 0x20), less20},
			{"HasLess 0x80", HasLess(x, 0x80), less80},
			{"Has 0x22", Has(x, 0x22), has22},
			{"Has 0x5c", Has(x, 0x5c), has5c},
			{"Has 0x7f", Has(x, 0x7f), has7f},
		} {
			if tc.got != tc.want {
				t.Fatalf("%s(% x) = %v, want %v", tc.name, b, tc.got, tc.want)
			}
		}
	}
}

func TestWordOrder(t *testing.T) {
	if got := Word("-\x01\x02\x03\x04\x05\x06\x07\x08", 1); got != 0x0807060504030201 {
		t.Fatalf("Word = %#x", got)
	}
}
