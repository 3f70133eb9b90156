package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// replicaTrace writes the same new record into two replicas, a and b,
// without a sync, then creates the commit marker c and syncs it and the
// directory: after a crash, c can be there while neither replica holds
// the record, a state where two files differ from what the program saw.
func replicaTrace(t *testing.T) (trace, root, initial string) {
	root = filepath.Join(t.TempDir(), "root")
	trace = writeTrace(t, root,
		`openat(AT_FDCWD, "/R/a", O_WRONLY|O_TRUNC) = 3`,
		`write(3, "new", 3) = 3`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/R/b", O_WRONLY|O_TRUNC) = 3`,
		`write(3, "new", 3) = 3`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/R/c", O_WRONLY|O_CREAT|O_EXCL, 0666) = 3`,
		`fsync(3) = 0`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/R", O_RDONLY|O_DIRECTORY) = 4`,
		`fsync(4) = 0`,
		`close(4) = 0`,
	)
	return trace, root, writeTree(t, map[string]string{"a": "old", "b": "old"})
}

// replicaChecker accepts a state unless the marker is there and neither
// replica holds the record.
const replicaChecker = `test ! -e c || grep -q new a || grep -q new b`

// A state in which two files differ at once from what the program saw:
// explore builds it (one path at a time, it could not).
func TestJointStateTwoFilesLost(t *testing.T) {
	trace, root, initial := replicaTrace(t)
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: replicaChecker, WorkDir: t.TempDir()})
	if len(res.Findings) == 0 {
		t.Fatalf("no state with c and neither replica's record (%d states checked)", res.Checked)
	}
	for _, f := range res.Findings {
		if !strings.Contains(f.Message, "a ") || !strings.Contains(f.Message, ", b ") {
			t.Errorf("the finding does not name both replicas: %s", f.Message)
		}
	}
	if res.Exhaustive != res.Points || res.Sampled != 0 {
		t.Errorf("%d of %d points exhaustive, %d sampled: want every one exhaustive", res.Exhaustive, res.Points, res.Sampled)
	}
	// Every state the model admits was built.
	for _, p := range res.PointStats {
		if int64(p.Built) != p.Admitted || !p.Exact {
			t.Errorf("after line %d: %d built of %d admitted (exact %v)", p.Line, p.Built, p.Admitted, p.Exact)
		}
	}
}

// Past --max-joint a point is sampled: at most that many states, from the
// families, the one check's finding predicts first; it is never called
// exhaustive, and the random states are the seed's.
func TestSampledPoints(t *testing.T) {
	trace, root, initial := replicaTrace(t)
	run := func(seed uint64) *Result {
		return runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: replicaChecker, WorkDir: t.TempDir(),
			MaxJoint: 3, Samples: 2, Seed: seed, Predict: predictIn(t, trace, root, initial)})
	}
	res := run(7)
	if res.Sampled == 0 {
		t.Fatalf("no point sampled with MaxJoint 3: %+v", res.PointStats)
	}
	var fams Family
	for _, p := range res.PointStats {
		if p.Exhaustive && (p.Admitted > 3 || !p.Exact) {
			t.Errorf("after line %d: %d states admitted, called exhaustive", p.Line, p.Admitted)
		}
		if !p.Exhaustive {
			fams |= p.Families
			// The predicted states are built whatever the room.
			if p.Built > 3 && p.Families&FamilyPredicted == 0 {
				t.Errorf("after line %d: %d states built, MaxJoint is 3", p.Line, p.Built)
			}
		}
	}
	if fams&FamilyPrefix == 0 || fams&FamilyDrop == 0 {
		t.Errorf("families built at sampled points: %v, want prefixes and drops", fams.Names())
	}
	if res.Seed != 7 {
		t.Errorf("seed %d recorded, want 7", res.Seed)
	}
	again := run(7)
	if describe(again) != describe(res) || again.Candidates != res.Candidates || again.Distinct != res.Distinct {
		t.Errorf("two runs with seed 7 differ: %d/%d states%s\nthen %d/%d%s", res.Candidates, res.Distinct, describe(res), again.Candidates, again.Distinct, describe(again))
	}
}

// The states a finding predicts are built at a sampled point before the
// other families: with room for a single state at every point, the one
// demonstrating data-not-synced is that state.
func TestPredictedStateFirst(t *testing.T) {
	res := exploreFixture(t, pyNoFlush, configChecker, func(o *Options) { o.MaxJoint = 1; o.Samples = -1 })
	if res.Families.Predicted == 0 {
		t.Fatalf("no predicted state built: %+v", res.Families)
	}
	found := false
	for _, f := range res.Findings {
		found = found || f.State != nil && f.State.Path == pyNoFlush.root()+"/config.txt" && (f.State.Outcome == "empty" || f.State.Outcome == "zeros")
	}
	if !found {
		t.Errorf("the state check predicts (config.txt empty or zeros) was not checked:%s", describe(res))
	}
}

// With EveryLine a tree is checked at each crash point that leaves it;
// by default once, at the last, with the first in CRASHSIM_FIRST_LINE.
func TestEveryLine(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/f", O_WRONLY|O_CREAT|O_EXCL, 0666) = 3`,
		`write(3, "x", 1) = 1`,
		`write(3, "y", 1) = 1`,
		`fsync(3) = 0`,
	)
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir)
	for _, every := range []bool{false, true} {
		log := filepath.Join(logDir, "log")
		os.Remove(log)
		checker := `test -e f || echo "$CRASHSIM_CRASH_LINE $CRASHSIM_FIRST_LINE" >>` + log
		runTrace(t, trace, Options{Trace: trace, Root: root, Checker: checker, Jobs: 1, Persistence: model.Posix, EveryLine: every,
			WorkDir: t.TempDir(), Timeout: time.Minute, Existed: func(string) (bool, bool) { return false, true }})
		b, _ := os.ReadFile(log)
		// No f: before the first event, and as long as its name is not
		// durable (up to the fsync at line 4, which syncs no directory).
		want := "4 0\n"
		if every {
			want = "0 0\n1 0\n2 0\n3 0\n4 0\n"
		}
		if string(b) != want {
			t.Errorf("every line %v: the checker saw the state without f at\n%s, want\n%s", every, b, want)
		}
	}
}

// predictIn is check's findings on a trace whose root held initial.
func predictIn(t *testing.T, trace, root, initial string) []*check.Finding {
	t.Helper()
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := check.Run(s, check.Options{Roots: []string{root}, Existed: ExistedIn(root, initial)})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := res.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatal("check finds nothing")
	}
	return fs
}

// A rejected state's finding is about the file check reports a loss of,
// not the first path the state changes: a temp file ("0.tmp", first by
// name) still empty beside a.json left empty goes into a.json's problem.
// The temp file is renamed to b.json later, so no finding names 0.tmp.
func TestPrimaryIsTheLostFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/a.json", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3`,
		`write(3, "{}", 2) = 2`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/R/0.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`,
		`write(3, "{}", 2) = 2`,
		`close(3) = 0`,
		`rename("/R/0.tmp", "/R/b.json") = 0`,
	)
	initial := writeTree(t, map[string]string{})
	opt := Options{Trace: trace, Root: root, Initial: initial, WorkDir: t.TempDir(),
		Checker: `test ! -e a.json || grep -q '^{}' a.json`, Predict: predictIn(t, trace, root, initial)}
	res := runTrace(t, trace, opt)
	joint := 0
	for _, f := range res.Findings {
		if f.Path != filepath.Join(root, "a.json") {
			t.Errorf("a rejected state goes by %s, not a.json: %s", f.Path, f.Message)
		}
		if strings.Contains(f.State.Words, "0.tmp") {
			joint++
		}
		// The other paths follow one "with": "a.json empty (...), with
		// 0.tmp empty (...), b.json missing".
		if n := strings.Count(f.State.Words, ", with "); n > 1 {
			t.Errorf("%d times \", with \" in the state's words: %s", n, f.State.Words)
		}
	}
	if joint == 0 {
		t.Fatalf("no rejected state with 0.tmp changed too; the test needs one:\n%s", describe(res))
	}
}

// TestPrimaryIsTheWorstLoss: three files saved in turn, each by a temp
// file renamed over it, and one directory fsync at the end: f1 and f0
// synced before their renames, f2 not. check has a warning on each name
// (rename-before-dir-sync) and an error on f2's data; a state the checker
// rejects for f2 empty, beside f1 and f0 as they were, goes into f2's
// problem, not f1's, whose name comes first.
func TestPrimaryIsTheWorstLoss(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	var lines []string
	for _, f := range []string{"f1", "f2", "f0"} {
		lines = append(lines, `openat(AT_FDCWD, "/R/`+f+`.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`, `write(3, "new", 3) = 3`)
		if f != "f2" {
			lines = append(lines, `fsync(3) = 0`)
		}
		lines = append(lines, `close(3) = 0`, `rename("/R/`+f+`.tmp", "/R/`+f+`") = 0`)
	}
	lines = append(lines, `openat(AT_FDCWD, "/R", O_RDONLY|O_DIRECTORY) = 4`, `fsync(4) = 0`, `close(4) = 0`)
	trace := writeTrace(t, root, lines...)
	initial := writeTree(t, map[string]string{"f0": "old", "f1": "old", "f2": "old"})
	opt := Options{Trace: trace, Root: root, Initial: initial, WorkDir: t.TempDir(),
		Checker: `for f in f0 f1 f2; do grep -qx 'old\|new' $f || exit 1; done`, Predict: predictIn(t, trace, root, initial)}
	res := runTrace(t, trace, opt)
	if len(res.Findings) == 0 {
		t.Fatalf("no state rejected; the test needs f2 empty:\n%s", describe(res))
	}
	for _, f := range res.Findings {
		if f.Path != filepath.Join(root, "f2") {
			t.Errorf("a rejected state goes by %s, not f2: %s", f.Path, f.Message)
		}
	}
}

// TestBoundNotBelowBuilt: past the pending entry operations the model
// counts every subset of (ten, under posix), its count of a point's
// states is a lower bound from two configurations, none and all of them
// persisted, which fell below the states explore built there: "at least
// 2 states, 32 built". Each state built is a distinct one the model
// admits, so the bound is at least their number, and so is the sum.
func TestBoundNotBelowBuilt(t *testing.T) {
	root := t.TempDir()
	var lines []string
	for i := range 12 {
		lines = append(lines, fmt.Sprintf(`openat(AT_FDCWD, "/R/f%d", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`, i), `close(3) = 0`)
	}
	trace := writeTrace(t, root, lines...)
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: writeTree(t, nil), Checker: "true", Jobs: 2, Timeout: 20 * time.Second, WorkDir: t.TempDir()})
	inexact := 0
	for _, p := range res.PointStats {
		if p.Exact {
			continue
		}
		inexact++
		if p.Admitted < int64(p.Built) {
			t.Errorf("after line %d: the model admits at least %d states, and %d were built there", p.Line, p.Admitted, p.Built)
		}
	}
	if inexact == 0 {
		t.Fatalf("no point's count is a bound; the test needs one")
	}
	if res.Admitted < int64(res.Candidates) {
		t.Errorf("the model admits at least %d states in all, and %d were built", res.Admitted, res.Candidates)
	}
}
