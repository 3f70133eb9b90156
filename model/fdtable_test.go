package model

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// TestFDTableAsMap: fdTable keeps fds below lowFDs in a slice and the
// others in a map; after any sequence of puts, deletes, clones and
// cloexec changes, at fd numbers on both sides of the bound and negative
// ones, it must hold what a plain map would.
func TestFDTableAsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fds := []int{-5, 0, 1, 2, 7, 63, lowFDs - 1, lowFDs, lowFDs + 1, 4096, 1 << 20}
	tab := &fdTable{}
	want := map[int]fdEntry{}
	var handles []*Handle
	for i := range 8 {
		handles = append(handles, &Handle{Offset: int64(i)})
	}
	check := func(step int) {
		t.Helper()
		got := maps.Collect(tab.all)
		if len(got) != len(want) || tab.n != len(want) {
			t.Fatalf("step %d: %d fds listed, n=%d, want %d", step, len(got), tab.n, len(want))
		}
		for fd, w := range want {
			e, ok := tab.get(fd)
			if !ok || e.h != w.h || e.cloexec != w.cloexec || e.line != w.line || got[fd].h != w.h {
				t.Fatalf("step %d: fd %d = %+v %v, want %+v", step, fd, e, ok, w)
			}
		}
		for _, fd := range fds {
			if _, ok := want[fd]; !ok {
				if _, ok := tab.get(fd); ok {
					t.Fatalf("step %d: fd %d held, want free", step, fd)
				}
			}
		}
	}
	for step := range 5000 {
		fd := fds[r.IntN(len(fds))]
		switch r.IntN(5) {
		case 0, 1:
			e := fdEntry{h: handles[r.IntN(len(handles))], cloexec: r.IntN(2) == 0, line: int64(step)}
			tab.set(fd, e)
			e.held = true
			want[fd] = e
		case 2:
			tab.del(fd)
			delete(want, fd)
		case 3:
			// close_range(lo, ~0, CLOSE_RANGE_CLOEXEC), then exec
			for fd, e := range tab.all {
				if fd >= 64 {
					e.cloexec = true
					tab.set(fd, e)
				}
			}
			for fd, e := range tab.all {
				if e.cloexec {
					tab.del(fd)
				}
			}
			for fd, e := range want {
				if fd >= 64 || e.cloexec {
					delete(want, fd)
				}
			}
		case 4:
			// a fork's copy is its own: changing it leaves tab alone
			c := tab.clone()
			c.set(fd, fdEntry{h: &Handle{}})
			c.del(fds[r.IntN(len(fds))])
		}
		check(step)
	}
}
