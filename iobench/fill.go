package iobench

import (
	"encoding/binary"
	"math/rand/v2"
	"unsafe"
)

// alignedBuffer returns n bytes starting at a multiple of pageSize. Go's
// heap does not move objects, so slicing into a larger allocation keeps the
// alignment for the life of the slice.
func alignedBuffer(n int) []byte {
	raw := make([]byte, n+pageSize)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % pageSize); r != 0 {
		skip = pageSize - r
	}
	return raw[skip : skip+n : skip+n]
}

// filler produces the bytes a run writes.
type filler struct {
	random bool
	rng    *rand.PCG
}

func newFiller(kind Fill, seed uint64) *filler {
	if kind != FillRandom {
		return &filler{}
	}
	// The second PCG word is fixed so that one number, the seed the report
	// prints, is all it takes to repeat a run.
	return &filler{random: true, rng: rand.NewPCG(seed, 0x63726173687369)}
}

// init fills buf for the first block: the pattern once for all, or the
// first random block.
func (f *filler) init(buf []byte) {
	if f.random {
		f.next(buf)
		return
	}
	for i := range buf {
		buf[i] = byte(i)
	}
}

// refills reports whether every block needs new bytes.
func (f *filler) refills() bool { return f.random }

// next overwrites buf with the next random bytes.
func (f *filler) next(buf []byte) {
	i := 0
	for ; i+8 <= len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], f.rng.Uint64())
	}
	if i < len(buf) {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], f.rng.Uint64())
		copy(buf[i:], tail[:])
	}
}
