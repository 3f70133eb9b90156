package model

import (
	"path"
	"strings"
	"testing"
)

// TestParentDir: parentDir is path.Dir for the clean paths the model
// holds.
func TestParentDir(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b", "/a/b/c.txt", ".", "..", "a", "a/b", "../a", "../../a/b", ""} {
		if got, want := parentDir(p), path.Dir(p); got != want {
			t.Errorf("parentDir(%q) = %q, want %q (path.Dir)", p, got, want)
		}
	}
}

// TestAdversarialParentDirLastElement: parentDir looks at the last element
// only, so that walking up a path of n elements costs n, not n². It used
// to clean the whole path again at every step, and the HTML report of a
// trace whose path had 4,096 elements took minutes. That it does not read
// the rest shows in a prefix it keeps as it is, where path.Dir cleans it.
func TestAdversarialParentDirLastElement(t *testing.T) {
	deep := "/x/../y//z" + strings.Repeat("/a", 4096)
	if got, want := parentDir(deep+"/f"), deep; got != want {
		t.Errorf("parentDir rewrote the prefix: %q...", got[:min(len(got), 20)])
	}
}
