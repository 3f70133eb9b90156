package check

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestTmpfileLink: a file made unnamed (O_TMPFILE) and named by linkat,
// through /proc/self/fd/N with AT_SYMLINK_FOLLOW or with AT_EMPTY_PATH,
// is the file its writes and syncs went to: unsynced, it has the
// findings of any file renamed into place unsynced; synced before the
// link and the directory synced after, none. The linkat used to name an
// inode of its own, and the unsynced save looked clean. crashsim writes
// its own reports this way.
func TestTmpfileLink(t *testing.T) {
	const (
		dir    = `1 openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 3`
		tmp    = `1 openat(AT_FDCWD, "/w", O_WRONLY|O_CLOEXEC|O_TMPFILE, 0600) = 4`
		write  = `1 write(4, "hello", 5) = 5`
		fsync  = `1 fsync(4) = 0`
		proc   = `1 linkat(AT_FDCWD, "/proc/self/fd/4", AT_FDCWD, "/w/out", AT_SYMLINK_FOLLOW) = 0`
		procT  = `1 linkat(AT_FDCWD, "/proc/self/fd/4", AT_FDCWD, "/w/.out.tmp-1", AT_SYMLINK_FOLLOW) = 0`
		empty  = `1 linkat(4, "", AT_FDCWD, "/w/out", AT_EMPTY_PATH) = 0`
		rename = `1 rename("/w/.out.tmp-1", "/w/out") = 0`
		dsync  = `1 fsync(3) = 0`
		closeF = `1 close(4) = 0`
	)
	unsynced := []string{DataNotSynced, DirSyncBeforeData, RenameBeforeSync}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"proc link, synced", []string{dir, tmp, write, fsync, proc, dsync, closeF}, nil},
		{"proc link, not synced", []string{dir, tmp, write, proc, dsync, closeF}, unsynced},
		{"empty path link, synced", []string{dir, tmp, write, fsync, empty, dsync, closeF}, nil},
		{"empty path link, not synced", []string{dir, tmp, write, empty, dsync, closeF}, unsynced},
		{"proc link to a temp name, renamed, synced", []string{dir, tmp, write, fsync, procT, rename, dsync, closeF}, nil},
		{"proc link to a temp name, renamed, not synced", []string{dir, tmp, write, procT, rename, dsync, closeF}, unsynced},
		{"linked, directory not synced", []string{dir, tmp, write, fsync, proc, closeF}, []string{NameNotSynced}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			res := runText(t, text, Options{Existed: func(p string) (bool, bool) { return p == "/w", true }})
			var got []string
			for f, err := range res.Findings() {
				if err != nil {
					t.Fatal(err)
				}
				if f.Path != "/w/out" {
					t.Errorf("a finding on %s: %s", f.Path, f.Message)
				}
				if !slices.Contains(got, f.Rule.ID) {
					got = append(got, f.Rule.ID)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("rules %q, want %q", got, tc.want)
			}
		})
	}
}
