package check

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/internal/tmpfile"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// findingView is what a report can show of a finding.
type findingView struct {
	Rule       string
	Severity   Severity
	Path       string
	Trace      string
	Line, PID  int
	Seq        int
	Message    string
	Models     []string
	Related    []Related
	State      *State
	StateIndex int
}

func viewOf(t *testing.T, res *Result) []findingView {
	t.Helper()
	var out []findingView
	var counts Summary
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, findingView{f.Rule.ID, f.Rule.Severity, f.Path, f.Trace, f.Line, f.PID, f.Seq, f.Message, f.Models, f.Related, f.State, f.StateIndex})
		counts.Count(f.Rule.Severity)
	}
	if len(out) != res.Len() {
		t.Errorf("Findings gave %d findings, Len says %d", len(out), res.Len())
	}
	if got := res.Summary; got.Errors != counts.Errors || got.Warnings != counts.Warnings || got.Infos != counts.Infos {
		t.Errorf("the summary counts %+v, the findings are %+v", got, counts)
	}
	for i := range out {
		f, err := res.At(i)
		if err != nil {
			t.Fatal(err)
		}
		if f.Line != out[i].Line || f.Path != out[i].Path || f.Rule.ID != out[i].Rule {
			t.Errorf("At(%d) is %s:%d %s, Findings gave %s:%d %s", i, f.Path, f.Line, f.Rule.ID, out[i].Path, out[i].Line, out[i].Rule)
		}
	}
	return out
}

// inTempDir points TMPDIR at an empty directory and checks, when the test
// ends, that it is empty still: spill files have no name.
func inTempDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	t.Cleanup(func() {
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("TMPDIR holds %s", left[0].Name())
		}
	})
}

// TestSpillSameFindings: over every fixture trace and under every set of
// models, a check that spills all but one or a few findings gives the
// findings and counts of one that keeps them in memory.
func TestSpillSameFindings(t *testing.T) {
	inTempDir(t)
	traces := fixtures.Traces(t, "../fixtures/traces")
	modelSets := [][]model.Persistence{nil, {model.Ext4}, {model.Posix, model.Ext4, model.Xfs, model.Btrfs}}
	spilled := 0
	for _, trace := range traces {
		for _, models := range modelSets {
			run := func(at int) *Result { return runTrace(t, trace, models, at) }
			mem := run(0)
			want := viewOf(t, mem)
			for _, at := range []int{1, 3} {
				res := run(at)
				if len(want) > at && !res.Spilled() {
					t.Errorf("%s: %d findings and SpillAt %d, but nothing spilled", trace, len(want), at)
				}
				if res.Spilled() {
					spilled++
				}
				if diff := cmp.Diff(want, viewOf(t, res)); diff != "" {
					t.Errorf("%s %v SpillAt %d: findings (-memory +spilled):\n%s", trace, models, at, diff)
				}
				if mem.Summary != res.Summary {
					t.Errorf("%s %v SpillAt %d: summary %+v, in memory %+v", trace, models, at, res.Summary, mem.Summary)
				}
				// Group reads a spilled record only in part: its problems
				// must be those of the findings in memory, messages and all.
				wantPs, err := Group(mem)
				if err != nil {
					t.Fatal(err)
				}
				gotPs, err := Group(res)
				if err != nil {
					t.Fatalf("%s %v SpillAt %d: Group: %v", trace, models, at, err)
				}
				if diff := cmp.Diff(wantPs, gotPs, cmp.Comparer(func(a, b *Rule) bool { return a.ID == b.ID && a.Severity == b.Severity })); diff != "" {
					t.Errorf("%s %v SpillAt %d: problems (-memory +spilled):\n%s", trace, models, at, diff)
				}
				for _, sev := range []Severity{Info, Warning, Error, Never} {
					if res.AtLeast(sev) != mem.AtLeast(sev) {
						t.Errorf("%s: AtLeast(%s) = %v spilled, %v in memory", trace, sev, res.AtLeast(sev), mem.AtLeast(sev))
					}
				}
				if err := res.Close(); err != nil {
					t.Error(err)
				}
			}
		}
	}
	if spilled < 20 {
		t.Errorf("only %d checks spilled", spilled)
	}
}

// TestSpillMergeRandom holds the spilled merge to the in-memory one on
// random findings made to collide: the same rule, path and line under
// several models (with different messages, so the wrong one shows), in
// several traces (a -ff set), with models the user did not ask for.
func TestSpillMergeRandom(t *testing.T) {
	inTempDir(t)
	rules := Rules()
	rounds := uint64(200)
	if testing.Short() {
		rounds = 20 // -short: the first seeds of the same rounds
	}
	for seed := range rounds {
		rng := rand.New(rand.NewPCG(seed, 7))
		var want []model.Persistence
		for _, p := range model.Persistences {
			if rng.IntN(2) == 0 {
				want = append(want, p)
			}
		}
		mk := func() []*run {
			rng := rand.New(rand.NewPCG(seed, 8))
			var runs []*run
			for i, p := range model.Persistences[:1+rng.IntN(len(model.Persistences))] {
				r := &run{p: p, index: i}
				n := rng.IntN(40)
				for k := range n {
					f := &Finding{Rule: rules[rng.IntN(3)], Path: fmt.Sprintf("/d/f%d", rng.IntN(4)),
						Trace: fmt.Sprintf("t.%d", 1+rng.IntN(2)), Line: rng.IntN(6), PID: rng.IntN(3),
						Message: fmt.Sprintf("run %d finding %d", i, k), modelSet: 1 << p}
					if rng.IntN(3) == 0 {
						f.Related = []Related{{Trace: f.Trace, Line: k, Syscall: "write", What: "w"}}
					}
					if rng.IntN(4) == 0 {
						f.State = &State{Line: k, Path: f.Path, Outcome: "empty", Persisted: "none"}
					}
					r.findings = append(r.findings, f)
				}
				runs = append(runs, r)
			}
			return runs
		}
		mem := &Result{}
		mem.Add(merge(mk(), want)...)
		for _, at := range []int{1, 2, 5} {
			runs := mk()
			col := &collector{runs: runs, at: at}
			for _, r := range runs {
				fs := r.findings
				r.findings, r.col = nil, col
				for _, f := range fs {
					col.emit(r, f)
				}
			}
			res := &Result{}
			if col.sort == nil {
				res.Add(merge(runs, want)...)
			} else {
				d, err := col.spilledMerge(want, &res.Summary)
				if err != nil {
					t.Fatal(err)
				}
				res.parts = []part{{disk: d}}
			}
			if diff := cmp.Diff(viewOf(t, mem), viewOf(t, res)); diff != "" {
				t.Fatalf("seed %d, models %v, SpillAt %d: findings (-memory +spilled):\n%s", seed, want, at, diff)
			}
			res.Close()
		}
	}
}

// TestSpillFilterJoin: Filter and Join over spilled results keep the
// order and say the same as over findings in memory.
func TestSpillFilterJoin(t *testing.T) {
	inTempDir(t)
	traces := []string{"../fixtures/traces/git-commit/f-ttt-y-xx.strace", "../fixtures/traces/rsync/f-ttt-y-xx.strace", "../fixtures/traces/python-noflush/f-ttt-y-xx.strace"}
	total := func(at []int) *Result {
		out := &Result{}
		for i, trace := range traces {
			s, err := parser.Open(trace, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(s, Options{SpillAt: at[i]})
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			out.Join(res)
		}
		return out
	}
	keep := func(f *Finding) bool { return !strings.Contains(f.Path, "objects") && f.Rule.ID != NameNotSynced }
	want := total([]int{0, 0, 0})
	all := viewOf(t, want)
	if err := want.Filter(keep); err != nil {
		t.Fatal(err)
	}
	kept := viewOf(t, want)
	if len(kept) == 0 || len(kept) == len(all) {
		t.Fatalf("the filter keeps %d of %d", len(kept), len(all))
	}
	for _, at := range [][]int{{1, 0, 2}, {0, 1, 0}, {2, 2, 2}} {
		res := total(at)
		if !res.Spilled() {
			t.Fatalf("%v: not spilled", at)
		}
		if diff := cmp.Diff(all, viewOf(t, res)); diff != "" {
			t.Errorf("%v: joined (-memory +spilled):\n%s", at, diff)
		}
		if diff := cmp.Diff(want.Traces(), res.Traces()); diff != "" {
			t.Errorf("%v: traces (-memory +spilled):\n%s", at, diff)
		}
		if err := res.Filter(keep); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(kept, viewOf(t, res)); diff != "" {
			t.Errorf("%v: filtered (-memory +spilled):\n%s", at, diff)
		}
		if res.Summary != want.Summary {
			t.Errorf("%v: filtered summary %+v, in memory %+v", at, res.Summary, want.Summary)
		}
		for _, sev := range []Severity{Info, Warning, Error} {
			if res.AtLeast(sev) != want.AtLeast(sev) {
				t.Errorf("%v: AtLeast(%s) = %v, in memory %v", at, sev, res.AtLeast(sev), want.AtLeast(sev))
			}
		}
		if err := res.Load(); err != nil {
			t.Fatal(err)
		}
		if res.Spilled() {
			t.Errorf("%v: spilled after Load", at)
		}
		if diff := cmp.Diff(kept, viewOf(t, res)); diff != "" {
			t.Errorf("%v: loaded (-memory +spilled):\n%s", at, diff)
		}
	}
}

// TestSpillNoName: the spill file has no name in TMPDIR while it is in
// use, with O_TMPFILE and without (created O_EXCL and removed at once),
// and it is closed by Close.
func TestSpillNoName(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("noTmpfile=%v", plain), func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			tmpfile.NoTmpfile = plain
			defer func() { tmpfile.NoTmpfile = false }()
			s, err := parser.Open("../fixtures/traces/git-commit/f-ttt-y-xx.strace", parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, err := Run(s, Options{SpillAt: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Spilled() {
				t.Fatal("not spilled")
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("TMPDIR holds %s while the result is open", left[0].Name())
			}
			f := res.parts[0].disk.file.f
			if err := res.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Stat(); err == nil {
				t.Error("the spill file is still open after Close")
			}
		})
	}
}

// TestSpillBadRecord: a spill file changed under crashsim is an error when
// it is read back, not a panic or a wrong finding.
func TestSpillBadRecord(t *testing.T) {
	inTempDir(t)
	s, err := parser.Open("../fixtures/traces/git-commit/f-ttt-y-xx.strace", parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Run(s, Options{SpillAt: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	d := res.parts[0].disk
	for _, junk := range [][]byte{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {3, 1, 1, 200}, {2, 0, 0}} {
		if _, err := d.file.f.WriteAt(junk, d.offs[1]); err != nil {
			t.Fatal(err)
		}
		d.r = nil
		var err error
		n := 0
		for f, e := range res.Findings() {
			if e != nil && f != nil {
				t.Errorf("%x: a finding with the error %v", junk, e)
			}
			err = e
			n++
		}
		if err == nil || n > 2 {
			t.Errorf("%x: %d findings, last error %v: want the sequence to end with an error at the second", junk, n, err)
		}
	}
}

// runTrace checks trace under models, spilling findings past spillAt
// (none when 0).
func runTrace(t *testing.T, trace string, models []model.Persistence, spillAt int) *Result {
	t.Helper()
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Run(s, Options{Models: models, SpillAt: spillAt})
	if err != nil {
		t.Fatalf("%s: %v", trace, err)
	}
	return res
}

// Readings of one spilled result on several goroutines at once each give
// every finding as Result.At does, and its brief as Result.Brief does,
// in any order of reading.
func TestReadingsAtOnce(t *testing.T) {
	inTempDir(t)
	spilled := 0
	for _, trace := range fixtures.Traces(t, "../fixtures/traces") {
		res := runTrace(t, trace, []model.Persistence{model.Posix, model.Ext4}, 2)
		want := viewOf(t, res)
		if res.Spilled() {
			spilled++
		}
		briefs := make([]Finding, len(want))
		for i := range briefs {
			if err := res.Brief(i, &briefs[i]); err != nil {
				t.Fatal(err)
			}
		}
		errs := make(chan string, 4)
		for g := range 4 {
			go func() {
				rd := res.NewReading()
				var f, b Finding
				var st State
				var msg string
				for k := range 3 * len(want) {
					i := (k*(g+1) + g) % len(want) // each its own order, going back too
					if err := rd.Brief(i, &b); err != nil {
						msg = err.Error()
						break
					}
					if diff := cmp.Diff(briefs[i], b, cmpopts.IgnoreUnexported(Finding{}, Rule{}), cmpopts.EquateEmpty()); diff != "" {
						msg = fmt.Sprintf("finding %d (-Result.Brief +Reading.Brief):\n%s", i, diff)
						break
					}
					x, err := rd.AtReuse(i, &f, &st)
					if err != nil {
						msg = err.Error()
						break
					}
					v := findingView{x.Rule.ID, x.Rule.Severity, x.Path, x.Trace, x.Line, x.PID, x.Seq, x.Message, x.Models, x.Related, x.State, x.StateIndex}
					if v.State != nil {
						s := *v.State
						v.State = &s
					}
					if diff := cmp.Diff(want[i], v, cmpopts.EquateEmpty()); diff != "" {
						msg = fmt.Sprintf("finding %d (-At +Reading):\n%s", i, diff)
						break
					}
				}
				errs <- msg
			}()
		}
		for range 4 {
			if msg := <-errs; msg != "" {
				t.Errorf("%s: %s", trace, msg)
			}
		}
		res.Close()
	}
	if spilled < 10 {
		t.Errorf("only %d checks spilled", spilled)
	}
}
