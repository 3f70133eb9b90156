package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestReadSize: what reads show of the size of a file from before the
// trace that no stat showed. A read that came back short (0 included)
// met the end: the size is known, as a stat would say it. A full one
// shows the file held at least the bytes it returned (DurableAtLeast),
// which is no size. Reads that show nothing: through a pipe, through an
// fd the trace never opened (its offset unknown), with the trace's own
// writes pending, a readv (its count is not decoded), one another call
// completed inside of, one that asked for more than Linux reads at once.
func TestReadSize(t *testing.T) {
	const open = "1 openat(AT_FDCWD, \"/w/f\", O_RDWR) = 3\n"
	cases := []struct {
		name, trace    string
		size, durable  int64 // Size, DurableSize
		atLeast        int64 // DurableAtLeast
		wantHadContent bool
	}{
		{"full reads", open +
			"1 read(3, \"a\"..., 4096) = 4096\n" +
			"1 read(3, \"b\"..., 4096) = 4096\n", -1, -1, 8192, false},
		{"a short read", open +
			"1 read(3, \"0123456789abcdefghijklmnop\", 32768) = 26\n", 26, 26, 0, true},
		{"a full read, then the end", open +
			"1 read(3, \"0123456789\", 10) = 10\n" +
			"1 read(3, \"\", 10) = 0\n", 10, 10, 0, true},
		{"an empty file", open + "1 read(3, \"\", 4096) = 0\n", 0, 0, 0, false},
		{"pread64 at an offset, full", open +
			"1 pread64(3, \"abcd\", 4, 100) = 4\n", -1, -1, 104, false},
		{"pread64 at an offset, short", open +
			"1 pread64(3, \"ab\", 4, 100) = 2\n", 102, 102, 0, true},
		{"after an lseek", open +
			"1 lseek(3, 50, SEEK_SET) = 50\n" +
			"1 read(3, \"ab\", 8) = 2\n", 52, 52, 0, true},
		{"an lseek to the end", open +
			"1 lseek(3, 0, SEEK_END) = 300\n", 300, 300, 0, true},
		{"an lseek to the end, a write of the trace pending", open +
			"1 pwrite64(3, \"abcd\", 4, 0) = 4\n" +
			"1 lseek(3, 0, SEEK_END) = 300\n", -1, -1, 0, false},
		{"a readv", open +
			"1 readv(3, [{iov_base=\"ab\", iov_len=8}], 1) = 2\n", -1, -1, 2, false},
		{"a pipe, an fd of no name", open +
			"1 read(4<pipe:[77]>, \"ab\", 8) = 2\n" +
			"1 read(7, \"ab\", 8) = 2\n", -1, -1, 0, false},
		{"an fd from before the trace", "1 read(5</w/f>, \"ab\", 8) = 2\n" +
			"1 read(5</w/f>, \"abcd\", 4) = 4\n", -1, -1, 0, false},
		{"a write of the trace pending", open +
			"1 pwrite64(3, \"abcd\", 4, 0) = 4\n" +
			"1 pread64(3, \"abcd\", 8, 0) = 4\n", -1, -1, 0, false},
		{"a write of the trace made durable", open +
			"1 pwrite64(3, \"abcd\", 4, 0) = 4\n" +
			"1 fsync(3) = 0\n" +
			"1 pread64(3, \"abcd\", 8, 0) = 4\n", 4, 4, 0, true},
		{"more than one read returns", open +
			"1 read(3, \"ab\"..., 4294967296) = 2147479552\n", -1, -1, 2147479552, false},
		{"a write completed inside the read", open +
			"1 read(3,  <unfinished ...>\n" +
			"2 pwrite64(3</w/f>, \"abc\", 3, 0) = 3\n" +
			"1 <... read resumed>\"abc\", 8) = 3\n", -1, -1, 0, false},
	}
	for _, c := range cases {
		m := replayText(t, c.trace, parser.Options{DecodePositions: ArgPositions})
		ino := m.name("/w/f").Cache
		if ino == nil {
			t.Errorf("%s: no inode for /w/f", c.name)
			continue
		}
		if ino.Size != c.size || ino.DurableSize != c.durable || ino.DurableAtLeast() != c.atLeast || ino.HadContent != c.wantHadContent {
			t.Errorf("%s: Size %d, DurableSize %d, DurableAtLeast %d, HadContent %v; want %d, %d, %d, %v", c.name,
				ino.Size, ino.DurableSize, ino.DurableAtLeast(), ino.HadContent, c.size, c.durable, c.atLeast, c.wantHadContent)
		}
	}
}

// TestReadSizeThenAppend: a short read of a file another process then
// appends to showed its end at that moment; the append lands there.
func TestReadSizeThenAppend(t *testing.T) {
	m := replayText(t, "1 openat(AT_FDCWD, \"/w/log\", O_RDONLY) = 3\n"+
		"1 read(3, \"0123456789\", 4096) = 10\n"+
		"2 openat(AT_FDCWD, \"/w/log\", O_WRONLY|O_APPEND) = 4\n"+
		"2 write(4, \"abc\", 3) = 3\n"+
		"1 read(3, \"abc\", 4096) = 3\n", parser.Options{DecodePositions: ArgPositions})
	ino := m.name("/w/log").Cache
	if ino == nil {
		t.Fatal("no inode for /w/log")
	}
	ops := ino.pendingList().slice()
	if ino.Size != 13 || ino.DurableSize != 10 || len(ops) != 1 || ops[0].Off != 10 || ops[0].SizeBefore != 10 {
		t.Errorf("Size %d, DurableSize %d, ops %+v; want 13, 10, one append at 10", ino.Size, ino.DurableSize, ops)
	}
}

// TestReadSizeTruncateNoChange: a truncation to the size a read showed
// is no change, as one to the size a stat showed is.
func TestReadSizeTruncateNoChange(t *testing.T) {
	var kinds []EffectKind
	replayTextWith(t, "1 openat(AT_FDCWD, \"/w/f\", O_RDWR) = 3\n"+
		"1 read(3, \"0123456789\", 4096) = 10\n"+
		"1 ftruncate(3, 10) = 0\n", parser.Options{DecodePositions: ArgPositions}, Options{Observe: func(m *Model, e *Effect) {
		kinds = append(kinds, e.Kind)
	}})
	for _, k := range kinds {
		if k == EffTruncate {
			t.Errorf("effects %v: the truncation to the size read is a change", kinds)
		}
	}
}
