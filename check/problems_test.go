package check

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/source"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/problems.golden")

// TestProblemsGolden groups the findings of every fixture case into
// problems, as TestFixtures checks them (posix, scoped to the case's
// directory), and compares each problem and its consequences with
// testdata/problems.golden, which was read by hand: a change to the
// grouping rules shows up there as a diff to review (go test ./check
// -run TestProblemsGolden -update). Every finding is a member of exactly
// one problem, of its own trace, and there are never more problems than
// findings.
func TestProblemsGolden(t *testing.T) {
	var b strings.Builder
	for _, w := range fixtureWants(t) {
		dir := filepath.Dir(w)
		name := filepath.Base(dir)
		trace := filepath.Join(dir, "f-ttt-y-xx.strace")
		s, err := parser.Open(trace, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		initial := readListing(t, filepath.Join(dir, "initial.list"))
		res, err := Run(s, Options{Roots: []string{"/tmp/crashsim-fixtures/" + name}, Existed: initial.Existed})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		ps, err := Group(res)
		if err != nil {
			t.Fatal(err)
		}
		checkGrouping(t, name, res, ps)
		fmt.Fprintf(&b, "%s: %d problems (%d findings)\n", name, ps.Len(), res.Len())
		for _, p := range ps.List {
			writeProblem(&b, res, p, "/tmp/crashsim-fixtures/"+name+"/")
		}
	}
	golden := filepath.Join("testdata", "problems.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./check -run TestProblemsGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("problems differ from %s (-want +got):\n%s", golden, diff)
	}
}

// writeProblem writes a problem as the golden file holds it: its rule,
// its paths and each member's rule and path, the primary marked.
func writeProblem(b *strings.Builder, res *Result, p *Problem, dir string) {
	kind := ""
	if p.Program {
		kind = " (program)"
	}
	var paths []string
	for _, x := range p.Paths {
		paths = append(paths, strings.TrimPrefix(x, dir))
	}
	fmt.Fprintf(b, "  %s %s%s: %s\n", p.Severity, p.Rule.ID, kind, strings.Join(paths, " "))
	for _, i := range p.Members {
		f, _ := res.At(int(i))
		mark := "-"
		if int(i) == p.Primary {
			mark = "*"
		}
		fmt.Fprintf(b, "    %s %s %s:%d\n", mark, f.Rule.ID, strings.TrimPrefix(f.Path, dir), f.Line)
	}
}

// checkGrouping checks what holds of every grouping: each finding is in
// one problem, which the index names; a problem's members are of one
// trace and its primary is of its rule; no more problems than findings.
func checkGrouping(t *testing.T, name string, res *Result, ps *Problems) {
	t.Helper()
	if ps.Len() > res.Len() {
		t.Errorf("%s: %d problems for %d findings", name, ps.Len(), res.Len())
	}
	if len(ps.Of) != res.Len() {
		t.Fatalf("%s: Of names %d findings of %d", name, len(ps.Of), res.Len())
	}
	seen := make([]int, res.Len())
	for n, p := range ps.List {
		if len(p.Members) == 0 {
			t.Errorf("%s: problem %d has no findings", name, n)
		}
		for _, i := range p.Members {
			seen[i]++
			if int(ps.Of[i]) != n {
				t.Errorf("%s: finding %d is in problem %d, Of says %d", name, i, n, ps.Of[i])
			}
			f, _ := res.At(int(i))
			if !p.Program && f.Trace != p.Trace {
				t.Errorf("%s: problem %d of %s holds a finding of %s", name, n, p.Trace, f.Trace)
			}
		}
		if p.Primary >= 0 {
			f, _ := res.At(p.Primary)
			if f.Rule.ID != p.Rule.ID {
				t.Errorf("%s: problem %d of %s has a primary of %s", name, n, p.Rule.ID, f.Rule.ID)
			}
		} else if !p.Program {
			t.Errorf("%s: problem %d has no primary", name, n)
		}
	}
	for i, k := range seen {
		if k != 1 {
			t.Errorf("%s: finding %d is in %d problems", name, i, k)
		}
	}
}

// TestGroupRules pins the grouping rules of the package docs on findings
// made by hand: the missing flush, a file never synced, a rename before
// the sync, two mistakes in one save, one call site saving several
// files, and a program that never syncs.
func TestGroupRules(t *testing.T) {
	site := func(line int) *source.Location {
		return &source.Location{File: "save.py", Line: line, Function: "save"}
	}
	f := func(rule, path string, line int, src *source.Location) *Finding {
		r, _ := Lookup(rule)
		return &Finding{Rule: r, Path: path, Trace: "t", Line: line, Source: src}
	}
	// sev gives a finding the severity its message calls for (a rule
	// reports some findings below its own severity).
	sev := func(f *Finding, s Severity) *Finding {
		r := *f.Rule
		r.Severity = s
		f.Rule = &r
		return f
	}
	inTrace := func(f *Finding, trace string) *Finding {
		f.Trace = trace
		return f
	}
	type want struct {
		rule    string
		members int
		paths   int
	}
	tests := []struct {
		name     string
		findings []*Finding
		unsynced bool
		want     []want
	}{
		{"missing flush", []*Finding{
			f(FsyncBeforeWrite, "a", 1, nil), f(DataNotSynced, "a", 2, nil), f(RenameBeforeSync, "a", 3, nil), f(DirSyncBeforeData, "a", 4, nil),
		}, false, []want{{FsyncBeforeWrite, 4, 1}}},
		{"never synced: data and name", []*Finding{
			f(DataNotSynced, "a", 2, nil), f(NameNotSynced, "a", 2, nil),
		}, false, []want{{DataNotSynced, 2, 1}}},
		{"rename published before the sync", []*Finding{
			f(RenameBeforeSync, "a", 3, nil), f(DirSyncBeforeData, "a", 5, nil),
		}, false, []want{{RenameBeforeSync, 2, 1}}},
		{"two mistakes in one save", []*Finding{
			f(FsyncBeforeWrite, "a", 1, nil), f(DataNotSynced, "a", 2, nil), f(NameNotSynced, "a", 3, nil),
		}, false, []want{{FsyncBeforeWrite, 2, 1}, {NameNotSynced, 1, 1}}},
		{"one call site, several files", []*Finding{
			f(FsyncBeforeWrite, "a", 1, site(7)), f(DataNotSynced, "a", 2, site(6)),
			f(FsyncBeforeWrite, "b", 11, site(7)), f(DataNotSynced, "b", 12, site(6)),
			f(FsyncBeforeWrite, "c", 21, site(9)),
		}, false, []want{{FsyncBeforeWrite, 4, 2}, {FsyncBeforeWrite, 1, 1}}},
		{"files without a call site stay apart", []*Finding{
			f(FsyncBeforeWrite, "a", 1, nil), f(FsyncBeforeWrite, "b", 11, nil),
		}, false, []want{{FsyncBeforeWrite, 1, 1}, {FsyncBeforeWrite, 1, 1}}},
		{"a program that never syncs", []*Finding{
			f(TruncateInPlace, "c", 1, nil),
			f(DataNotSynced, "a", 2, nil), f(NameNotSynced, "a", 2, nil), f(RenameBeforeSync, "b", 3, nil), f(NameNotSynced, "d", 4, nil),
		}, true, []want{{DataNotSynced, 4, 3}, {TruncateInPlace, 1, 1}}},
		// Names only, no data: the problem goes by the names' rule, not
		// by a data-not-synced no finding in it has.
		{"a program that never syncs and only renames", []*Finding{
			f(NameNotSynced, "new", 1, nil), f(NameNotSynced, "old", 1, nil),
		}, true, []want{{NameNotSynced, 2, 2}}},
		// A rename that published unsynced data is about data: the
		// program-level problem goes by data-not-synced, as before.
		{"a program that never syncs, names first, a rename of data", []*Finding{
			f(NameNotSynced, "d", 1, nil), f(RenameBeforeSync, "b", 3, nil),
		}, true, []want{{DataNotSynced, 2, 2}}},
		// One rename, no directory fsync: the name that can come back
		// and the name that can be missing are one problem, the
		// directory's missing fsync, not one per name; so is a name
		// made in the same directory later. A name in another directory
		// is another fsync to add.
		{"the two names of one rename", []*Finding{
			f(NameNotSynced, "/d/a", 5, nil), f(NameNotSynced, "/d/a.tmp", 5, nil), f(NameNotSynced, "/e/b", 9, nil),
		}, false, []want{{NameNotSynced, 2, 2}, {NameNotSynced, 1, 1}}},
		{"names made in one directory", []*Finding{
			f(NameNotSynced, "/d/00", 3, nil), f(NameNotSynced, "/d/01", 4, nil), f(NameNotSynced, "/d/02", 5, nil), f(NameNotSynced, "/d/02/x", 6, nil),
		}, false, []want{{NameNotSynced, 3, 3}, {NameNotSynced, 1, 1}}},
		// An -ff set: each process's names are in its own file, and a
		// problem is of one trace; the same file's later name in the
		// other trace does not join the first's problem either.
		{"names in one directory from two files of an -ff set", []*Finding{
			inTrace(f(NameNotSynced, "/d/a", 3, nil), "t.100"), inTrace(f(NameNotSynced, "/d/b", 4, nil), "t.101"), inTrace(f(NameNotSynced, "/d/a", 9, nil), "t.101"),
		}, false, []want{{NameNotSynced, 1, 1}, {NameNotSynced, 2, 2}}},
		{"names of two severities in one directory", []*Finding{
			f(NameNotSynced, "/d/sock", 3, nil), sev(f(NameNotSynced, "/d/lock", 4, nil), Warning),
		}, false, []want{{NameNotSynced, 1, 1}, {NameNotSynced, 1, 1}}},
		{"a rename between two directories", []*Finding{
			f(NameNotSynced, "/d/a", 5, nil), f(NameNotSynced, "/e/a", 5, nil),
		}, false, []want{{NameNotSynced, 1, 1}, {NameNotSynced, 1, 1}}},
		{"a program that syncs something", []*Finding{
			f(DataNotSynced, "a", 2, nil), f(RenameBeforeSync, "b", 3, nil),
		}, false, []want{{DataNotSynced, 1, 1}, {RenameBeforeSync, 1, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := &Result{}
			res.Add(tc.findings...)
			if tc.unsynced {
				res.Unsynced = []string{"t"}
			}
			ps, err := Group(res)
			if err != nil {
				t.Fatal(err)
			}
			checkGrouping(t, tc.name, res, ps)
			var got []want
			for _, p := range ps.List {
				got = append(got, want{p.Rule.ID, len(p.Members), len(p.Paths)})
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tc.unsynced && !ps.List[0].Program {
				t.Errorf("the program-level problem is not first")
			}
		})
	}
}

// TestFileRulesJoins: a file joins each problem once, however many
// problems it is in (past eight they are kept in a map) and in whatever
// order its findings come.
func TestFileRulesJoins(t *testing.T) {
	for _, problems := range []int{1, 8, 9, 40} {
		var fr fileRules
		seen := map[int32]bool{}
		for step := range 5 * problems {
			n := int32(step * 7 % problems)
			if got, want := fr.joins(n), !seen[n]; got != want {
				t.Fatalf("%d problems, step %d: joins(%d) = %v, want %v", problems, step, n, got, want)
			}
			seen[n] = true
		}
		if len(seen) != problems {
			t.Fatalf("%d problems: the steps reached %d", problems, len(seen))
		}
	}
}

// TestProgramProblemCountsDirectories: a program that never syncs and
// made a directory as well as files (an archive extracted) is told its
// files and its directory apart, in one trace and in a result that
// joins two.
func TestProgramProblemCountsDirectories(t *testing.T) {
	const trace = `7 execve("/usr/bin/unpack", ["unpack"], 0x7ffd /* 3 vars */) = 0
7 mkdir("/w/out/docs", 0755) = 0
7 openat(AT_FDCWD, "/w/out/docs/a.txt", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
7 write(3, "alpha\n", 6) = 6
7 close(3) = 0
7 openat(AT_FDCWD, "/w/out/docs/b.txt", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
7 write(3, "beta\n", 5) = 5
7 close(3) = 0
7 exit_group(0) = ?
7 +++ exited with 0 +++
`
	path := writeTrace(t, trace)
	opt := Options{Roots: []string{"/w/out"}}
	const want = "in 2 files and 1 directory (docs, a.txt, b.txt)"
	one := checkFile(t, path, opt)
	joined := &Result{}
	joined.Join(checkFile(t, path, opt))
	for name, res := range map[string]*Result{"one trace": one, "joined": joined} {
		ps, err := Group(res)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps.List) == 0 || !ps.List[0].Program {
			t.Fatalf("%s: no program-level problem: %+v", name, ps.List)
		}
		p := ps.List[0]
		if !strings.Contains(p.Message, want) || p.Dirs != 1 {
			t.Errorf("%s: program-level problem says %q with %d directories, want %q and 1", name, p.Message, p.Dirs, want)
		}
	}
}
