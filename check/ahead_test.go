package check

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// withAhead sets ahead's knobs until the test ends.
func withAhead(t *testing.T, from, chunk, workers int) {
	t.Helper()
	oldMin, oldChunk, oldWorkers := aheadMin, aheadChunk, aheadWorkers
	t.Cleanup(func() { aheadMin, aheadChunk, aheadWorkers = oldMin, oldChunk, oldWorkers })
	aheadMin, aheadChunk, aheadWorkers = from, chunk, func() int { return workers }
}

// TestAhead: use sees every item once, in order, with what prep made of
// it, up to the first item prep cannot answer; from there on every item
// comes with ok false and a zero out, and no prep runs once use has had
// the first of them. Below aheadMin, or with no worker, prep never runs.
func TestAhead(t *testing.T) {
	const n = 1000
	type out struct {
		i, twice int
		room     []int
	}
	for _, workers := range []int{1, 3} {
		for _, chunk := range []int{1, 7, 64, 2000} {
			for _, fail := range []int{-1, 0, 5, 6, 7, 500, n - 1} {
				name := fmt.Sprintf("%d workers, chunks of %d, prep failing at %d", workers, chunk, fail)
				withAhead(t, 2, chunk, workers)
				var alone atomic.Bool
				var late atomic.Int64
				next := 0
				ahead(n, func(i int, o *out) bool {
					if alone.Load() {
						late.Add(1)
					}
					if i == fail {
						return false
					}
					o.i, o.twice = i, 2*i
					o.room = append(o.room[:0], i)
					return true
				}, func(i int, o *out, ok bool) {
					if i != next {
						t.Fatalf("%s: use got item %d, want %d", name, i, next)
					}
					next++
					wantOK := fail < 0 || i < fail
					if ok != wantOK {
						t.Errorf("%s: item %d ok %v, want %v", name, i, ok, wantOK)
					}
					switch {
					case ok && (o.i != i || o.twice != 2*i || len(o.room) != 1 || o.room[0] != i):
						t.Errorf("%s: item %d came with %+v", name, i, *o)
					case !ok && (o.i != 0 || o.twice != 0 || o.room != nil):
						t.Errorf("%s: item %d not prepared came with %+v, want zero", name, i, *o)
					case !ok:
						alone.Store(true)
					}
				})
				if next != n {
					t.Errorf("%s: use saw %d items of %d", name, next, n)
				}
				if late.Load() > 0 {
					t.Errorf("%s: prep ran %d times after use had an item to work out alone", name, late.Load())
				}
			}
		}
	}
	for _, c := range []struct{ from, workers, n int }{{256, 2, 255}, {1, 0, 50}} {
		withAhead(t, c.from, 4, c.workers)
		ran, seen := 0, 0
		ahead(c.n, func(int, *int) bool { ran++; return true }, func(i int, _ *int, ok bool) {
			if ok {
				t.Errorf("aheadMin %d, %d workers, %d items: item %d prepared", c.from, c.workers, c.n, i)
			}
			seen++
		})
		if ran > 0 || seen != c.n {
			t.Errorf("aheadMin %d, %d workers, %d items: prep ran %d times, use %d", c.from, c.workers, c.n, ran, seen)
		}
	}
}

// TestAheadSameFindings: on every fixture trace, a many-files trace and
// a real-shaped one, under every persistence model, with files retired
// as soon as they can be, a check whose rules ask the model ahead on
// other goroutines (in chunks of two files, from the first file) finds
// exactly what one that asks it alone finds, in memory and spilled; and
// it did ask ahead.
func TestAheadSameFindings(t *testing.T) {
	inTempDir(t)
	inputs := retireInputs(t)
	defer func(on bool, batch, prune int) {
		retireModels, retireBatch, namePrune = on, batch, prune
	}(retireModels, retireBatch, namePrune)
	retireModels, retireBatch, namePrune = true, 1, 0
	defer func(f func(int, int)) { aheadSeen = f }(aheadSeen)
	prepared := 0
	aheadSeen = func(p, _ int) { prepared += p }
	run := func(in retireInput, from, spillAt int) *Result {
		withAhead(t, from, 2, 2)
		opt := in.opt
		opt.Models, opt.SpillAt = model.Persistences, spillAt
		res, err := Run(parser.NewReader(bytes.NewReader(in.text), in.name, parser.Options{}), opt)
		if err != nil && !strings.Contains(in.name, "bad") {
			t.Logf("%s: %v", in.name, err)
		}
		return res
	}
	for _, in := range inputs {
		want, got := run(in, math.MaxInt, 0), run(in, 1, 0)
		if d := cmp.Diff(want, got, cmp.AllowUnexported(Result{}), cmpopts.IgnoreUnexported(Finding{}, Rule{}), sameDirSets); d != "" {
			t.Errorf("%s: findings differ (-alone +ahead):\n%s", in.name, d)
		}
		// Spilled, the rules make their findings in reused room.
		want, got = run(in, math.MaxInt, 1), run(in, 1, 1)
		if want == nil || got == nil {
			continue
		}
		if d := cmp.Diff(viewOf(t, want), viewOf(t, got)); d != "" {
			t.Errorf("%s spilled: findings differ (-alone +ahead):\n%s", in.name, d)
		}
		want.Close()
		got.Close()
	}
	if prepared == 0 {
		t.Error("no file was prepared ahead: the test shows nothing")
	}
	t.Logf("%d files prepared ahead", prepared)
}

// TestSortBig: sortBig sorts as slices.SortFunc does, in two halves or
// one, whatever the lengths of the halves.
func TestSortBig(t *testing.T) {
	defer func(n int) { sortFrom = n }(sortFrom)
	for _, from := range []int{1, 1 << 62} {
		sortFrom = from
		for _, n := range []int{0, 1, 2, 3, 10, 1001} {
			for _, order := range []func(i int) int{
				func(i int) int { return (i*7919 + 13) % 10007 }, // scrambled
				func(i int) int { return n - i },                 // the largest in the first half
				func(i int) int { return i },                     // in the second
			} {
				s := make([]int, n)
				for i := range s {
					s[i] = order(i)
				}
				want := slices.Clone(s)
				slices.Sort(want)
				sortBig(s, func(a, b int) int { return a - b })
				if !slices.Equal(s, want) {
					t.Errorf("sortFrom %d, %d elements: %v, want %v", from, n, s, want)
				}
			}
		}
	}
}
