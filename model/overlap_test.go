package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestSyncCoversWhatCompletedBefore: a sync makes sure only of what had
// completed when it was called. Under -f strace cuts a call in two when
// another thread's lines come before it returns; a write or a create
// that completed in between may have missed the sync, and stays pending
// after it. The same calls completed before the sync began are covered.
func TestSyncCoversWhatCompletedBefore(t *testing.T) {
	// Thread 101 names the file by the fd's -y path (its fd table is
	// not known to be 100's: no clone in these lines).
	const open = "100 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n100 write(3, \"aaaa\", 4) = 4\n"
	for _, c := range []struct {
		name    string
		lines   string
		p       Persistence
		path    string
		data    bool // /d/f's data pending at the end
		pending bool // path's name pending at the end
	}{
		{"write beside an fsync", "100 fsync(3 <unfinished ...>\n101 write(3</d/f>, \"bbbb\", 4) = 4\n100 <... fsync resumed>) = 0\n", Posix, "/d/f", true, true},
		{"write before an fsync", "101 write(3</d/f>, \"bbbb\", 4) = 4\n100 fsync(3 <unfinished ...>\n100 <... fsync resumed>) = 0\n", Posix, "/d/f", false, true},
		{"write beside a sync", "100 sync( <unfinished ...>\n101 write(3</d/f>, \"bbbb\", 4) = 4\n100 <... sync resumed>) = 0\n", Ext4, "/d/f", true, false},
		{"create beside an ext4 fsync", "100 fsync(3 <unfinished ...>\n101 openat(AT_FDCWD, \"/d/g\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5\n100 <... fsync resumed>) = 0\n", Ext4, "/d/g", false, true},
		{"create before an ext4 fsync", "101 openat(AT_FDCWD, \"/d/g\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5\n100 fsync(3 <unfinished ...>\n100 <... fsync resumed>) = 0\n", Ext4, "/d/g", false, false},
		{"create beside a directory fsync", "100 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 4\n100 fsync(4 <unfinished ...>\n101 openat(AT_FDCWD, \"/d/g\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5\n100 <... fsync resumed>) = 0\n", Posix, "/d/g", true, true},
	} {
		m := replayTextWith(t, open+c.lines, parser.Options{}, Options{Persistence: c.p})
		f := m.nameOf("/d/f")
		if f == nil || f.Cache == nil {
			t.Fatalf("%s: no file /d/f", c.name)
		}
		if got := f.Cache.DataPending(); got != c.data {
			t.Errorf("%s under %s: /d/f's data pending %v, want %v", c.name, c.p, got, c.data)
		}
		n := m.nameOf(c.path)
		if n == nil {
			t.Fatalf("%s: no name %s", c.name, c.path)
		}
		if got := len(n.Ops) > 0; got != c.pending {
			t.Errorf("%s under %s: %s's name pending %v, want %v", c.name, c.p, c.path, got, c.pending)
		}
	}
}
