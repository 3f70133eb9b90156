package check

import (
	"strings"
	"testing"
)

// fsync-before-write says the sync "covered nothing" only when no write
// of the file was ever made durable: Python's f.write() then os.fsync()
// without f.flush(). A file written, synced and written again had its
// first bytes covered, and the finding says so.
func TestFsyncBeforeWriteWords(t *testing.T) {
	const open = "100 openat(AT_FDCWD, \"/w/a\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
	const end = "100 close(3) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, body, words string
	}{
		{"nothing written before the sync", "100 fsync(3) = 0\n100 write(3, \"v1\", 2) = 2\n", "a was synced before its data was written: the sync covered nothing,"},
		{"a write before the sync", "100 write(3, \"v1\", 2) = 2\n100 fsync(3) = 0\n100 write(3, \"v2\", 2) = 2\n", "a was synced, then written again: the sync covered only what was written before it,"},
		{"a write synced by an earlier sync", "100 write(3, \"v1\", 2) = 2\n100 fdatasync(3) = 0\n100 fsync(3) = 0\n100 write(3, \"v2\", 2) = 2\n", "the sync covered only what was written before it,"},
	} {
		res := runText(t, open+c.body+end, Options{Roots: []string{"/w"}})
		found := false
		for _, f := range res.findings {
			if f.Rule.ID == FsyncBeforeWrite {
				found = true
				if !strings.Contains(f.Message, c.words) {
					t.Errorf("%s: %q; want it to say %q", c.name, f.Message, c.words)
				}
			}
		}
		if !found {
			t.Errorf("%s: no fsync-before-write finding", c.name)
		}
	}
}
