package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// A file left as it was, or gone, says nothing of writes that did not
// persist; a file left empty or torn says which of them did.
func TestStateWordsPersisted(t *testing.T) {
	m := New(Options{})
	file := &Inode{ID: 7, Size: 21, pending: []DataOp{{Len: 21, Size: 21}}}
	for _, c := range []struct {
		s    PathState
		want string
	}{
		{PathState{Outcome: Initial, Inode: 7, Persisted: "none"}, "as it was before the run"},
		{PathState{Outcome: Missing, Inode: 7, Persisted: "none"}, "missing"},
		{PathState{Outcome: Empty, Inode: 7, Persisted: "none"}, "empty (none of its pending writes persisted)"},
		{PathState{Outcome: Latest, Inode: 7, Persisted: "all"}, "as the program saw it then (all of its pending writes persisted)"},
		{PathState{Outcome: Torn, Inode: 7, Persisted: "line 4 torn after 10 bytes"}, "torn (some of its new data on disk, some not) (line 4 torn after 10 bytes persisted)"},
	} {
		if got := m.stateWords("/w/f", c.s, file); got != c.want {
			t.Errorf("stateWords(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
	// A file with no write pending (a temp file synced, then renamed):
	// none or all of nothing is not said, and what it holds at its old
	// name is all the program wrote to it (TestMovedAwayWords).
	synced := &Inode{ID: 8, Size: 21, name1: &[1]string{"/w/g"}}
	for _, c := range []struct {
		s    PathState
		want string
	}{
		{PathState{Outcome: Earlier, Inode: 8, Persisted: "none"}, "as the program wrote it, before it was renamed"},
		{PathState{Outcome: Latest, Inode: 8, Persisted: "all"}, "as the program saw it then"},
	} {
		if got := m.stateWords("/w/f", c.s, synced); got != c.want {
			t.Errorf("no write pending: stateWords(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// A name the trace cannot tell existed (an open with O_CREAT, no listing)
// comes back "as it was before the run" after an unlink never synced.
// Before any sync, that may be no file at all; once its directory was
// synced after the open (or the whole machine was), the open's file, had
// there been none, is on disk: an empty file, not no file.
func TestStateWordsUnsureMadeDurably(t *testing.T) {
	const open = "10 openat(AT_FDCWD, \"/srv/d/f\", O_WRONLY|O_CREAT, 0644) = 3\n10 close(3) = 0\n"
	const dirSync = "10 openat(AT_FDCWD, \"/srv/d\", O_RDONLY|O_DIRECTORY) = 4\n10 fsync(4) = 0\n10 close(4) = 0\n"
	const gone = "10 unlink(\"/srv/d/f\") = 0\n10 exit_group(0) = ?\n"
	const none = "as it was before the run, which is no file at all if it did not exist (the trace cannot tell)"
	const empty = "as it was before the run, which is an empty file if it did not exist before (the trace cannot tell)"
	for _, c := range []struct {
		name, trace, want string
	}{
		{"no sync", open + gone, none},
		{"directory synced after the open", open + dirSync + gone, empty},
		{"directory synced before the open", dirSync + open + gone, none},
		{"sync after the open", open + "10 sync() = 0\n" + gone, empty},
		{"another directory synced", open + strings.ReplaceAll(dirSync, "/srv/d\"", "/srv\"") + gone, none},
	} {
		for _, p := range Persistences {
			m := replayTextWith(t, c.trace, parser.Options{}, Options{Persistence: p})
			var words []string
			for _, s := range m.Crash("/srv/d/f", 256).States {
				if s.Outcome == Initial {
					words = append(words, m.StateWords("/srv/d/f", s))
				}
			}
			if len(words) != 1 || words[0] != c.want {
				t.Errorf("%s, under %s: the state as before the run reads %q, want %q", c.name, p, words, c.want)
			}
		}
	}
}

// TestRenamedBeforeRun: the words for a file left as it was before the
// run under another name it had then.
func TestRenamedBeforeRun(t *testing.T) {
	for _, c := range []struct {
		words, p string
		origs    []string
		want     string
	}{
		{"as it was before the run or torn", "/d/db.bak", []string{"/d/db.dir"}, "as db.dir was before the run or torn"},
		{"empty, as it was before the run or torn", "/d/b", []string{"", "/d/a"}, "empty, as it or a was before the run or torn"},
		{"as it was before the run", "/d/log.1", []string{"/e/log"}, "as /e/log was before the run"},
		{"as it was before the run or torn", "/d/f", []string{"", "/d/f"}, "as it was before the run or torn"},
		{"empty or torn", "/d/f", []string{"/d/g"}, "empty or torn"},
		{"as it was before the run", "/d/f", nil, "as it was before the run"},
	} {
		if got := RenamedBeforeRun(c.words, c.p, c.origs); got != c.want {
			t.Errorf("RenamedBeforeRun(%q, %q, %q) = %q, want %q", c.words, c.p, c.origs, got, c.want)
		}
	}
	if got, want := BeforeRunWords("/d/db.bak", "/d/db.dir"), "as db.dir was before the run"; got != want {
		t.Errorf("BeforeRunWords = %q, want %q", got, want)
	}
}

// TestMovedAwayWords: a temp file written once, synced and renamed into
// place, left at its temp name by a crash that kept the rename off the
// disk, holds the one version the program wrote: not "an earlier
// version". A file whose writes a crash can cut keeps the plain words.
func TestMovedAwayWords(t *testing.T) {
	for _, c := range []struct {
		name, trace, want string
	}{
		{"synced, renamed", "1 openat(AT_FDCWD, \"/d/f.new\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"v2\", 2) = 2\n1 fsync(3) = 0\n1 close(3) = 0\n1 rename(\"/d/f.new\", \"/d/f\") = 0\n",
			"as the program wrote it, before it was renamed"},
		{"synced, removed", "1 openat(AT_FDCWD, \"/d/f.new\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"v2\", 2) = 2\n1 fsync(3) = 0\n1 close(3) = 0\n1 unlink(\"/d/f.new\") = 0\n",
			"as the program wrote it, before it was removed"},
	} {
		m := replayTextWith(t, c.trace, parser.Options{}, Options{Existed: func(p string) (bool, bool) { return p == "/d", true }})
		po := m.Crash("/d/f.new", 64)
		found := false
		for _, s := range po.States {
			if s.Outcome != Earlier {
				continue
			}
			found = true
			if got := m.StateWords("/d/f.new", s); got != c.want {
				t.Errorf("%s: %q, want %q", c.name, got, c.want)
			}
		}
		if !found {
			t.Errorf("%s: no earlier state among %v", c.name, po.Outcomes)
		}
	}
}
