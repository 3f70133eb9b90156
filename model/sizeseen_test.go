package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// TestSizeSeen: a stat of a file the trace changed that shows another
// size than the trace's calls gave it is said (EffSizeSeen), where the
// model's size is exact: not for a symlink a stat follows, not after a
// write at an offset the trace does not give, not for a stat that other
// calls completed inside of.
func TestSizeSeen(t *testing.T) {
	const made = "1 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
	cases := []struct {
		name, trace string
		want        []int64 // the sizes the stats showed, of those said
	}{
		{"a write the trace lacks", made +
			"1 newfstatat(AT_FDCWD, \"/w/f\", {st_mode=S_IFREG|0644, st_size=6, ...}, 0) = 0\n", []int64{6}},
		{"by fd, statx", made + "1 write(3, \"abc\", 3) = 3\n" +
			"1 statx(3, \"\", AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH, STATX_ALL, {stx_mask=STATX_BASIC_STATS, stx_mode=S_IFREG|0644, stx_size=9, ...}) = 0\n", []int64{9}},
		{"the size the writes give", made + "1 write(3, \"abc\", 3) = 3\n" +
			"1 fstat(3, {st_mode=S_IFREG|0644, st_size=3, ...}) = 0\n", nil},
		{"a symlink followed", "1 symlink(\"/etc/hosts\", \"/w/l\") = 0\n" +
			"1 stat(\"/w/l\", {st_mode=S_IFREG|0644, st_size=220, ...}) = 0\n", nil},
		{"a write at an offset the trace does not give", "1 write(1</w/log>, \"abc\", 3) = 3\n" +
			"1 fstat(1</w/log>, {st_mode=S_IFREG|0644, st_size=90, ...}) = 0\n" +
			"1 write(1</w/log>, \"abc\", 3) = 3\n" +
			"1 fstat(1</w/log>, {st_mode=S_IFREG|0644, st_size=93, ...}) = 0\n", nil},
		{"a write completed inside the stat", made +
			"1 newfstatat(AT_FDCWD, \"/w/f\",  <unfinished ...>\n" +
			"2 pwrite64(3</w/f>, \"abc\", 3, 0) = 3\n" +
			"1 <... newfstatat resumed>{st_mode=S_IFREG|0644, st_size=0, ...}, 0) = 0\n", nil},
		{"a range zeroed past the end, the size kept", made +
			"1 fallocate(3, FALLOC_FL_KEEP_SIZE|FALLOC_FL_ZERO_RANGE, 0, 4096) = 0\n" +
			"1 fstat(3, {st_mode=S_IFREG|0644, st_size=0, ...}) = 0\n", nil},
		{"a range zeroed past the end grows the file", made +
			"1 fallocate(3, FALLOC_FL_ZERO_RANGE, 0, 4096) = 0\n" +
			"1 fstat(3, {st_mode=S_IFREG|0644, st_size=4096, ...}) = 0\n", nil},
		{"not a regular file", "1 mkdir(\"/w/d\", 0755) = 0\n" +
			"1 stat(\"/w/d\", {st_mode=S_IFDIR|0755, st_size=4096, ...}) = 0\n", nil},
	}
	for _, c := range cases {
		var got []int64
		replayTextWith(t, c.trace, parser.Options{}, Options{Observe: func(m *Model, e *Effect) {
			if e.Kind == EffSizeSeen {
				got = append(got, e.SizeSeen)
			}
		}})
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: sizes said (-want +got):\n%s", c.name, diff)
		}
	}
}
