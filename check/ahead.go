package check

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Working ahead: a rule's Finish over a trace of many files asks the
// model about each file (its crash states) and then makes and emits a
// finding. The asking only reads the model, through its Still view, and
// can run on the other CPUs, a few chunks of files ahead of the
// goroutine that emits, which must emit in order.
//
// aheadChunk files are prepared at a time; aheadMin is the fewest files
// worth other goroutines; aheadMax the most of them. Variables for the
// tests.
var (
	aheadChunk = 64
	aheadMin   = 256
	aheadMax   = 4
)

// aheadWorkers is how many goroutines ahead gives prep: as many as the
// CPUs Go runs on, at most aheadMax, and none with one CPU. Not one
// fewer: the caller emits a finding in less time than a worker takes to
// prepare one, and then waits (on 200,000 unsynced files with two CPUs
// and two workers, the caller still waited half the time). A variable
// for the tests.
var aheadWorkers = func() int {
	if n := runtime.GOMAXPROCS(0); n >= 2 {
		return min(n, aheadMax)
	}
	return 0
}

// aheadSeen, when set (by the tests), hears from each ahead how many
// items were prepared ahead and how many the caller worked out alone.
var aheadSeen func(prepared, alone int)

// ahead calls use(i, out, ok) for i from 0 to n-1 in order, on the
// calling goroutine, with out what prep(i, out) made of item i on another
// goroutine, shortly before. prep must only read what other goroutines
// read too (the model through model.Still), and returns false where it
// cannot answer so. From the first such item on, use gets ok false, and
// a zero out, for every item, once no other goroutine runs prep any
// more: it then works the item out itself. With few items, or one CPU,
// every item is ok false and nothing runs beside the caller.
//
// use must not keep out: its room serves a later item. prep may keep
// room in out (a slice it appends to) for the next item it is given
// there.
func ahead[T any](n int, prep func(i int, out *T) bool, use func(i int, out *T, ok bool)) {
	workers := aheadWorkers()
	if n < aheadMin || workers == 0 {
		var zero T
		for i := range n {
			out := zero
			use(i, &out, false)
		}
		if aheadSeen != nil {
			aheadSeen(0, n)
		}
		return
	}
	size := aheadChunk
	chunks := (n + size - 1) / size
	window := min(chunks, 4*workers)
	type slot struct {
		out  []T
		k    int           // out[:k] are prepared
		done chan struct{} // closed when k is set
	}
	slots := make([]slot, window)
	for i := range slots {
		slots[i].out = make([]T, size)
	}
	next := make(chan int, window)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range next {
				s := &slots[c%window]
				lo, hi := c*size, min(n, (c+1)*size)
				k := 0
				for i := lo; i < hi && !stop.Load() && prep(i, &s.out[i-lo]); i++ {
					k++
				}
				s.k = k
				close(s.done)
			}
		})
	}
	send := func(c int) {
		slots[c%window].done = make(chan struct{})
		next <- c
	}
	for c := range window {
		send(c)
	}
	closed := false
	halt := func() {
		if !closed {
			closed = true
			stop.Store(true)
			close(next)
			wg.Wait()
		}
	}
	defer halt()
	failed := false
	prepared := 0
	if aheadSeen != nil {
		defer func() { aheadSeen(prepared, n-prepared) }()
	}
	var zero T
	for c := range chunks {
		s := &slots[c%window]
		if !failed {
			<-s.done
		}
		lo, hi := c*size, min(n, (c+1)*size)
		for i := lo; i < hi; i++ {
			if !failed && i-lo < s.k {
				use(i, &s.out[i-lo], true)
				prepared++
				continue
			}
			if !failed {
				failed = true
				halt()
			}
			out := zero
			use(i, &out, false)
		}
		if !failed && c+window < chunks {
			send(c + window)
		}
	}
}

// keepRoom is the room a prep keeps in its out for the next item: what it
// used, unless that was large (a file of many pending writes has up to
// 256 crash states), which would be held in every out of the window.
func keepRoom[S ~[]E, E any](used S) S {
	if cap(used) > 64 {
		return nil
	}
	return used
}

// sortFrom is how long a slice sortBig sorts in two halves at once; a
// variable for the tests.
var sortFrom = 1 << 14

// sortBig is slices.SortFunc for a slice whose elements all differ (by
// cmp): a long one is sorted in two halves on two goroutines, then
// merged. Sorting the 200,000 names of a trace of many files was a
// fifth of name-not-synced's time on the emitting goroutine.
func sortBig[T any](s []T, cmp func(a, b T) int) {
	if len(s) < sortFrom || runtime.GOMAXPROCS(0) < 2 {
		slices.SortFunc(s, cmp)
		return
	}
	a, b := s[:len(s)/2], s[len(s)/2:]
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortFunc(a, cmp) })
	slices.SortFunc(b, cmp)
	wg.Wait()
	merged := make([]T, 0, len(s))
	for len(a) > 0 && len(b) > 0 {
		if cmp(b[0], a[0]) < 0 {
			merged, b = append(merged, b[0]), b[1:]
		} else {
			merged, a = append(merged, a[0]), a[1:]
		}
	}
	merged = append(append(merged, a...), b...)
	copy(s, merged)
}
