package check

import (
	"strings"
	"testing"
)

// TestDirSyncBeforeDataNamesTheDurableName: dir-sync-before-data names
// the name the directory fsync made durable. dpkg pads updates/tmp.i,
// syncs the directory, and only later writes the record, syncs it and
// renames it to updates/0000: the finding is about tmp.i, and 0000 was
// never durable with its data missing. When the fsync covers the rename
// itself (a temp file renamed unsynced), the name is the new one.
func TestDirSyncBeforeDataNamesTheDurableName(t *testing.T) {
	const (
		dir     = `1 openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 3`
		create  = `1 openat(AT_FDCWD, "/w/tmp.i", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4`
		pad     = `1 write(4, "#padding\n", 9) = 9`
		dsync   = `1 fsync(3) = 0`
		record  = `1 pwrite64(4, "record\n", 7, 0) = 7`
		trunc   = `1 ftruncate(4, 7) = 0`
		fsync   = `1 fsync(4) = 0`
		closeF  = `1 close(4) = 0`
		renameI = `1 rename("/w/tmp.i", "/w/0000") = 0`
	)
	for _, tc := range []struct {
		name     string
		lines    []string
		wantPath string
	}{
		{"synced before a later rename (dpkg)", []string{dir, create, pad, dsync, record, trunc, fsync, closeF, renameI, dsync}, "/w/tmp.i"},
		{"renamed unsynced, then the directory synced", []string{dir, create, pad, closeF, renameI, dsync}, "/w/0000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			res := runText(t, text, Options{Existed: func(p string) (bool, bool) { return p == "/w", true }})
			n := 0
			for f, err := range res.Findings() {
				if err != nil {
					t.Fatal(err)
				}
				if f.Rule.ID != DirSyncBeforeData {
					continue
				}
				n++
				base := tc.wantPath[strings.LastIndexByte(tc.wantPath, '/')+1:]
				if f.Path != tc.wantPath || !strings.Contains(f.Message, "made "+base+" durable") {
					t.Errorf("finding on %s: %s; want it on %s", f.Path, f.Message, tc.wantPath)
				}
				if f.State == nil || f.State.Path != tc.wantPath {
					t.Errorf("its crash state: %+v, want one of %s", f.State, tc.wantPath)
				}
			}
			if n != 1 {
				t.Errorf("%d dir-sync-before-data findings, want 1", n)
			}
		})
	}
}
