package explore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRootChanged: unjailed, a checker that writes the real root through
// an absolute path is named in Result.RootChanged; one that stays in its
// state directory leaves the list empty.
func TestRootChanged(t *testing.T) {
	noJail = true
	defer func() { noJail = false }()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "keep.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/new.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "new", 3) = 3`,
		`close(3) = 0`,
	)
	stray := filepath.Join(root, "stray.txt")
	for _, c := range []struct {
		checker string
		want    []string
	}{
		{"test -e keep.txt", nil},
		{"echo x > " + stray, []string{root, stray}}, // the directory changed with the new entry
	} {
		initial := writeTree(t, map[string]string{"keep.txt": "old"})
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: c.checker, WorkDir: t.TempDir()})
		if res.Checked == 0 {
			t.Fatalf("%s: no checker ran", c.checker)
		}
		if !slices.Equal(res.RootChanged, c.want) {
			t.Errorf("%s: RootChanged = %q, want %q", c.checker, res.RootChanged, c.want)
		}
	}
}
