package check

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// spilledRecords writes n records to a new spill file, each of its own
// bytes and some longer than the small buffer of a reader's jumps, and
// returns the file, the records and their offsets.
func spilledRecords(tb testing.TB, n int) (*spillFile, [][]byte, []int64) {
	tb.Helper()
	f, err := newSpillFile()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.close() })
	recs := make([][]byte, n)
	offs := make([]int64, n)
	for i := range n {
		size := 150 + i%97
		if i%41 == 0 {
			size = 3*4096 + i%13 // across several fills of a reader's small buffer
		}
		rec := bytes.Repeat([]byte{byte(i), byte(i >> 8), byte(i >> 16)}, size/3+1)[:size]
		if offs[i], err = f.put(rec); err != nil {
			tb.Fatal(err)
		}
		recs[i] = rec
	}
	if err := f.done(); err != nil {
		tb.Fatal(err)
	}
	return f, recs, offs
}

// alternating is the order a report reads a spilled result in: one
// finding in file order, then a fellow of its problem from anywhere.
func alternating(n int, rnd *rand.Rand) []int {
	var order []int
	for i := range n {
		order = append(order, i, rnd.IntN(n))
	}
	return order
}

// TestReaderAtAnyOrder: the record a reader gives at an offset is the
// one written there, whatever order they are asked in: in file order, in
// turn with records from anywhere (the large buffer stays, the jumps go
// through the small one), in order from a jump on (the large buffer
// moves there), backwards, skipping ahead within what is buffered, and
// past the end.
func TestReaderAtAnyOrder(t *testing.T) {
	inTempDir(t)
	const n = 3000
	f, recs, offs := spilledRecords(t, n)
	rnd := rand.New(rand.NewPCG(1, 2))
	inOrder := make([]int, n)
	backwards := make([]int, n)
	everyThird := make([]int, 0, n/3)
	for i := range n {
		inOrder[i], backwards[i] = i, n-1-i
		if i%3 == 0 {
			everyThird = append(everyThird, i)
		}
	}
	jumpThenRun := []int{5}
	for i := 2000; i < 2100; i++ {
		jumpThenRun = append(jumpThenRun, i)
	}
	jumpThenRun = append(jumpThenRun, 6, 7, 2100, 8, 2101)
	orders := map[string][]int{
		"in order": inOrder, "alternating": alternating(n, rnd), "backwards": backwards,
		"every third": everyThird, "jump then run": jumpThenRun, "random": rnd.Perm(n),
	}
	for name, order := range orders {
		r := newReader(f, nil, -1, f.size, 256<<10)
		for _, i := range order {
			got, err := r.at(offs[i])
			if err != nil {
				t.Fatalf("%s: record %d: %v", name, i, err)
			}
			if !bytes.Equal(got, recs[i]) {
				t.Fatalf("%s: record %d at %d: got %d bytes starting %v, want %d starting %v", name, i, offs[i], len(got), got[:min(6, len(got))], len(recs[i]), recs[i][:6])
			}
		}
		if _, err := r.at(f.size); err == nil {
			t.Errorf("%s: a record past the end read", name)
		}
	}
}

// BenchmarkReaderAlternating reads a spilled result's records as a
// report does (see alternating): a jump refilled the 256 KiB buffer.
func BenchmarkReaderAlternating(b *testing.B) {
	for _, n := range []int{1 << 14, 1 << 16} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.Setenv("TMPDIR", b.TempDir())
			f, _, offs := spilledRecords(b, n)
			order := alternating(n, rand.New(rand.NewPCG(1, 2)))
			for b.Loop() {
				r := newReader(f, nil, -1, f.size, 256<<10)
				for _, i := range order {
					if _, err := r.at(offs[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
