package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestDurableZerosFrom: the model says where a file's version on disk
// holds only zeros to its end (space allocated and never written) only
// where the trace shows it: grown by fallocate or ftruncate, written
// below the growth, and synced. A write into the space moves the start of
// the zeros; a sync of part of the pending ops, a file never grown, or a
// shared writable mapping leave it unknown.
func TestDurableZerosFrom(t *testing.T) {
	const open = "10 openat(AT_FDCWD, \"/d/f\", O_RDWR|O_CREAT|O_EXCL, 0600) = 3\n"
	for _, c := range []struct {
		name, text string
		from       int64
		ok         bool
	}{
		{"fallocated, written, synced", open + "10 fallocate(3, 0, 0, 4096) = 0\n10 pwrite64(3, \"abc\", 3, 0) = 3\n10 fsync(3) = 0\n", 3, true},
		{"written, grown, synced", open + "10 pwrite64(3, \"abc\", 3, 0) = 3\n10 ftruncate(3, 4096) = 0\n10 fsync(3) = 0\n", 3, true},
		{"written into the space", open + "10 fallocate(3, 0, 0, 4096) = 0\n10 pwrite64(3, \"abc\", 3, 100) = 3\n10 fsync(3) = 0\n", 103, true},
		{"cut below the data, grown again", open + "10 pwrite64(3, \"abcdef\", 6, 0) = 6\n10 ftruncate(3, 2) = 0\n10 ftruncate(3, 4096) = 0\n10 fsync(3) = 0\n", 2, true},
		{"grown, not synced", open + "10 fallocate(3, 0, 0, 4096) = 0\n10 pwrite64(3, \"abc\", 3, 0) = 3\n", 0, false},
		{"never grown", open + "10 pwrite64(3, \"abc\", 3, 0) = 3\n10 fsync(3) = 0\n", 0, false},
		{"mapped shared and writable", open + "10 fallocate(3, 0, 0, 4096) = 0\n10 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000\n10 fsync(3) = 0\n", 0, false},
	} {
		for _, p := range Persistences {
			m := replayTextWith(t, c.text, parser.Options{}, Options{Persistence: p})
			n := m.nameOf("/d/f")
			if n == nil || n.Cache == nil {
				t.Fatalf("%s under %s: no file /d/f", c.name, p)
			}
			from, ok := n.Cache.DurableZerosFrom()
			if ok != c.ok || ok && from != c.from {
				t.Errorf("%s under %s: DurableZerosFrom %d, %v; want %d, %v", c.name, p, from, ok, c.from, c.ok)
			}
		}
	}
}
