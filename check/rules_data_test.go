package check

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestTruncateInPlace pins when truncate-in-place fires: a file that held
// data cut shorter and written again, unless it was given its space back
// before any write and the writes go after what it kept (a preallocated
// log cut back to its last good record, then appended to: etcd's WAL).
func TestTruncateInPlace(t *testing.T) {
	const (
		open  = `1 openat(AT_FDCWD, "/w/wal", O_RDWR) = 3`
		stat  = `1 fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0`
		fsync = `1 fdatasync(3) = 0`
	)
	tests := []struct {
		name  string
		lines []string
		fires bool
	}{
		{"O_TRUNC, then written", []string{`1 openat(AT_FDCWD, "/w/wal", O_WRONLY|O_TRUNC) = 3`, `1 write(3, "new", 3) = 3`, fsync}, true},
		{"cut to 0, then written", []string{open, stat, `1 ftruncate(3, 0) = 0`, `1 pwrite64(3, "new", 3, 0) = 3`, fsync}, true},
		{"cut to 776, then rewritten below it", []string{open, stat, `1 ftruncate(3, 776) = 0`, `1 pwrite64(3, "hdr", 3, 0) = 3`, fsync}, true},
		{"cut to 776, space made again, then appended at it", []string{open, stat, `1 ftruncate(3, 776) = 0`, `1 fallocate(3, 0, 0, 64000) = 0`, `1 pwrite64(3, "rec", 3, 776) = 3`, fsync}, false},
		{"cut to 776, grown again, then appended past it", []string{open, stat, `1 ftruncate(3, 776) = 0`, `1 ftruncate(3, 16384) = 0`, `1 pwrite64(3, "rec", 3, 4096) = 3`, fsync}, false},
		// A kept header and a new body after it: the old body is gone.
		{"cut to 100, then written after it", []string{open, stat, `1 ftruncate(3, 100) = 0`, `1 pwrite64(3, "body", 4, 100) = 4`, fsync}, true},
		{"cut to 776, space made again, then rewritten below it", []string{open, stat, `1 ftruncate(3, 776) = 0`, `1 fallocate(3, 0, 0, 64000) = 0`, `1 pwrite64(3, "hdr", 3, 0) = 3`, fsync}, true},
		{"cut, never written", []string{open, stat, `1 ftruncate(3, 776) = 0`, fsync}, false},
		// A cut made durable on its own before the rewrite is a state the
		// program committed (SQLite's journal_mode=TRUNCATE): a crash from
		// there on starts from it and cannot bring back what it removed.
		{"cut to 0, synced, then written", []string{open, stat, `1 ftruncate(3, 0) = 0`, fsync, `1 pwrite64(3, "new", 3, 0) = 3`, fsync}, false},
		{"cut to 0, sync(), then written", []string{open, stat, `1 ftruncate(3, 0) = 0`, `1 sync() = 0`, `1 pwrite64(3, "new", 3, 0) = 3`, fsync}, false},
		{"O_TRUNC, synced, then written", []string{`1 openat(AT_FDCWD, "/w/wal", O_WRONLY|O_TRUNC) = 3`, fsync, `1 write(3, "new", 3) = 3`, fsync}, false},
		// Synced with the rewrite, or by a sync that came after its first
		// write: the rewrite began while the cut was pending.
		{"cut, written, synced together", []string{open, stat, `1 ftruncate(3, 0) = 0`, `1 pwrite64(3, "new", 3, 0) = 3`, fsync, `1 pwrite64(3, "more", 4, 3) = 4`, fsync}, true},
		// A cut committed on its own, then one that is rewritten before
		// it is durable: the second is asked about afresh.
		{"cut synced and rewritten, then cut and rewritten unsynced", []string{open, stat, `1 ftruncate(3, 0) = 0`, fsync, `1 pwrite64(3, "new", 3, 0) = 3`, fsync, `1 ftruncate(3, 0) = 0`, `1 pwrite64(3, "newer", 5, 0) = 5`, fsync}, true},
		// An O_DSYNC write makes the cut durable with itself: the old
		// content is off the disk before the new is on it (dd
		// oflag=dsync over an existing file).
		{"O_TRUNC|O_DSYNC, then written", []string{`1 openat(AT_FDCWD, "/w/wal", O_WRONLY|O_TRUNC|O_DSYNC) = 3`, `1 write(3, "new", 3) = 3`, `1 write(3, "more", 4) = 4`}, true},
		{"cut through an O_DSYNC fd, then written", []string{`1 openat(AT_FDCWD, "/w/wal", O_WRONLY|O_DSYNC) = 3`, `1 ftruncate(3, 0) = 0`, `1 write(3, "new", 3) = 3`}, true},
		{"cut, then a RWF_DSYNC write", []string{open, stat, `1 ftruncate(3, 0) = 0`, `1 pwritev2(3, [{iov_base="new", iov_len=3}], 1, 0, RWF_DSYNC) = 3`}, true},
		// Synced on its own first, the cut is committed whatever the
		// rewrite's writes are.
		{"O_DSYNC fd cut, synced, then written", []string{`1 openat(AT_FDCWD, "/w/wal", O_WRONLY|O_DSYNC) = 3`, `1 ftruncate(3, 0) = 0`, fsync, `1 write(3, "new", 3) = 3`}, false},
		{"O_DSYNC fd cut, sync(), then written", []string{`1 openat(AT_FDCWD, "/w/wal", O_WRONLY|O_DSYNC) = 3`, `1 ftruncate(3, 0) = 0`, `1 sync() = 0`, `1 write(3, "new", 3) = 3`}, false},
	}
	existed := func(p string) (bool, bool) { return p == "/w/wal", true }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			res := runText(t, text, Options{Existed: existed})
			fired := false
			for _, f := range res.findings {
				fired = fired || f.Rule.ID == TruncateInPlace
			}
			if fired != tc.fires {
				t.Errorf("truncate-in-place fired %v, want %v", fired, tc.fires)
			}
		})
	}
}

// runText checks trace text, as a file t.strace holds it, with opt.
func runText(t testing.TB, text string, opt Options) *Result {
	t.Helper()
	res, err := Run(parser.NewReader(strings.NewReader(text), "t.strace", parser.Options{}), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTruncateInPlaceUnsureFile: a file opened with O_CREAT and no
// listing may or may not have existed before the trace, but once the
// trace wrote it, it holds what it wrote: cut and rewritten before the
// cut is durable, it is truncate-in-place whether or not the trace shows
// its directory made (it was found only then: the model did not count
// the trace's own writes as content of such a file).
func TestTruncateInPlaceUnsureFile(t *testing.T) {
	const body = `1 openat(AT_FDCWD, "/w/d/state", O_RDWR|O_CREAT, 0600) = 3
1 pwrite64(3, "old state\n", 10, 0) = 10
1 fdatasync(3) = 0
1 ftruncate(3, 0) = 0
`
	const rewrite = `1 pwrite64(3, "new state\n", 10, 0) = 10
1 fdatasync(3) = 0
1 close(3) = 0
1 exit_group(0) = ?
1 +++ exited with 0 +++
`
	for _, c := range []struct {
		name, text string
		fires      bool
	}{
		{"directory made in the trace", `1 mkdir("/w/d", 0700) = 0` + "\n" + body + rewrite, true},
		{"directory from before", body + rewrite, true},
		{"directory from before, cut synced first", body + "1 fdatasync(3) = 0\n" + rewrite, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runText(t, c.text, Options{})
			fired := false
			for _, f := range res.findings {
				fired = fired || f.Rule.ID == TruncateInPlace
			}
			if fired != c.fires {
				t.Errorf("truncate-in-place fired %v, want %v", fired, c.fires)
			}
		})
	}
}

// TestTruncateInPlaceCutsDisk: truncate-in-place is about what the disk
// held. A temp file written, never synced, then truncated and written
// again before its fsync and rename loses nothing a crash before the cut
// could not have lost (an editor's or visudo's save): no finding. Synced
// before the cut, its data on disk is cut, and the finding names the file
// as it was cut, not the name a later rename gave it.
func TestTruncateInPlaceCutsDisk(t *testing.T) {
	const (
		first   = "1 openat(AT_FDCWD, \"/w/cfg.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 4\n1 write(4, \"old\\n\", 4) = 4\n"
		synced  = "1 fsync(4) = 0\n"
		rewrite = "1 close(4) = 0\n1 openat(AT_FDCWD, \"/w/cfg.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n1 write(3, \"new\\n\", 4) = 4\n1 fsync(3) = 0\n1 close(3) = 0\n" +
			"1 rename(\"/w/cfg.tmp\", \"/w/cfg\") = 0\n1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 5\n1 fsync(5) = 0\n"
	)
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/cfg", true }
	for _, c := range []struct {
		name, text string
		want       string // the finding's path, "" for none
	}{
		{"cut bytes never durable", first + rewrite, ""},
		{"cut bytes synced", first + synced + rewrite, "/w/cfg.tmp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runText(t, c.text, Options{Existed: existed})
			got := ""
			for _, f := range res.findings {
				if f.Rule.ID == TruncateInPlace {
					got = f.Path
					if !strings.Contains(f.Message, "rename it over cfg.tmp") {
						t.Errorf("message %q does not name cfg.tmp", f.Message)
					}
				}
			}
			if got != c.want {
				t.Errorf("truncate-in-place on %q, want %q", got, c.want)
			}
		})
	}
}

// TestUnalignedWriteAfterTruncation: unaligned-write is about pages that
// hold data from before the trace, which the kernel reads before a write
// covers part of them. After O_TRUNC (or a truncation) only the bytes the
// cut kept are such data: a file rewritten in two pieces from offset 0 has
// its second piece land in a page the first one wrote, which is in the
// page cache already. Written in place past what a cut kept, it fires.
// So are the bytes a file had when the trace first wrote it: a page
// holding only what the trace wrote since is in the page cache.
func TestUnalignedWriteAfterTruncation(t *testing.T) {
	b := strings.Repeat("b", 100)
	for _, c := range []struct {
		name, lines string
		want        bool
	}{
		{"O_TRUNC, then two writes", "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_TRUNC) = 3\n10 write(3, \"aaaaaaaaaaaaaaaaaa\", 18) = 18\n10 write(3, \"" + b + "\", 100) = 100\n", false},
		{"no truncation: the old page", "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY) = 3\n10 fstat(3, {st_mode=S_IFREG|0644, st_size=5000, ...}) = 0\n10 pwrite64(3, \"" + b + "\", 100, 18) = 100\n", true},
		{"cut to 50, written at 18", "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY) = 3\n10 fstat(3, {st_mode=S_IFREG|0644, st_size=5000, ...}) = 0\n10 ftruncate(3, 50) = 0\n10 pwrite64(3, \"" + b + "\", 100, 18) = 100\n", true},
		{"cut to 0, written at 18", "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY) = 3\n10 fstat(3, {st_mode=S_IFREG|0644, st_size=5000, ...}) = 0\n10 ftruncate(3, 0) = 0\n10 pwrite64(3, \"" + b + "\", 100, 18) = 100\n", false},
		// A file empty before the trace (SQLite's persisted journal),
		// written from 0 and then past what it wrote: the second write's
		// page holds only the first's bytes, in the page cache.
		{"empty before, written twice", "10 openat(AT_FDCWD, \"/d/f\", O_RDWR) = 3\n10 fstat(3, {st_mode=S_IFREG|0644, st_size=0, ...}) = 0\n10 pwrite64(3, \"" + b + "\", 100, 0) = 100\n10 pwrite64(3, \"abcd\", 4, 100) = 4\n", false},
		{"20 bytes before, written past them", "10 openat(AT_FDCWD, \"/d/f\", O_RDWR) = 3\n10 fstat(3, {st_mode=S_IFREG|0644, st_size=20, ...}) = 0\n10 pwrite64(3, \"" + b + "\", 100, 20) = 100\n10 pwrite64(3, \"abcd\", 4, 120) = 4\n", true},
	} {
		if got := unalignedIn(t, c.lines); got != c.want {
			t.Errorf("%s: unaligned-write %v, want %v", c.name, got, c.want)
		}
	}
}

// unalignedIn reports whether unaligned-write fires on lines of process
// 10, where /d/f and /d existed before the trace.
func unalignedIn(t *testing.T, lines string) bool {
	t.Helper()
	existed := func(p string) (bool, bool) { return p == "/d/f" || p == "/d", true }
	for _, f := range runText(t, lines+"10 exit_group(0) = ?\n", Options{Existed: existed}).findings {
		if f.Rule.ID == UnalignedWrite {
			return true
		}
	}
	return false
}

// TestUnalignedWriteAfterRead: a page of a file from before the trace
// that a read returned is in the page cache, and writing part of it
// reads nothing from disk (LMDB's meta page, read at open and then
// updated at offset 32; Redis's AOF, loaded and then appended to). A
// page no read returned is still reported.
func TestUnalignedWriteAfterRead(t *testing.T) {
	const (
		open  = "10 openat(AT_FDCWD, \"/d/f\", O_RDWR) = 3\n10 fstat(3, {st_mode=S_IFREG|0644, st_size=20000, ...}) = 0\n"
		write = "10 pwrite64(3, \"abcd\", 4, 8200) = 4\n" // inside the page at 8192
	)
	for _, c := range []struct {
		name, lines string
		want        bool
	}{
		{"nothing read", open + write, true},
		{"that page read by pread", open + "10 pread64(3, \"abcdefgh\", 8, 8192) = 8\n" + write, false},
		{"read through it from 0", open + "10 read(3, \"" + strings.Repeat("x", 200) + "\"..., 12288) = 12288\n" + write, false},
		{"read up to just before it", open + "10 read(3, \"" + strings.Repeat("x", 200) + "\"..., 8192) = 8192\n" + write, true},
		{"another page read", open + "10 pread64(3, \"abcdefgh\", 8, 0) = 8\n" + write, true},
		{"read from the offset lseek gave", open + "10 lseek(3, 8192, SEEK_SET) = 8192\n10 read(3, \"abcdefgh\", 8) = 8\n" + write, false},
		{"a read that failed", open + "10 pread64(3, 0x7ffd, 8, 8192) = -1 EIO (Input/output error)\n" + write, true},
		{"mapped, not read", open + "10 mmap(NULL, 20000, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000\n" + write, true},
	} {
		if got := unalignedIn(t, c.lines); got != c.want {
			t.Errorf("%s: unaligned-write %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPageRangesJoin: reads in any order join into runs of pages; a read
// that would make a fifth run is dropped, never taken for one it is not.
func TestPageRangesJoin(t *testing.T) {
	var p pageRanges
	p.add(0, 10)        // page 0
	p.add(3*page, 1)    // page 3
	p.add(page+5, page) // pages 1 and 2: joins 0 and 3 into one run
	if p.n != 1 || p.r[0] != [2]int64{0, 4 * page} {
		t.Fatalf("runs %v (%d), want one of pages 0-3", p.r[:p.n], p.n)
	}
	for i := int64(0); i < 4; i++ {
		p.add((10+2*i)*page, 1) // pages 10, 12, 14, 16: the last is dropped
	}
	if p.n != 4 {
		t.Fatalf("%d runs, want 4", p.n)
	}
	for _, c := range []struct {
		page int64
		want bool
	}{{0, true}, {3, true}, {4, false}, {10, true}, {11, false}, {14, true}, {16, false}} {
		if got := p.has(c.page * page); got != c.want {
			t.Errorf("page %d read %v, want %v", c.page, got, c.want)
		}
	}
}

// TestRenamedFileBeforeRunWords: a file from before the run renamed
// during it (Python's dbm.dumb moves db.dir to db.bak, a rotated log)
// and left as it was then holds what it held under its old name: "as
// db.dir was before the run", not as db.bak was, which was another file.
// A file that kept its name keeps the plain words.
func TestRenamedFileBeforeRunWords(t *testing.T) {
	const (
		head   = "10 openat(AT_FDCWD, \"/d/db.dir\", O_WRONLY|O_APPEND) = 3\n10 fstat(3, {st_mode=S_IFREG|0644, st_size=9, ...}) = 0\n10 write(3, \"k2 512 30\\n\", 10) = 10\n10 close(3) = 0\n"
		rename = "10 rename(\"/d/db.dir\", \"/d/db.bak\") = 0\n"
		tail   = "10 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 4\n10 fsync(4) = 0\n10 close(4) = 0\n10 exit_group(0) = ?\n"
	)
	existed := func(p string) (bool, bool) { return p == "/d" || p == "/d/db.dir" || p == "/d/db.bak", true }
	for _, c := range []struct {
		name, lines, path, want string
	}{
		{"renamed", head + rename + tail, "/d/db.bak", "as db.dir was before the run"},
		{"kept its name", head + tail, "/d/db.dir", "as it was before the run"},
	} {
		res := runText(t, c.lines, Options{Existed: existed})
		found := false
		for _, f := range res.findings {
			if f.Rule.ID != DataNotSynced || f.Path != c.path {
				continue
			}
			found = true
			if !strings.Contains(f.Message, "can be "+c.want) {
				t.Errorf("%s: message %q, want %q", c.name, f.Message, c.want)
			}
			if f.State == nil || f.State.Words != c.want {
				t.Errorf("%s: state %+v, want words %q", c.name, f.State, c.want)
			}
		}
		if !found {
			t.Errorf("%s: no data-not-synced on %s: %v", c.name, c.path, res.findings)
		}
	}
}

// TestInterruptedSyncLosesNothing: an fsync a signal interrupted shows
// as "= ? ERESTARTSYS" (the kernel runs it again, or the program gets
// EINTR): no writeback error, so the pages stay dirty and nothing is
// lost. Restarted, it syncs the file; not restarted, the file is still
// pending. An EIO is a failed sync, and a later fsync proves nothing.
func TestInterruptedSyncLosesNothing(t *testing.T) {
	const (
		start = "100 execve(\"/bin/x\", [\"x\"], 0x7f /* 1 var */) = 0\n100 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n100 write(3, \"abc\", 3) = 3\n"
		alarm = "100 --- SIGALRM {si_signo=SIGALRM, si_code=SI_KERNEL} ---\n100 rt_sigreturn({mask=[]}) = 74\n"
		end   = "100 close(3) = 0\n100 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 4\n100 fsync(4) = 0\n100 close(4) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	)
	for _, tc := range []struct {
		name, sync string
		want       []string
	}{
		{"restarted", "100 fsync(3) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)\n" + alarm + "100 fsync(3) = 0\n", nil},
		{"restarted, ERESTARTNOINTR", "100 fsync(3) = ? ERESTARTNOINTR (To be restarted)\n" + alarm + "100 fsync(3) = 0\n", nil},
		{"EINTR, never again", "100 fsync(3) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)\n" + alarm, []string{DataNotSynced, DirSyncBeforeData}},
		{"EIO, then 0", "100 fsync(3) = -1 EIO (Input/output error)\n100 fsync(3) = 0\n", []string{DataNotSynced, DirSyncBeforeData, FsyncErrorIgnored}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runText(t, start+tc.sync+end, Options{})
			var got []string
			for _, f := range res.findings {
				if f.Path == "/d/f" && !slices.Contains(got, f.Rule.ID) {
					got = append(got, f.Rule.ID)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings of /d/f %v, want %v", got, tc.want)
			}
		})
	}
}

// TestZeroedRangeNotSynced: a range of a file that held data, zeroed by
// fallocate (FALLOC_FL_ZERO_RANGE, or a punched hole) and never synced,
// can come back after a crash, as written bytes can: a program that
// zeroes a record's header to retire it finds the record again. The
// same zeroing followed by fdatasync loses nothing.
func TestZeroedRangeNotSynced(t *testing.T) {
	for _, mode := range []string{"FALLOC_FL_ZERO_RANGE", "FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE"} {
		for _, synced := range []bool{false, true} {
			sync := ""
			if synced {
				sync = "1 fdatasync(3) = 0\n"
			}
			text := `1 openat(AT_FDCWD, "/w/db", O_RDWR) = 3
1 fstat(3, {st_mode=S_IFREG|0644, st_size=8192, ...}) = 0
1 fallocate(3, ` + mode + `, 0, 4096) = 0
` + sync + `1 close(3) = 0
1 exit_group(0) = ?
1 +++ exited with 0 +++
`
			var got []string
			for _, f := range runText(t, text, Options{Roots: []string{"/w"}}).findings {
				got = append(got, fmt.Sprintf("%s %s line %d", f.Rule.ID, f.Path, f.Line))
			}
			var want []string
			if !synced {
				want = []string{DataNotSynced + " /w/db line 3"}
			}
			if !slices.Equal(want, got) {
				t.Errorf("%s, synced %v: findings %q, want %q", mode, synced, got, want)
			}
		}
	}
}

// TestCrossDirRenameSynced: a rename between directories, both synced
// after it, is durable: cross-dir-rename stays, at info, and says so;
// with only the target synced it is a warning that asks for both.
func TestCrossDirRenameSynced(t *testing.T) {
	const head = `1 openat(AT_FDCWD, "/w/a/f.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
1 write(3, "x", 1) = 1
1 fsync(3) = 0
1 close(3) = 0
1 rename("/w/a/f.tmp", "/w/b/f") = 0
1 openat(AT_FDCWD, "/w/b", O_RDONLY|O_DIRECTORY) = 3
1 fsync(3) = 0
1 close(3) = 0
`
	const syncA = `1 openat(AT_FDCWD, "/w/a", O_RDONLY|O_DIRECTORY) = 3
1 fsync(3) = 0
1 close(3) = 0
`
	const end = "1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/a" || p == "/w/b", true }
	for _, c := range []struct {
		name, text string
		severity   Severity
		says       string
	}{
		{"both synced", head + syncA + end, Info, "the move is durable"},
		{"the target only", head + end, Warning, "fsync both directories"},
	} {
		var got []*Finding
		for _, f := range runText(t, c.text, Options{Existed: existed}).findings {
			if f.Rule.ID == CrossDirRename {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Rule.Severity != c.severity || !strings.Contains(got[0].Message, c.says) {
			t.Errorf("%s: cross-dir-rename findings %v, want one at %v saying %q", c.name, got, c.severity, c.says)
		}
	}
}

// TestDataStateOutcomes: data-not-synced's crash state carries every
// outcome its message names, for explore to tell which rejected states
// the finding foresaw (a file left full of zeros as well as empty).
func TestDataStateOutcomes(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.strace")
	text := `openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</d/f>
write(3</d/f>, "abc", 3) = 3
close(3</d/f>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`
	if err := os.WriteFile(trace, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res := checkFile(t, trace, Options{Roots: []string{"/d"}})
	found := false
	for _, f := range res.findings {
		if f.Rule.ID != DataNotSynced {
			continue
		}
		found = true
		if f.State == nil {
			t.Fatalf("data-not-synced without a crash state: %s", f.Message)
		}
		for _, o := range []model.Outcome{model.Empty, model.Zeros} {
			if !slices.Contains(f.State.Outcomes, o) {
				t.Errorf("the crash state's outcomes %v lack %s, which the message names: %s", f.State.Outcomes, o, f.Message)
			}
		}
	}
	if !found {
		t.Fatal("no data-not-synced finding")
	}
}

// TestTruncateInPlaceRemade: a file with data on disk unlinked and made
// anew under its name by the same process, then written, is rewritten in
// place as a truncated one is (unzip -o, tar -x and install over files
// that exist): a crash between can leave it missing, empty or torn, even
// with the file and its directory synced after. It was checked clean.
func TestTruncateInPlaceRemade(t *testing.T) {
	const (
		stat   = `1 newfstatat(AT_FDCWD, "/w/app.conf", {st_mode=S_IFREG|0644, st_size=12, ...}, AT_SYMLINK_NOFOLLOW) = 0`
		unlink = `1 unlink("/w/app.conf") = 0`
		create = `1 openat(AT_FDCWD, "/w/app.conf", O_RDWR|O_CREAT|O_TRUNC, 0666) = 4`
		write  = `1 write(4, "setting=new\n", 12) = 12`
		fsync  = `1 fsync(4) = 0`
		dir    = "1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 5\n1 fsync(5) = 0"
	)
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/app.conf", true }
	for _, tc := range []struct {
		name  string
		lines []string
		fires bool
	}{
		{"removed, made anew, written and synced", []string{stat, unlink, create, write, fsync, dir}, true},
		{"never synced", []string{stat, unlink, create, write}, true},
		{"made anew by another process", []string{stat, unlink, `2 openat(AT_FDCWD, "/w/app.conf", O_RDWR|O_CREAT|O_TRUNC, 0666) = 4`, `2 write(4, "setting=new\n", 12) = 12`}, false},
		{"made anew, not written", []string{stat, unlink, create, fsync, dir}, false},
		{"empty before", []string{`1 newfstatat(AT_FDCWD, "/w/app.conf", {st_mode=S_IFREG|0644, st_size=0, ...}, AT_SYMLINK_NOFOLLOW) = 0`, unlink, create, write}, false},
		{"a temp file renamed to the name instead", []string{stat, unlink, `1 openat(AT_FDCWD, "/w/app.tmp", O_WRONLY|O_CREAT|O_EXCL, 0666) = 4`, write, fsync, `1 rename("/w/app.tmp", "/w/app.conf") = 0`}, false},
	} {
		got := findingsOf(t, strings.Join(tc.lines, "\n")+"\n", Options{Existed: existed}, TruncateInPlace)
		if (len(got) > 0) != tc.fires {
			t.Errorf("%s: %d truncate-in-place findings, want any: %v", tc.name, len(got), tc.fires)
			continue
		}
		if !tc.fires {
			continue
		}
		f := got[0]
		if f.Path != "/w/app.conf" || f.Line != 2 || !strings.Contains(f.Message, "was removed and made anew") {
			t.Errorf("%s: %s:%d %q", tc.name, f.Path, f.Line, f.Message)
		}
		if f.State == nil || f.State.Outcome != "missing" {
			t.Errorf("%s: state %+v, want the name missing", tc.name, f.State)
		}
	}
}
