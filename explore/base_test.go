package explore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// withOther is the python-noflush fixture with a file its trace never
// touches, which every state shares with the base.
var withOther = fixture{"python-noflush", map[string]string{
	"config.txt":      "version=1\nreplicas=1\n",
	"other/notes.txt": "untouched\n",
}}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestStatesLinkUnchangedFiles(t *testing.T) {
	res := exploreFixture(t, withOther, "true", func(o *Options) { o.Keep = true })
	base := filepath.Join(res.WorkDir, "base")
	states, err := filepath.Glob(filepath.Join(res.WorkDir, "states", "*"))
	if err != nil || len(states) < 3 {
		t.Fatalf("kept %d state directories (%v), want several", len(states), err)
	}
	shared := inode(t, filepath.Join(base, "other/notes.txt"))
	changed := inode(t, filepath.Join(base, "config.txt"))
	differ := 0
	for _, s := range states {
		if got := inode(t, filepath.Join(s, "other/notes.txt")); got != shared {
			t.Errorf("%s: the untouched file is inode %d, not a link to the base's %d", s, got, shared)
		}
		// A file the trace names is a copy of the state's own, even
		// where it holds the base's bytes.
		if b, err := os.ReadFile(filepath.Join(s, "config.txt")); err == nil {
			if inode(t, filepath.Join(s, "config.txt")) == changed {
				t.Errorf("%s: config.txt, which the trace writes, is the base's inode", s)
			}
			if string(b) != withOther.initial["config.txt"] {
				differ++
			}
		}
		b, err := os.ReadFile(filepath.Join(s, "other/notes.txt"))
		if err != nil || string(b) != "untouched\n" {
			t.Errorf("%s: other/notes.txt holds %q (%v)", s, b, err)
		}
	}
	if differ == 0 {
		t.Error("no state where config.txt differs from its initial content")
	}
	if b, _ := os.ReadFile(filepath.Join(base, "config.txt")); string(b) != withOther.initial["config.txt"] {
		t.Errorf("a state's bytes reached the base: config.txt holds %q", b)
	}
}

// A checker that writes a shared file in place stops the run; the user's
// snapshot keeps its bytes.
func TestCheckerWritingSharedFileStops(t *testing.T) {
	for _, watch := range []bool{true, false} {
		useInotify = watch
		checkerWritingSharedFile(t)
	}
	useInotify = true
}

func checkerWritingSharedFile(t *testing.T) {
	opt := Options{
		Trace:   withOther.trace(),
		Root:    withOther.root(),
		Initial: writeTree(t, withOther.initial),
		Checker: "echo more >> other/notes.txt",
		WorkDir: t.TempDir(),
		Jobs:    1,
	}
	_, err := runTraceErr(t, withOther.trace(), opt)
	if !errors.Is(err, errBaseChanged) {
		t.Fatalf("inotify %v: Run returned %v, want an error that the checker changed a shared file", useInotify, err)
	}
	b, _ := os.ReadFile(filepath.Join(opt.Initial, "other/notes.txt"))
	if string(b) != "untouched\n" {
		t.Errorf("the user's snapshot changed: %q", b)
	}

	// With private copies the same checker is harmless.
	opt.CopyStates = true
	res, err := runTraceErr(t, withOther.trace(), opt)
	if err != nil {
		t.Fatalf("with CopyStates: %v", err)
	}
	if res.Failed != 0 || res.Checked < 3 {
		t.Errorf("with CopyStates: %d of %d states failed", res.Failed, res.Checked)
	}
}

// Linked and copied states are the same states: the same distinct trees,
// the same findings.
func TestLinkedStatesEqualCopies(t *testing.T) {
	linked := exploreFixture(t, withOther, configChecker+" && grep -q untouched other/notes.txt", nil)
	copied := exploreFixture(t, withOther, configChecker+" && grep -q untouched other/notes.txt", func(o *Options) { o.CopyStates = true })
	if linked.Distinct != copied.Distinct || linked.Candidates != copied.Candidates {
		t.Errorf("linked: %d distinct of %d, copied: %d of %d", linked.Distinct, linked.Candidates, copied.Distinct, copied.Candidates)
	}
	if describe(linked) != describe(copied) || len(linked.Findings) == 0 {
		t.Errorf("findings differ (or none):\nlinked:%s\ncopied:%s", describe(linked), describe(copied))
	}
}

func runTraceErr(t testing.TB, trace string, opt Options) (*Result, error) {
	t.Helper()
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return Run(context.Background(), s, opt)
}
