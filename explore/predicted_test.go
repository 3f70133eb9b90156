package explore

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestPredictedByState: a finding of check foresees a rejected state when
// what it says a crash can leave at its path is what the state holds
// there, and its window has begun by the crash point. Before, any finding
// about the same path at an earlier line counted: a torn record was
// "predicted by name-not-synced", whose state is the file missing, and a
// finding reported after the crash line (a directory fsync that exposes an
// earlier unsynced write) got no credit for a state its window covers.
func TestPredictedByState(t *testing.T) {
	rule := func(id string) *check.Rule {
		r, ok := check.Lookup(id)
		if !ok {
			t.Fatalf("no rule %s", id)
		}
		return r
	}
	finding := func(id string, line int, st check.State, related ...int) *check.Finding {
		f := &check.Finding{Rule: rule(id), Path: "/R/log", Line: line, Seq: line, State: &st}
		for _, l := range related {
			f.Related = append(f.Related, check.Related{Line: l})
		}
		return f
	}
	on := func(p string, f *check.Finding) *check.Finding { f.Path = p; return f }
	missing := check.State{Line: 13, Path: "/R/log", Outcome: string(model.Missing)}
	empty := check.State{Line: 13, Path: "/R/log", Outcome: string(model.Empty), Outcomes: []model.Outcome{model.Empty, model.Zeros, model.Torn}}
	// A state rejected at crash line at, holding outcome o at path p, a
	// file that also had the names paths.
	rejected := func(at int, p string, o model.Outcome, paths ...string) *state {
		return &state{line: at, event: &model.Ref{Seq: at, Line: at}, diffs: []diff{{path: p, ps: model.PathState{Outcome: o}, paths: append([]string{p}, paths...)}}}
	}
	tests := []struct {
		name    string
		predict []*check.Finding
		s       *state
		want    []string
	}{
		{"a torn record is not the name missing", []*check.Finding{finding(check.NameNotSynced, 2, missing)}, rejected(6, "/R/log", model.Torn), nil},
		{"the name missing", []*check.Finding{finding(check.NameNotSynced, 2, missing)}, rejected(6, "/R/log", model.Missing), []string{check.NameNotSynced}},
		{"an outcome the message names", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/log", model.Zeros), []string{check.DataNotSynced}},
		{"an outcome it does not name", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/log", model.Earlier), nil},
		{"another name of the file", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/log.tmp", model.Empty, "/R/log"), []string{check.DataNotSynced}},
		{"another name of the file missing", []*check.Finding{finding(check.NameNotSynced, 2, missing)}, rejected(6, "/R/log~", model.Missing, "/R/log"), nil},
		{"another file", []*check.Finding{finding(check.DataNotSynced, 4, empty)}, rejected(6, "/R/other", model.Empty), nil},
		{"reported later, its window begun", []*check.Finding{finding(check.DirSyncBeforeData, 10, empty, 3, 8, 10)}, rejected(5, "/R/log", model.Empty), []string{check.DirSyncBeforeData}},
		{"its window not yet begun", []*check.Finding{finding(check.DirSyncBeforeData, 10, empty, 8, 10)}, rejected(5, "/R/log", model.Empty), nil},
		// remove-before-sync names the read of the file it removes (3)
		// and the create of the copy (8); the name is lost by its unlink
		// (12), not before.
		{"a name lost before the finding's call", []*check.Finding{finding(check.RemoveBeforeSync, 12, missing, 3, 8, 12)}, rejected(10, "/R/log", model.Missing), nil},
		{"a name lost by the finding's call", []*check.Finding{finding(check.RemoveBeforeSync, 12, missing, 3, 8, 12)}, rejected(12, "/R/log", model.Missing), []string{check.RemoveBeforeSync}},
		{"another name lost before the finding's call", []*check.Finding{finding(check.RemoveBeforeSync, 12, missing, 3, 8, 12)}, rejected(10, "/R/log~", model.Missing, "/R/log"), nil},
		// A state that changes two files names the file each finding
		// is about: the checker may have failed on the other (Exim's
		// -D missing beside a message log check foresaw missing).
		{"two files, the finding about one", []*check.Finding{finding(check.NameNotSynced, 2, missing)}, &state{line: 6, event: &model.Ref{Seq: 6, Line: 6}, diffs: []diff{
			{path: "/R/log", ps: model.PathState{Outcome: model.Missing}, paths: []string{"/R/log"}},
			{path: "/R/m-D", ps: model.PathState{Outcome: model.Missing}, paths: []string{"/R/m-D"}},
		}}, []string{check.NameNotSynced + " on log"}},
		// One rule's findings about each of two files: both, the file
		// the state's problem goes by first (chpasswd's etc/shadow lost
		// was "predicted by name-not-synced on etc/.pwd.lock").
		{"two files, one rule's finding about each", []*check.Finding{on("/R/lock", finding(check.NameNotSynced, 2, missing)), on("/R/shadow", finding(check.NameNotSynced, 3, missing))},
			&state{line: 6, event: &model.Ref{Seq: 6, Line: 6}, primary: 1, diffs: []diff{
				{path: "/R/lock", ps: model.PathState{Outcome: model.Missing}, paths: []string{"/R/lock"}},
				{path: "/R/shadow", ps: model.PathState{Outcome: model.Missing}, paths: []string{"/R/shadow"}},
			}}, []string{check.NameNotSynced + " on shadow", check.NameNotSynced + " on lock"}},
	}
	for _, tc := range tests {
		e := &explorer{opt: Options{Predict: tc.predict, Root: "/R"}}
		if got := e.predicted(tc.s); !slices.Equal(got, tc.want) {
			t.Errorf("%s: predicted by %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSeenEmptyBlamed: a state the checker rejects right after the
// program truncated its file to rewrite it holds that file as the program
// saw it, empty. It was filed under the paths that differed from the
// program's view (the backup not yet on disk), with no rule to predict
// it, as a problem of its own beside truncate-in-place's; it now goes
// under the truncated file, predicted by truncate-in-place, as Vim's save
// with backupcopy=yes showed.
func TestSeenEmptyBlamed(t *testing.T) {
	root := t.TempDir()
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/f.txt", O_RDONLY) = 3`,
		`read(3, "line1\n", 8192) = 6`,
		`openat(AT_FDCWD, "/R/f.txt~", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4`,
		`write(4, "line1\n", 6) = 6`,
		`close(4) = 0`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/R/f.txt", O_WRONLY) = 3`,
		`ftruncate(3, 0) = 0`,
		`write(3, "line1hello\n", 11) = 11`,
		`fsync(3) = 0`,
		`close(3) = 0`,
		`unlink("/R/f.txt~") = 0`,
		`exit_group(0) = ?`,
		`+++ exited with 0 +++`,
	)
	const truncLine = 8
	initial := writeTree(t, map[string]string{"f.txt": "line1\n"})
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cres, err := check.Run(s, check.Options{Roots: []string{root}, Existed: ExistedIn(root, initial)})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	fs, err := cres.List()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(fs, func(f *check.Finding) bool { return f.Rule.ID == check.TruncateInPlace }) {
		t.Fatalf("check reports no truncate-in-place; the test needs it")
	}
	// --every-line checks each tree at every crash line that leaves it:
	// the states right after the ftruncate are checked there, where f.txt
	// is what the program saw.
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, EveryLine: true, Predict: fs,
		Checker: `c=$(cat f.txt) && { [ "$c" = line1 ] || [ "$c" = line1hello ]; }`, Timeout: 20 * time.Second, WorkDir: t.TempDir()})
	atTrunc := 0
	for _, f := range res.Findings {
		if f.Line != truncLine {
			continue
		}
		atTrunc++
		if f.Path != filepath.Join(root, "f.txt") {
			t.Errorf("a state rejected right after the ftruncate is filed under %s, not f.txt: %s", f.Path, f.Message)
		}
		if !strings.Contains(f.Message, "f.txt empty as the program saw it") || !strings.HasSuffix(f.Message, "predicted by truncate-in-place") && !strings.HasSuffix(f.Message, "predicted by truncate-in-place on f.txt") {
			t.Errorf("a state rejected right after the ftruncate does not say f.txt is empty, predicted by truncate-in-place: %s", f.Message)
		}
	}
	if atTrunc < 2 {
		t.Fatalf("%d states rejected right after the ftruncate, want 2 or more (f.txt~ missing, and as the program saw it):%s", atTrunc, describe(res))
	}
}
