package check

import (
	"slices"
	"strings"
	"testing"
)

// TestDirSyncBeforeDataNamesTheDurableName: dir-sync-before-data names
// the name the directory fsync made durable. A file padded as tmp.i, its
// directory synced, then renamed to 0000 before its data was: the finding
// is about tmp.i, and 0000 was never durable by that fsync. When the
// fsync covers the rename itself (a temp file renamed unsynced), the name
// is the new one. dpkg's order (pad tmp.i, sync the directory, write the
// record, sync the file, only then rename it to 0000) gives up tmp.i
// after its data was durable: no crash state shows 0000 without its
// data, and none is reported (TestDirSyncBeforeDataNameGivenUp).
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
		{"renamed before its data was synced", []string{dir, create, pad, dsync, record, trunc, renameI, fsync, closeF, dsync}, "/w/tmp.i"},
		{"renamed unsynced, then the directory synced", []string{dir, create, pad, closeF, renameI, dsync}, "/w/0000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := dirSyncFindings(t, tc.lines)
			for _, f := range fs {
				base := tc.wantPath[strings.LastIndexByte(tc.wantPath, '/')+1:]
				if f.Path != tc.wantPath || !strings.Contains(f.Message, "made "+base+" durable") {
					t.Errorf("finding on %s: %s; want it on %s", f.Path, f.Message, tc.wantPath)
				}
				if f.State == nil || f.State.Path != tc.wantPath {
					t.Errorf("its crash state: %+v, want one of %s", f.State, tc.wantPath)
				}
			}
			if len(fs) != 1 {
				t.Errorf("%d dir-sync-before-data findings, want 1", len(fs))
			}
		})
	}
}

// dirSyncFindings checks a trace of lines, in which the directory /w
// existed before, and returns its dir-sync-before-data findings.
func dirSyncFindings(t *testing.T, lines []string) []*Finding {
	t.Helper()
	text := strings.Join(lines, "\n") + "\n"
	return findingsOf(t, text, Options{Existed: func(p string) (bool, bool) { return p == "/w", true }}, DirSyncBeforeData)
}

// TestDirSyncBeforeDataNameGivenUp: a directory fsync that makes a name
// durable while its file's data is pending is reported when a crash can
// show that name, kept by the program, without the data: the name is
// still the file's when the data is synced or the trace ends. A temp name
// given up (renamed away, unlinked) only after the data was synced is
// not: the crash states that show it empty show a name the program never
// relied on, and the later name was made after the data was durable.
// Which thread's fsync it was does not matter, and a temp name given up
// while its data is still pending is reported as before.
func TestDirSyncBeforeDataNameGivenUp(t *testing.T) {
	const (
		dir     = `1 openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 3`
		dsync   = `1 fsync(3) = 0`
		create  = `1 openat(AT_FDCWD, "/w/f.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4`
		createF = `1 openat(AT_FDCWD, "/w/f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4`
		write   = `1 write(4, "data\n", 5) = 5`
		fsync   = `1 fsync(4) = 0`
		closeF  = `1 close(4) = 0`
		rename  = `1 rename("/w/f.tmp", "/w/f") = 0`
		unlink  = `1 unlink("/w/f.tmp") = 0`
		sync    = `1 sync() = 0`
		ack     = `1 write(1, "saved\n", 6) = 6`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string // the paths of the dir-sync-before-data findings
	}{
		// A correct save whose temp name a directory fsync (another
		// save's, say) made durable before the file's own fsync returned.
		{"temp name synced, then renamed", []string{dir, create, write, dsync, fsync, closeF, rename, dsync}, nil},
		{"temp name synced by sync(), then renamed", []string{dir, create, write, dsync, sync, closeF, rename, dsync}, nil},
		{"temp name synced, then unlinked", []string{dir, create, write, dsync, fsync, closeF, unlink, dsync}, nil},
		// The classic mistakes: the rename made durable, the data not yet.
		{"rename, directory fsync, then the file's fsync", []string{dir, create, write, rename, dsync, ack, fsync, closeF}, []string{"/w/f"}},
		{"rename, directory fsync, the file never synced", []string{dir, create, write, closeF, rename, dsync}, []string{"/w/f"}},
		// A name the program keeps: a crash can show f empty. (Each
		// tells the user something before the file's fsync: one in the
		// very next call is TestDirSyncBeforeDataNextCall's.)
		{"create, directory fsync, then the file's fsync", []string{dir, createF, write, dsync, ack, fsync, closeF}, []string{"/w/f"}},
		{"create, directory fsync, never synced", []string{dir, createF, write, closeF, dsync}, []string{"/w/f"}},
		// Given up while the data is pending: still at risk.
		{"temp name renamed before its data was synced", []string{dir, create, write, dsync, rename, fsync, closeF, dsync}, []string{"/w/f.tmp"}},
		// Synced, then written again and renamed with that write pending:
		// the fsync covered what was pending at the directory fsync, and
		// the new write is rename-before-sync's.
		{"temp name synced, written again, renamed", []string{dir, create, write, dsync, fsync, write, rename, fsync, closeF, dsync}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range dirSyncFindings(t, append(tc.lines, "1 exit_group(0) = ?", "1 +++ exited with 0 +++")) {
				got = append(got, f.Path)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("dir-sync-before-data on %q, want %q", got, tc.want)
			}
		})
	}
}

// TestConcurrentSavesDirSyncStillReported: the thread-pool save of
// TestConcurrentSavesDirSync with the mistake put back. Thread 101
// renames its temp file before its fsync has run: the other thread's
// directory fsync made rec7.json.tmp durable while its data was pending,
// and the file gives that name up with the data still pending, so the
// finding stays, whichever thread synced the directory.
func TestConcurrentSavesDirSyncStillReported(t *testing.T) {
	const trace = `100 mkdir("/srv/app/data", 0777) = 0
101 openat(AT_FDCWD, "/srv/app/data/rec7.json.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4
101 write(4, "{\"n\": 7}\n", 9) = 9
102 openat(AT_FDCWD, "/srv/app/data/rec6.json.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 5
102 write(5, "{\"n\": 6}\n", 9) = 9
102 fsync(5) = 0
102 close(5) = 0
102 rename("/srv/app/data/rec6.json.tmp", "/srv/app/data/rec6.json") = 0
102 openat(AT_FDCWD, "/srv/app/data", O_RDONLY) = 7
102 fsync(7) = 0
102 close(7) = 0
101 rename("/srv/app/data/rec7.json.tmp", "/srv/app/data/rec7.json") = 0
101 fsync(4) = 0
101 close(4) = 0
101 openat(AT_FDCWD, "/srv/app/data", O_RDONLY) = 6
101 fsync(6) = 0
101 close(6) = 0
`
	res := runText(t, trace, Options{Roots: []string{"/srv/app"}})
	var got []string
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		if f.Rule.ID == DirSyncBeforeData || f.Rule.ID == RenameBeforeSync {
			got = append(got, f.Rule.ID+" "+f.Path)
		}
	}
	slices.Sort(got)
	want := []string{"dir-sync-before-data /srv/app/data/rec7.json.tmp", "rename-before-sync /srv/app/data/rec7.json"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestDirSyncBeforeDataWindowEnd: dir-sync-before-data says how long a
// crash can show the name without the data. A sync of the file (fsync,
// fdatasync) or of everything (sync) after the directory fsync, while the
// file keeps the name, ends the window: the message says which line, and
// the sync is among the related calls. A sync of the file that leaves a
// write made before the directory fsync pending (a sync_file_range, a
// sync of another file) ends nothing; with no such sync the window lasts
// to the end. Each case tells the user something between the two syncs
// (ack): a sync in the very next call is the next test's.
func TestDirSyncBeforeDataWindowEnd(t *testing.T) {
	const (
		dir    = `1 openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 3`
		create = `1 openat(AT_FDCWD, "/w/f", O_WRONLY|O_CREAT|O_EXCL, 0666) = 4`
		other  = `1 openat(AT_FDCWD, "/w/g", O_WRONLY|O_CREAT|O_EXCL, 0666) = 5`
		write  = `1 write(4, "data\n", 5) = 5`
		writeG = `1 write(5, "data\n", 5) = 5`
		dsync  = `1 fsync(3) = 0`
		fsync  = `1 fsync(4) = 0`
		fdsync = `1 fdatasync(4) = 0`
		syncG  = `1 fsync(5) = 0`
		sync   = `1 sync() = 0`
		sfr    = `1 sync_file_range(4, 0, 0, SYNC_FILE_RANGE_WRITE) = 0`
		ack    = `1 write(1, "saved\n", 6) = 6`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		until string // in the message
		end   int    // the related sync's line, 0 for none
	}{
		{"fsync of the file", []string{dir, create, write, dsync, ack, fsync}, "a crash before the fsync at line 6 leaves", 6},
		{"fdatasync of the file", []string{dir, create, write, dsync, ack, fdsync}, "a crash before the fdatasync at line 6 leaves", 6},
		{"sync of everything", []string{dir, create, write, dsync, ack, sync, fsync}, "a crash before the sync at line 6 leaves", 6},
		{"fsync of another file first", []string{dir, create, other, write, writeG, dsync, syncG, fsync}, "a crash before the fsync at line 8 leaves", 8},
		{"sync_file_range only", []string{dir, create, write, dsync, sfr}, "a crash from here on leaves", 0},
		{"no sync", []string{dir, create, write, dsync}, "a crash from here on leaves", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, f := range dirSyncFindings(t, tc.lines) {
				if f.Path != "/w/f" {
					continue
				}
				n++
				if !strings.Contains(f.Message, tc.until) {
					t.Errorf("message %q, want it to say %q", f.Message, tc.until)
				}
				end := 0
				for _, r := range f.Related {
					if r.What == "the sync that ends the window" {
						end = r.Line
					}
				}
				if end != tc.end {
					t.Errorf("related sync ending the window at line %d, want %d (0: none): %+v", end, tc.end, f.Related)
				}
			}
			if n != 1 {
				t.Errorf("%d dir-sync-before-data findings on /w/f, want 1", n)
			}
		})
	}
}

// TestDirSyncBeforeDataNextCall: a file the same process syncs in the
// call right after the directory fsync is not reported (gzip
// --synchronous, fixtures/traces/gzip-synchronous): with nothing in
// between, a crash leaves the same states in either order. Another
// process's call in between, or the process's own, keeps the finding.
func TestDirSyncBeforeDataNextCall(t *testing.T) {
	const (
		dir    = `1 openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 3`
		create = `1 openat(AT_FDCWD, "/w/f", O_WRONLY|O_CREAT|O_EXCL, 0666) = 4`
		write  = `1 write(4, "data\n", 5) = 5`
		dsync  = `1 fsync(3) = 0`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		want  int
	}{
		{"fsync next", []string{dir, create, write, dsync, `1 fsync(4) = 0`}, 0},
		{"fdatasync next", []string{dir, create, write, dsync, `1 fdatasync(4) = 0`}, 0},
		{"sync next", []string{dir, create, write, dsync, `1 sync() = 0`}, 0},
		{"a close between", []string{dir, create, write, dsync, `1 close(3) = 0`, `1 fsync(4) = 0`}, 1},
		{"another process between", []string{dir, create, write, dsync, `2 getpid() = 2`, `1 fsync(4) = 0`}, 1},
		{"another process syncs next", []string{dir, create, write, dsync, `2 sync() = 0`}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, f := range dirSyncFindings(t, tc.lines) {
				if f.Path == "/w/f" {
					n++
				}
			}
			if n != tc.want {
				t.Errorf("%d dir-sync-before-data findings on /w/f, want %d", n, tc.want)
			}
		})
	}
}
