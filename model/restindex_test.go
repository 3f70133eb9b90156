package model

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRestIndex holds the index of retired names to a map through random
// puts, deletes and lookups, with few enough distinct paths that probe
// runs collide and wrap, and deletes shift entries back across them; and
// again with a hash that gives every path of one length the same value,
// so that whole runs hold paths of one hash that only their names tell
// apart, in one part of the index and in several.
func TestRestIndex(t *testing.T) {
	t.Run("maphash", testRestIndex)
	h := restHash
	restHash = func(_ maphash.Seed, p string) uint64 { return uint64(len(p)) }
	defer func() { restHash = h }()
	t.Run("length", testRestIndex)
	// The same collisions, spread over four parts of the index by the
	// top bits.
	restHash = func(_ maphash.Seed, p string) uint64 { return uint64(len(p)) | uint64(len(p)%4)<<(64-restPartBits) }
	t.Run("length-parts", testRestIndex)
}

func testRestIndex(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 26))
		m := New(Options{Retire: true})
		paths := make([]string, 200)
		for i := range paths {
			paths[i] = fmt.Sprintf("/d%d/f%d", i%7, i)
			// Inode i+1 is retired with the one name paths[i], every
			// third with a record of the model's own.
			r := restInode{lastPath: paths[i], flags: restNamed, refs: 1}
			if i%3 == 0 {
				if m.own == nil {
					m.own = map[int32]*restInode{}
				}
				m.own[int32(i+1)] = &r
			} else {
				*m.shared().slot(int32(i + 1)) = r
			}
			m.inodes.add(&Inode{})
			m.inodes.set(i+1, nil)
		}
		want := map[string]int32{}
		for step := range 5000 {
			i := rng.IntN(len(paths))
			p := paths[i]
			switch rng.IntN(3) {
			case 0:
				id := int32(i + 1)
				if rng.IntN(5) == 0 {
					id = 0 // known absent
				}
				if _, ok := want[p]; ok {
					m.restDelete(p) // a name is put once, as retirement does
				}
				m.restPut(p, id)
				want[p] = id
			case 1:
				if _, ok := want[p]; ok {
					m.restDelete(p)
					delete(want, p)
				}
			}
			q := paths[rng.IntN(len(paths))]
			id, ok := m.restGet(q)
			wid, wok := want[q]
			if id != wid || ok != wok {
				t.Fatalf("seed %d step %d: restGet(%s) = %d, %v; want %d, %v", seed, step, q, id, ok, wid, wok)
			}
		}
		n := 0
		for _, w := range want {
			if w != 0 {
				n++
			}
		}
		if got := m.shared().names.n + m.restIdx.n; got != n {
			t.Errorf("seed %d: %d slots in use, want %d", seed, got, n)
		}
		var below []string
		for p := range want {
			if strings.HasPrefix(p, "/d3/") {
				below = append(below, p)
			}
		}
		slices.Sort(below)
		if got := m.restBelow("/d3/"); !slices.Equal(got, below) {
			t.Errorf("seed %d: restBelow = %v, want %v", seed, got, below)
		}
	}
}
