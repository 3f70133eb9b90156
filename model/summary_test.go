package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// appliedOps is the set of a file's pending ops a state of the posix
// enumeration put on disk whole, as a mask, and false for a state that
// is not such a set (torn, a size without its data, another inode's).
func appliedOps(s PathState, k int) (int, bool) {
	if s.Inode == 0 {
		return 0, false // the name missing
	}
	switch s.Kind {
	case StatePrefix:
		return 1<<s.J - 1, true
	case StateOmit:
		return (1<<k - 1) &^ (1 << s.J), true
	case StateSubset:
		return int(s.Mask), true
	}
	return 0, false
}

// writesTrace is a file created, synced empty, then written n times at
// growing offsets, none synced.
func writesTrace(n int) string {
	var b strings.Builder
	b.WriteString("openat(AT_FDCWD</w>, \"/w/f\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</w/f>\nfsync(3</w/f>) = 0\n")
	for i := range n {
		fmt.Fprintf(&b, "pwrite64(3</w/f>, \"abcd\", 4, %d) = 4\n", 4*i)
	}
	return b.String()
}

// TestSubsetsListedOnce: under posix every subset of a file's pending
// writes is a state, and each one once. The subset of every write but
// one was listed twice, as "all but line N" and as "subset 0x.. of k",
// and counted twice (git's index.lock: 88 states where there are 77).
func TestSubsetsListedOnce(t *testing.T) {
	for k := 1; k <= 6; k++ {
		m := replayText(t, writesTrace(k), parser.Options{})
		po := m.Crash("/w/f", 1<<16)
		seen := map[int]string{}
		sets := 0
		for _, s := range po.States {
			mask, ok := appliedOps(s, k)
			if !ok {
				continue
			}
			if was, dup := seen[mask]; dup {
				t.Errorf("%d writes: ops %#x listed twice, as %q and %q", k, mask, was, s.Persisted)
			}
			seen[mask] = s.Persisted
			sets++
		}
		if sets != 1<<k {
			t.Errorf("%d writes: %d subsets of the writes listed, want %d", k, sets, 1<<k)
		}
	}
}

// manyWritesTrace keeps several files with many unsynced writes each,
// written in turn, as a program with many open logs does (Chromium kept
// some 35): up to 2^16 subsets of one file's writes at a point, which a
// summary counts without listing. One file is renamed over another while
// both have writes pending (two inodes at one name), one gets a second
// name, one is truncated and rewritten, one is fsynced halfway.
func manyWritesTrace() string {
	var b strings.Builder
	b.WriteString("mkdir(\"/m\", 0755) = 0\n")
	for f := range 5 {
		fmt.Fprintf(&b, "openat(AT_FDCWD, \"/m/f%d\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = %d\n", f, 3+f)
	}
	for i := range 17 {
		for f := range 5 {
			if i >= 4+3*f {
				continue // files stop at 4, 7, 10, 13 and 16 writes
			}
			fmt.Fprintf(&b, "write(%d, \"w%d\", 2) = 2\n", 3+f, i)
		}
		switch i {
		case 3:
			b.WriteString("link(\"/m/f1\", \"/m/g1\") = 0\n")
		case 5:
			b.WriteString("rename(\"/m/f0\", \"/m/f2\") = 0\n")
		case 8:
			b.WriteString("fsync(6) = 0\n")
		case 9:
			b.WriteString("ftruncate(7, 3) = 0\nwrite(7, \"again\", 5) = 5\n")
		}
	}
	b.WriteString("openat(AT_FDCWD, \"/m\", O_RDONLY|O_DIRECTORY) = 9\nfsync(9) = 0\n")
	return b.String()
}

// TestSummaryTimelineEqualsFull: a summarized timeline (Summarize), whose
// changed paths list only some of their states, gives every point as a
// full one does: the changed and moved paths, their outcome sets, the
// counts and their exactness, and every path in full from All, at every
// point of every fixture trace under every model, and on files with up to
// 16 writes pending (manyWritesTrace), with a budget of 256 states a path
// that cuts the enumeration short.
func TestSummaryTimelineEqualsFull(t *testing.T) {
	againstFull(t, (*Timeline).Summarize, sameSummary)
}

// TestCountsTimelineEqualsFull: the same of a timeline summarized without
// words (Counts), whose states tell themselves apart by which ops
// persisted, not by their words.
func TestCountsTimelineEqualsFull(t *testing.T) {
	againstFull(t, (*Timeline).Counts, sameSummary)
}

// sameSummary compares a point of a summarized timeline, s, with the
// same point of a full one, f.
func sameSummary(f, s Point) error {
	if f.Index != s.Index || *f.Event != *s.Event || f.Paths != s.Paths || f.States != s.States || f.Explored != s.Explored || f.Exact != s.Exact {
		return fmt.Errorf("point %d: %d of %d states (exact %v), summarized %d of %d (exact %v)", f.Index, f.Explored, f.States, f.Exact, s.Explored, s.States, s.Exact)
	}
	if !slices.Equal(f.Changed, s.Changed) || !slices.Equal(f.Moved, s.Moved) {
		return fmt.Errorf("changed %v moved %v, summarized changed %v moved %v", f.Changed, f.Moved, s.Changed, s.Moved)
	}
	for i, fo := range f.Outcomes {
		so := s.Outcomes[i]
		if !slices.Equal(fo.Outcomes, so.Outcomes) || fo.Total != so.Total || fo.Exact != so.Exact || fo.Ancestor != so.Ancestor {
			return fmt.Errorf("%s: %v (%d, exact %v), summarized %v (%d, exact %v)", fo.Path, fo.Outcomes, fo.Total, fo.Exact, so.Outcomes, so.Total, so.Exact)
		}
		listed := int64(len(so.States))
		for _, c := range so.summed {
			listed += c.n
		}
		if listed != int64(len(fo.States)) {
			return fmt.Errorf("%s: %d states, summarized %d listed and counted", fo.Path, len(fo.States), listed)
		}
	}
	return sameAll(f.All(), s.All(), "summarized")
}

// TestSummaryCountsSubsets: the states a summary counts for a file with
// k unsynced writes are the subsets Crash lists, at the budget's edge
// too.
func TestSummaryCountsSubsets(t *testing.T) {
	for _, k := range []int{3, 8, 12} {
		m := replayText(t, writesTrace(k), parser.Options{})
		for _, c := range []struct {
			max   int
			words bool
		}{{1 << 16, true}, {300, true}, {40, true}, {1 << 16, false}, {300, false}, {40, false}} {
			max := c.max
			full := m.Crash("/w/f", max)
			sum := m.crashSummary("/w/f", max, c.words)
			var counted int64
			for _, c := range sum.summed {
				counted += c.n
			}
			if k >= 8 && max == 1<<16 && counted == 0 {
				t.Errorf("%d writes: nothing summed", k)
			}
			if got := int64(len(sum.States)) + counted; got != int64(len(full.States)) || sum.Total != full.Total || sum.Exact != full.Exact || !slices.Equal(sum.Outcomes, full.Outcomes) {
				t.Errorf("%d writes, budget %d, words %v: %d states (total %d, exact %v, %v), summary %d (total %d, exact %v, %v)", k, max, c.words, len(full.States), full.Total, full.Exact, full.Outcomes, got, sum.Total, sum.Exact, sum.Outcomes)
			}
		}
	}
}

// mixedOpsTrace is a file created and synced empty, then changed by k
// unsynced ops chosen by the bits of pick (two bits an op): a write at a
// growing offset, a truncation to nothing, a truncation that grows the
// file, a write at offset 0. The subsets of such ops end empty, as
// zeros or torn, by the size their newest op left and whether they hold
// a write.
func mixedOpsTrace(k int, pick uint64) string {
	var b strings.Builder
	b.WriteString("openat(AT_FDCWD</w>, \"/w/f\", O_RDWR|O_CREAT|O_EXCL, 0644) = 3</w/f>\nfsync(3</w/f>) = 0\n")
	for i := range k {
		switch pick >> (2 * i) & 3 {
		case 0:
			fmt.Fprintf(&b, "pwrite64(3</w/f>, \"abcd\", 4, %d) = 4\n", 4*i)
		case 1:
			b.WriteString("ftruncate(3</w/f>, 0) = 0\n")
		case 2:
			fmt.Fprintf(&b, "ftruncate(3</w/f>, %d) = 0\n", 8192+4*i)
		case 3:
			b.WriteString("pwrite64(3</w/f>, \"zz\", 2, 0) = 2\n")
		}
	}
	return b.String()
}

// TestSummaryCountsMixedSubsets: the subsets a summary counts run by run
// of masks (countSubsets) give the count, outcome set and exactness that
// listing them one by one gives, whichever op a subset ends with, and
// wherever a budget stops the walk: in the middle of a run, on a prefix
// or every op but one, or before the subsets begin.
func TestSummaryCountsMixedSubsets(t *testing.T) {
	rnd := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 {
		rnd ^= rnd << 13
		rnd ^= rnd >> 7
		rnd ^= rnd << 17
		return rnd
	}
	type tc struct {
		k    int
		pick uint64
	}
	var cases []tc
	// Every choice of up to 4 ops, with every budget up to past the
	// count; then some of up to 10 and 16.
	for k := 1; k <= 4; k++ {
		for pick := range uint64(1) << (2 * k) {
			cases = append(cases, tc{k, pick})
		}
	}
	for k := 5; k <= 10; k++ {
		cases = append(cases, tc{k, 0}, tc{k, 0x5555555555555555}, tc{k, 0xaaaaaaaaaaaaaaaa})
		for range 6 {
			cases = append(cases, tc{k, next()})
		}
	}
	cases = append(cases, tc{16, next()}, tc{16, 0xaaaaaaaaaaaaaaaa})
	for _, c := range cases {
		m := replayText(t, mixedOpsTrace(c.k, c.pick), parser.Options{})
		budgets := []int{1 << 16, 1<<c.k + 3, 1 << (c.k - 1), 1<<c.k/3 + 1, 40, 9, 5, 2, 1}
		if c.k <= 4 {
			budgets = budgets[:1]
			for b := 1; b <= 1<<c.k+2*c.k+6; b++ {
				budgets = append(budgets, b)
			}
		}
		if c.k == 16 {
			budgets = []int{1 << 16, 40000, 3}
		}
		for _, max := range budgets {
			full := m.Crash("/w/f", max)
			for _, words := range []bool{true, false} {
				sum := m.crashSummary("/w/f", max, words)
				var counted int64
				for _, s := range sum.summed {
					counted += s.n
				}
				if got := int64(len(sum.States)) + counted; got != int64(len(full.States)) || sum.Total != full.Total || sum.Exact != full.Exact || !slices.Equal(sum.Outcomes, full.Outcomes) {
					t.Errorf("%d ops %#x, budget %d, words %v: %d states (total %d, exact %v, %v), summary %d (total %d, exact %v, %v)", c.k, c.pick&(1<<(2*c.k)-1), max, words, len(full.States), full.Total, full.Exact, full.Outcomes, got, sum.Total, sum.Exact, sum.Outcomes)
				}
			}
		}
	}
}

// TestFirstMaskWithAndWithout: the least mask at or above lo with no bit
// of w, and with one, found by skipping, are those a walk finds.
func TestFirstMaskWithAndWithout(t *testing.T) {
	for w := range 64 {
		for lo := range 128 {
			without, with := -1, -1
			for m := lo; m < 1<<8 && (without < 0 || with < 0); m++ {
				if m&w == 0 && without < 0 {
					without = m
				}
				if m&w != 0 && with < 0 {
					with = m
				}
			}
			if got := firstWithout(lo, w); got != without {
				t.Errorf("firstWithout(%#b, %#b) = %#b, want %#b", lo, w, got, without)
			}
			if got := firstWith(lo, w); with >= 0 && got != with || with < 0 && got < 1<<8 {
				t.Errorf("firstWith(%#b, %#b) = %#b, want %#b", lo, w, got, with)
			}
		}
	}
}

// BenchmarkSummaryPendingWrites: a summary's answer for a file with k
// unsynced writes, which states asks at each crash point after each
// write (SQLite's WAL gets a dozen or more between two fsyncs). Its
// subsets were counted one mask at a time: 2^k steps a point.
func BenchmarkSummaryPendingWrites(b *testing.B) {
	for _, k := range []int{8, 12, 16} {
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			m := replayText(b, writesTrace(k), parser.Options{})
			for b.Loop() {
				if po := m.crashSummary("/w/f", 1<<16, false); po.Total < 1<<k {
					b.Fatalf("%d states counted, want at least %d", po.Total, 1<<k)
				}
			}
		})
	}
}

// TestNonOwnMasksAreNotOwnStates: the summary's list of the masks that
// are not states of their own (nonOwnMasks) is exactly the masks
// ownState turns away, for every k the enumeration takes.
func TestNonOwnMasksAreNotOwnStates(t *testing.T) {
	for k := 0; k <= ExhaustiveOps; k++ {
		var want []int
		for mask := 0; mask < 1<<k; mask++ {
			if !ownState(mask, k) {
				want = append(want, mask)
			}
		}
		want = append(want, 1<<k)
		got := nonOwnMasks(k, nil)
		if !slices.Equal(got, want) {
			t.Errorf("k=%d: nonOwnMasks %v, want %v", k, got, want)
		}
	}
}
