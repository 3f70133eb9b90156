package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestParentOpenedWithoutODirectory: a directory a program opens O_RDONLY,
// without O_DIRECTORY, and fsyncs is a directory when a path below it
// names a file, whether the file is opened before the directory or after
// (PostgreSQL's fsync of pg_xact after writing pg_xact/0000): its fsync is
// a directory sync, not a file's.
func TestParentOpenedWithoutODirectory(t *testing.T) {
	existed := func(p string) (bool, bool) { return strings.HasPrefix(p, "/w/"), true }
	for name, trace := range map[string]string{
		"file first": `1 openat(AT_FDCWD, "/w/pg_xact/0000", O_RDWR|O_CREAT, 0600) = 5
1 pwrite64(5, "ab", 2, 0) = 2
1 close(5) = 0
1 openat(AT_FDCWD, "/w/pg_xact", O_RDONLY) = 5
1 fsync(5) = 0
`,
		"directory first": `1 openat(AT_FDCWD, "/w/pg_xact", O_RDONLY) = 4
1 openat(AT_FDCWD, "/w/pg_xact/0000", O_RDWR) = 5
1 pwrite64(5, "ab", 2, 0) = 2
1 fsync(4) = 0
`,
	} {
		t.Run(name, func(t *testing.T) {
			var kinds []EffectKind
			replayTextWith(t, trace, parser.Options{}, Options{Existed: existed, Observe: func(_ *Model, e *Effect) {
				if e.Event != nil && e.Event.Name == "fsync" {
					kinds = append(kinds, e.Kind)
				}
			}})
			if len(kinds) != 1 || kinds[0] != EffDirSync {
				t.Errorf("fsync effects %v, want one directory sync (%v)", kinds, EffDirSync)
			}
		})
	}
}
