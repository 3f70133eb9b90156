package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCodeAround: the lines around a call site, as a compiler shows them,
// cut when too long; nothing for a file that is not there or not regular,
// or a line it does not have.
func TestCodeAround(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "save.py")
	long := strings.Repeat("é", maxCodeLine)
	if err := os.WriteFile(src, []byte("a\nb\nc\nd\ne\n"+long+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []HTMLCode{{2, "b"}, {3, "c"}, {4, "d"}}
	if diff := cmp.Diff(want, codeAround(src, 3, 1)); diff != "" {
		t.Errorf("lines around 3 (-want +got):\n%s", diff)
	}
	if got := codeAround(src, 1, 2); len(got) != 3 || got[0].N != 1 {
		t.Errorf("lines around 1: %+v", got)
	}
	got := codeAround(src, 6, 0)
	if len(got) != 1 || len(got[0].Text) > maxCodeLine+len("…") || !strings.HasSuffix(got[0].Text, "…") || !strings.HasPrefix(got[0].Text, "é") {
		t.Errorf("a long line: %+v", got)
	}
	for _, tc := range []struct {
		name string
		line int
	}{{src, 9}, {src, 0}, {dir, 1}, {filepath.Join(dir, "gone.py"), 1}} {
		if got := codeAround(tc.name, tc.line, 2); got != nil {
			t.Errorf("%s:%d: %+v, want nothing", tc.name, tc.line, got)
		}
	}
}
