package explore

import (
	"os"
	"path/filepath"
	"testing"
)

// Building a state, hashing it from the base's records and reverting it
// agree with hashing and listing the directory itself.
func TestReuseAgreesWithTheTree(t *testing.T) {
	snap := writeTree(t, map[string]string{
		"config.json":     "{}",
		"named.txt":       "named by the trace",
		"data/a.txt":      "a",
		"data/sub/b.txt":  "b",
		"other/notes.txt": "notes",
	})
	if err := os.Symlink("data/a.txt", filepath.Join(snap, "link")); err != nil {
		t.Fatal(err)
	}
	b, err := newBase(snap, filepath.Join(t.TempDir(), "base"), func(rel string) bool { return rel == "named.txt" })
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := b.populate(dir); err != nil {
		t.Fatal(err)
	}
	clean, err := hashTree(dir, b.known)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := b.hashState(dir, nil); got != clean {
		t.Fatal("an unchanged state does not hash as its tree")
	}
	// What place can do: replace a file, remove a directory, create a
	// file under new parents, put a file where a directory was.
	steps := []struct {
		rel string
		do  func(p string) error
	}{
		{"config.json", func(p string) error {
			os.Remove(p)
			return os.WriteFile(p, []byte(`{"v": 2}`), 0o644)
		}},
		{"other", os.RemoveAll},
		{"new/dir/x.tmp", func(p string) error {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			return os.WriteFile(p, []byte("x"), 0o644)
		}},
		{"data/sub", func(p string) error {
			os.RemoveAll(p)
			return os.WriteFile(p, []byte("now a file"), 0o644)
		}},
	}
	var touched []string
	for _, s := range steps {
		if err := s.do(filepath.Join(dir, s.rel)); err != nil {
			t.Fatal(err)
		}
		touched = append(touched, s.rel)
		want, err := hashTree(dir, b.known)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.hashState(dir, touched)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("after %s: hashState differs from hashTree", s.rel)
		}
		if got == clean {
			t.Errorf("after %s: the changed state hashes as the clean one", s.rel)
		}
	}
	if err := b.revert(dir, touched); err != nil {
		t.Fatal(err)
	}
	if got, _ := hashTree(dir, b.known); got != clean {
		t.Error("the reverted state is not the base's tree")
	}
	if inode(t, filepath.Join(dir, "other/notes.txt")) != inode(t, filepath.Join(b.dir, "other/notes.txt")) {
		t.Error("the reverted state does not link other/notes.txt to the base")
	}
	if inode(t, filepath.Join(dir, "named.txt")) == inode(t, filepath.Join(b.dir, "named.txt")) {
		t.Error("named.txt, named by the trace, is linked instead of copied")
	}
}

// What a checker changes outside the paths a state placed (names made,
// removed and renamed in the base's directories, a private copy written)
// is gone in the next state built in the same directory, with inotify
// telling what changed and without.
func TestCheckerChangesDoNotReachNextState(t *testing.T) {
	watches := []bool{true, false}
	if testing.Short() {
		watches = watches[:1] // -short: inotify, the default, alone
	}
	for _, watch := range watches {
		useInotify = watch
		checkerChangesDoNotReachNextState(t)
	}
	useInotify = true
}

func checkerChangesDoNotReachNextState(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	var lines []string
	for range 2 {
		lines = append(lines,
			`openat(AT_FDCWD, "/R/config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
			`write(3, "{\"v\": 2}", 8) = 8`,
			`close(3) = 0`,
			`rename("/R/config.json.tmp", "/R/config.json") = 0`,
		)
	}
	// named.txt is named (so privately copied into each state), never
	// placed by a state.
	lines = append(lines, `newfstatat(AT_FDCWD, "/R/named.txt", {st_mode=S_IFREG|0644, st_size=5, ...}, 0) = 0`)
	trace := writeTrace(t, root, lines...)
	initial := writeTree(t, map[string]string{
		"config.json":    "{}",
		"named.txt":      "named",
		"data/a.txt":     "a",
		"data/sub/b.txt": "b",
	})
	look := `set -e
test ! -e data/new.txt; test ! -e made.d; test ! -e data/sub/moved.txt; test -f data/a.txt; test -f data/sub/b.txt
test "$(cat named.txt)" = named; test ! -e data/sub2; test "$(stat -c %a data)" = 755
`
	for _, change := range []string{"touch data/new.txt", "mkdir made.d", "mv data/sub/b.txt data/sub/moved.txt", "rm data/a.txt",
		"echo more >> named.txt", "mv data/sub data/sub2; touch data/sub2/c.txt", "chmod 700 data"} {
		checker := look + change
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: checker, Jobs: 1, WorkDir: t.TempDir()})
		if res.Checked < 3 {
			t.Fatalf("inotify %v, %s: checked %d states, want at least 3", useInotify, change, res.Checked)
		}
		for _, f := range res.Findings {
			t.Errorf("inotify %v, %s: a state saw an earlier checker's change: %s", useInotify, change, f.Message)
		}
		// With inotify the change is undone and the directory reused:
		// one worker needs a directory for the checker and one to build
		// the next state in.
		if fresh := res.Built - res.Reused; useInotify && fresh > 3 {
			t.Errorf("inotify, %s: %d of %d states built in a new directory: the checked ones were not reused", change, fresh, res.Built)
		}
	}
}
