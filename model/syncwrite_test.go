package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestSyncWriteCoversItsRange: a write made durable by O_DSYNC or
// RWF_DSYNC syncs the pages it wrote, not the rest of the file: an
// earlier unsynced write elsewhere stays at risk, and one within those
// pages does not, nor does an earlier cut to where the write starts.
func TestSyncWriteCoversItsRange(t *testing.T) {
	const head = "10 openat(AT_FDCWD, \"/d/f\", O_RDWR|O_CREAT, 0644) = 3\n" +
		"10 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_DSYNC) = 4\n"
	for _, c := range []struct {
		name    string
		lines   string
		pending bool
	}{
		{"each write synced", "10 pwrite64(4, \"a\", 1, 0) = 1\n10 pwrite64(4, \"b\", 1, 8192) = 1\n", false},
		{"earlier write on another page", "10 pwrite64(3, \"a\", 1, 0) = 1\n10 pwrite64(4, \"b\", 1, 8192) = 1\n", true},
		{"earlier write in the pages synced", "10 pwrite64(3, \"a\", 1, 100) = 1\n10 pwrite64(4, \"b\", 1, 4000) = 1\n", false},
		{"earlier write past them", "10 pwrite64(3, \"aa\", 2, 4095) = 2\n10 pwrite64(4, \"b\", 1, 0) = 1\n", true},
		{"earlier truncation", "10 ftruncate(3, 100) = 0\n10 pwrite64(4, \"b\", 1, 0) = 1\n", true},
		// A size change is the inode's metadata, which a sync of any
		// range takes; a write at or past the new size lands in pages
		// the cut left empty (dd oflag=sync: O_TRUNC, then writes). A
		// write below a pending size change can reach disk before it
		// (the oracle's torn file on ext4 and xfs, mid-call).
		{"a cut to where the write starts", "10 ftruncate(3, 8192) = 0\n10 pwrite64(4, \"b\", 1, 8192) = 1\n", false},
		{"a cut to 0, then a write at 0", "10 ftruncate(3, 0) = 0\n10 pwrite64(4, \"b\", 1, 0) = 1\n", false},
		{"a growth past the write", "10 ftruncate(3, 40960) = 0\n10 pwrite64(4, \"b\", 1, 4096) = 1\n", true},
		{"a cut, then a write elsewhere", "10 ftruncate(3, 0) = 0\n10 pwrite64(3, \"a\", 1, 0) = 1\n10 pwrite64(4, \"b\", 1, 8192) = 1\n", true},
		{"RWF_DSYNC after a write elsewhere", "10 pwrite64(3, \"a\", 1, 0) = 1\n10 pwritev2(3, [{iov_base=\"b\", iov_len=1}], 1, 8192, RWF_DSYNC) = 1\n", true},
		{"fsync after it all", "10 pwrite64(3, \"a\", 1, 0) = 1\n10 pwrite64(4, \"b\", 1, 8192) = 1\n10 fsync(3) = 0\n", false},
	} {
		for _, p := range Persistences {
			m := replayTextWith(t, head+c.lines, parser.Options{}, Options{Persistence: p})
			n := m.nameOf("/d/f")
			if n == nil || n.Cache == nil {
				t.Fatalf("%s under %s: no file /d/f", c.name, p)
			}
			if got := n.Cache.DataPending(); got != c.pending {
				t.Errorf("%s under %s: data pending %v, want %v", c.name, p, got, c.pending)
			}
		}
	}
}
