package model

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/crashsim/crashsim/parser"
)

// TestEntryOpDirs: an entry op's directories are its changes' parents,
// each once, in order: one for a create, two for a rename between
// directories, and for a directory rename only the two of the rename
// itself, not those of the moved names under it (which renameTree adds
// to its changes after the directories were counted). A create in the
// renamed directory, not yet durable, moves with it: its directory is the
// new path (/b/e), as the directory inode is the same. A directory sync
// then makes durable exactly the ops whose directories are all synced.
func TestEntryOpDirs(t *testing.T) {
	m := replayText(t, `mkdir("/a", 0755) = 0
mkdir("/b", 0755) = 0
mkdir("/a/d", 0755) = 0
openat(AT_FDCWD, "/a/d/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
openat(AT_FDCWD, "/a/x", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4
rename("/a/x", "/b/y") = 0
rename("/a/d", "/b/e") = 0
`, parser.Options{})
	var got [][]string
	for _, op := range m.PendingEntries() {
		got = append(got, op.Dirs())
		if op.NumDirs() != len(op.Dirs()) {
			t.Errorf("%s: NumDirs %d, Dirs %q", op.Kind, op.NumDirs(), op.Dirs())
		}
	}
	want := [][]string{{"/"}, {"/"}, {"/a"}, {"/b/e"}, {"/a"}, {"/a", "/b"}, {"/a", "/b"}}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Fatalf("dirs %q, want %q", got, want)
	}
	last := m.PendingEntries()[len(m.PendingEntries())-1]
	if len(last.Changes) <= 2 {
		t.Fatalf("the directory rename has %d changes: the moved file is not among them", len(last.Changes))
	}

	// Syncing /a covers the ops in /a alone; syncing /b then finishes
	// the renames, and the ops in / and /b/e (ex /a/d) stay pending.
	m.persistEntries(map[string]bool{"/a": true}, 1<<30)
	var kinds []string
	for _, op := range m.PendingEntries() {
		kinds = append(kinds, op.Kind.String()+":"+op.Changes[0].Path)
	}
	wantKinds := []string{"mkdir:/a", "mkdir:/b", "create:/b/e/f", "rename:/a/x", "rename:/a/d"}
	if !slices.Equal(kinds, wantKinds) {
		t.Fatalf("after syncing /a, pending %q, want %q", kinds, wantKinds)
	}
	m.persistEntries(map[string]bool{"/b": true}, 1<<30)
	kinds = kinds[:0]
	for _, op := range m.PendingEntries() {
		kinds = append(kinds, op.Kind.String()+":"+op.Changes[0].Path)
	}
	if wantKinds = []string{"mkdir:/a", "mkdir:/b", "create:/b/e/f"}; !slices.Equal(kinds, wantKinds) {
		t.Fatalf("after syncing /b, pending %q, want %q", kinds, wantKinds)
	}
}

// TestPendingRecordSizes: the records a check keeps per unsynced file and
// model stay in their size classes: a pending write in 80 bytes, a create
// with its one name change in 80, an opRef in 16.
func TestPendingRecordSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"opRef", unsafe.Sizeof(opRef{}), 16},
		{"DataOp", unsafe.Sizeof(DataOp{}), 80},
		{"entryOne", unsafe.Sizeof(entryOne{}), 80},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, more than %d", c.name, c.got, c.want)
		}
	}
}
