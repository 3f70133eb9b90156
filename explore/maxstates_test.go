package explore

import (
	"path/filepath"
	"slices"
	"testing"
)

// appendsTrace is a log appended to and fsynced twelve times: 27 crash
// points, two new distinct states at each append.
func appendsTrace(t *testing.T) (trace, root string) {
	root = filepath.Join(t.TempDir(), "root")
	lines := []string{`openat(AT_FDCWD, "/R/log", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`, `fsync(3) = 0`}
	for range 12 {
		lines = append(lines, `write(3, "x", 1) = 1`, `fsync(3) = 0`)
	}
	return writeTrace(t, root, lines...), root
}

// checkedStates runs a checker that rejects every state, so that each
// state checked is a finding, and returns their state indexes in order.
func checkedStates(t *testing.T, trace, root string, tweak func(*Options)) (*Result, []int) {
	t.Helper()
	opt := Options{Trace: trace, Root: root, Checker: "exit 1", Jobs: 2, WorkDir: t.TempDir()}
	tweak(&opt)
	res := runTrace(t, trace, opt)
	var idx []int
	for _, f := range res.Findings {
		idx = append(idx, f.StateIndex)
	}
	if len(idx) != res.Checked || !slices.IsSorted(idx) {
		t.Fatalf("%d checked, findings for states %v", res.Checked, idx)
	}
	return res, idx
}

// TestMaxStatesSpreadsOverRun: --max-states keeps states spread over the
// whole run, the last one found among them, not the first N found, which
// left the end of the run (after the program's commit) unchecked.
func TestMaxStatesSpreadsOverRun(t *testing.T) {
	trace, root := appendsTrace(t)
	const n = 5
	res, idx := checkedStates(t, trace, root, func(o *Options) { o.MaxStates = n })
	if res.Distinct < 4*n {
		t.Fatalf("%d distinct states: the test needs many more than %d", res.Distinct, n)
	}
	if res.Checked != n || res.Skipped != res.Distinct-n {
		t.Fatalf("checked %d, skipped %d of %d distinct: want %d and %d", res.Checked, res.Skipped, res.Distinct, n, res.Distinct-n)
	}
	if idx[0] != 1 || idx[n-1] != res.Distinct {
		t.Errorf("checked states %v of 1..%d: want the first and the last among them", idx, res.Distinct)
	}
	// Evenly: the gaps between the states checked differ by one at most.
	lo, hi := res.Distinct, 0
	for i := 1; i < n; i++ {
		lo, hi = min(lo, idx[i]-idx[i-1]), max(hi, idx[i]-idx[i-1])
	}
	if hi-lo > 1 {
		t.Errorf("checked states %v of 1..%d: not spread evenly", idx, res.Distinct)
	}
	// The per-point counts say where: at the last crash point that made a
	// new state.
	last := 0
	for i, p := range res.PointStats {
		if p.New > 0 {
			last = i
		}
	}
	if checked := res.PointStats[last].Checked + res.PointStats[len(res.PointStats)-1].Checked; checked == 0 {
		var at []int
		for _, p := range res.PointStats {
			if p.Checked > 0 {
				at = append(at, p.Line)
			}
		}
		t.Errorf("states checked after lines %v: none after line %d, the last that made a new state, nor at the end", at, res.PointStats[last].Line)
	}
	sum := 0
	for _, p := range res.PointStats {
		sum += p.Checked
	}
	if sum != n {
		t.Errorf("the crash points count %d states checked, want %d", sum, n)
	}

	// One state checked is the last found.
	_, one := checkedStates(t, trace, root, func(o *Options) { o.MaxStates = 1 })
	if !slices.Equal(one, []int{res.Distinct}) {
		t.Errorf("--max-states 1 checked states %v, want [%d]", one, res.Distinct)
	}
	// A bound the run does not reach checks every state.
	all, every := checkedStates(t, trace, root, func(o *Options) { o.MaxStates = res.Distinct })
	if all.Skipped != 0 || len(every) != res.Distinct {
		t.Errorf("--max-states %d: checked %d, skipped %d", res.Distinct, len(every), all.Skipped)
	}
}

// TestMaxStatesShards: the shards of a run cut by --max-states check
// exactly the states the whole run checks, each in one shard, and each
// shard counts every state the bound left out.
func TestMaxStatesShards(t *testing.T) {
	trace, root := appendsTrace(t)
	const n = 7
	whole, want := checkedStates(t, trace, root, func(o *Options) { o.MaxStates = n })
	if len(want) != n || want[n-1] != whole.Distinct {
		t.Fatalf("the whole run checked states %v of 1..%d", want, whole.Distinct)
	}
	for _, shards := range []int{2, 3, 5} {
		var got []int
		for i := 1; i <= shards; i++ {
			res, idx := checkedStates(t, trace, root, func(o *Options) { o.MaxStates, o.Shard, o.Shards = n, i, shards })
			if res.Skipped != whole.Skipped {
				t.Errorf("shard %d/%d: skipped %d, want %d", i, shards, res.Skipped, whole.Skipped)
			}
			// Shard i takes the i-th state kept, and every shards-th after.
			if len(idx) != (n-i+shards)/shards {
				t.Errorf("shard %d/%d: checked states %v of %v", i, shards, idx, want)
			}
			got = append(got, idx...)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%d shards checked states %v, the whole run %v", shards, got, want)
		}
	}
}
