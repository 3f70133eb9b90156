package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// A state in which each path is predicted but the paths together are
// not: the journal missing while log's append is on disk, which posix
// admits and the ordered models do not (an append persists with the
// names made before it). jointFits must tell the two apart, and accept
// under ext4 the states it has: log appended to with the journal there,
// or log as it was with the journal missing.
func TestJointFits(t *testing.T) {
	dir := t.TempDir()
	work := "/w"
	trace := strings.Join([]string{
		`openat(AT_FDCWD, "/w/journal", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 5`,
		`openat(AT_FDCWD, "/w/log", O_WRONLY|O_APPEND) = 3`,
		`fstat(3, {st_mode=S_IFREG|0644, st_size=4, ...}) = 0`,
		`write(3, "two\n", 4) = 4`,
	}, "\n") + "\n"
	tr := filepath.Join(dir, "t.strace")
	if err := os.WriteFile(tr, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := model.ReadInitial(strings.NewReader("root /w\n/w/log\n"), "initial.list")
	if err != nil {
		t.Fatal(err)
	}
	f := func(s string) Entry { return Entry{Kind: "file", Size: int64(len(s)), Sum: s} }
	initial := Tree{"log": f("one\n")}
	live := Tree{"log": f("one\ntwo\n"), "journal": f("")}
	for _, c := range []struct {
		p    model.Persistence
		tree Tree
		fits bool
	}{
		{model.Posix, Tree{"log": f("one\ntwo\n")}, true},
		{model.Ext4, Tree{"log": f("one\ntwo\n")}, false},
		{model.Ext4, Tree{"log": f("one\ntwo\n"), "journal": f("")}, true},
		{model.Ext4, Tree{"log": f("one\n")}, true},
	} {
		r := &runner{work: work, listing: l, initial: initial}
		r.opt.MaxStates = 256
		var last *model.Point
		if err := r.replay(tr, c.p, func(_ *parser.Event, mp *model.Point) {
			if mp != nil {
				last = mp
			}
		}); err != nil {
			t.Fatal(err)
		}
		pred := map[string][]model.Outcome{}
		for path, po := range last.All() {
			if rel, ok := strings.CutPrefix(path, work+"/"); ok {
				pred[rel] = po.Outcomes
			}
		}
		pv := &pointView{view: view{pred: pred, h: history{initial: initial, latest: live, earlier: map[string]bool{}}}}
		pv.joint = r.jointOf(last, pred, nil)
		if pv.joint == nil {
			t.Fatalf("under %s: no joint view (%d states, exact %v)", c.p, last.States, last.Exact)
		}
		views := map[int]*pointView{1: pv}
		got, words := r.jointFits([]int{1}, views, matchIn(c.tree, views))
		if got != c.fits {
			t.Errorf("under %s, %v: jointFits %v (%s), want %v", c.p, c.tree, got, words, c.fits)
		}
		if !got && !strings.Contains(words, "journal missing") {
			t.Errorf("under %s: the words %q do not say the journal is missing", c.p, words)
		}
	}
}

// The words of a mismatch of the paths together name, at the point's own
// view, the paths whose outcome varies there and those that fit only at
// the other candidate (a state during the call: the point before, or
// this one).
func TestJointFitsWords(t *testing.T) {
	f := func(s string) Entry { return Entry{Kind: "file", Size: int64(len(s)), Sum: s} }
	h := history{initial: Tree{}, latest: Tree{"a": f("a"), "b": f("b")}, earlier: map[string]bool{}}
	paths := []string{"a", "b"}
	L, M := model.Latest, model.Missing
	views := map[int]*pointView{
		1: {view: view{pred: map[string][]model.Outcome{"a": {M, L}, "b": {M}}, h: h},
			joint: &jointView{paths: paths, rows: [][]model.Outcome{{M, M}, {L, M}}}},
		2: {view: view{pred: map[string][]model.Outcome{"a": {L}, "b": {M, L}}, h: h},
			joint: &jointView{paths: paths, rows: [][]model.Outcome{{L, M}, {L, L}}}},
	}
	r := &runner{}
	ok, words := r.jointFits([]int{1, 2}, views, matchIn(Tree{"b": f("b")}, views))
	if ok || words != "a missing, b latest" {
		t.Errorf("jointFits = %v %q, want false \"a missing, b latest\"", ok, words)
	}
	if ok, _ := r.jointFits([]int{1, 2}, views, matchIn(Tree{"a": f("a"), "b": f("b")}, views)); !ok {
		t.Errorf("a and b as the program saw them does not fit, though point 2 has it")
	}
}
