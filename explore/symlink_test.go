package explore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSnapshotSymlinks: symlinks the snapshot holds are built as
// symlinks with the snapshot's targets in every state, never followed:
// one the trace renames a new symlink over (update-alternatives' second
// install), one it writes through (the bytes went to the target, outside
// the root), one it unlinks, one it never names, a dangling one and a
// relative one that climbs out of the state directory. The file they
// all point at, outside the state directory, is never written.
func TestSnapshotSymlinks(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "root") // never created: only mapped
	secret := filepath.Join(top, "secret")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Lstat(secret)
	if err != nil {
		t.Fatal(err)
	}
	trace := writeTrace(t, root,
		`symlink("/R/b", "/R/link.tmp") = 0`,
		`rename("/R/link.tmp", "/R/link") = 0`,
		`openat(AT_FDCWD, "/R/through", O_WRONLY|O_APPEND) = 3`,
		`write(3, "through", 7) = 7`,
		`fsync(3) = 0`,
		`close(3) = 0`,
		`unlink("/R/gone") = 0`,
	)
	initial := writeTree(t, map[string]string{"b": "new"})
	want := map[string]string{
		"link":      secret,
		"through":   secret,
		"gone":      secret,
		"untouched": secret,
		"dangling":  "/nonexistent/crashsim-test",
		"up":        "../../../../secret",
	}
	for name, target := range want {
		if err := os.Symlink(target, filepath.Join(initial, name)); err != nil {
			t.Fatal(err)
		}
	}
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: "true", Keep: true, Timeout: 20 * time.Second, WorkDir: t.TempDir()})

	after, err := os.Lstat(secret)
	if b, _ := os.ReadFile(secret); err != nil || string(b) != "keep" || !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("the file the snapshot's symlinks point at was written: %q", b)
	}
	if _, err := os.Lstat(root); err == nil {
		t.Errorf("%s was created", root)
	}
	states, _ := filepath.Glob(filepath.Join(res.WorkDir, "states", "*"))
	if len(states) != res.Distinct || res.Distinct < 3 {
		t.Fatalf("%d state directories, %d distinct states", len(states), res.Distinct)
	}
	newLink, goneSeen := false, false
	for _, d := range states {
		for name, target := range want {
			p := filepath.Join(d, name)
			fi, err := os.Lstat(p)
			if name == "gone" && err != nil {
				goneSeen = true
				continue
			}
			if err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s: not a symlink (%v)", p, err)
				continue
			}
			got, _ := os.Readlink(p)
			if name == "link" && got == filepath.Join(root, "b") {
				newLink = true
				continue
			}
			if got != target {
				t.Errorf("%s points at %s, want %s", p, got, target)
			}
		}
	}
	if !newLink || !goneSeen {
		t.Errorf("no state with the new link (%v), none without gone (%v)", newLink, goneSeen)
	}
}
