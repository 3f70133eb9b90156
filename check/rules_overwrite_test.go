package check

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOverwriteInPlace pins when overwrite-in-place fires: more than one
// write over data on disk between two barriers of the file, unless other
// data became durable after the file's last barrier and before the first
// of them. Every trace works on /w/data.db, which holds 16 KiB before it
// (the fstat says so); /w/j is a journal.
func TestOverwriteInPlace(t *testing.T) {
	const (
		open   = `1 openat(AT_FDCWD, "/w/data.db", O_RDWR) = 3`
		stat   = `1 fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0`
		write0 = `1 pwrite64(3, "aaaa", 4, 0) = 4`
		write2 = `1 pwrite64(3, "cccc", 4, 8192) = 4`
		fsync  = `1 fsync(3) = 0`
		jopen  = `1 openat(AT_FDCWD, "/w/j", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4`
		jwrite = `1 write(4, "old", 3) = 3`
		jsync  = `1 fsync(4) = 0`
	)
	tests := []struct {
		name  string
		lines []string
		fires bool
	}{
		{"two overwrites then fsync", []string{open, stat, write0, write2, fsync}, true},
		{"one overwrite", []string{open, stat, write0, fsync, write2, fsync}, false},
		{"two writes to the same block", []string{open, stat, write0, `1 pwrite64(3, "bb", 2, 100) = 2`, fsync}, true},
		{"never synced", []string{open, stat, write0, write2}, true},
		{"journal synced first", []string{jopen, jwrite, jsync, open, stat, write0, write2, fsync}, false},
		{"journal synced before the file's last sync", []string{jopen, jwrite, jsync, open, stat, write0, fsync, write0, write2, fsync}, true},
		{"journal written after the file's sync, synced later", []string{open, stat, write0, fsync, jopen, jwrite, write0, write2, jsync, fsync}, true},
		{"commit record written O_DSYNC first", []string{open, stat, `1 openat(AT_FDCWD, "/w/data.db", O_WRONLY|O_DSYNC) = 5`,
			write0, fsync, `1 pwrite64(5, "meta", 4, 4096) = 4`, write0, write2, fsync}, false},
		{"appends past the end", []string{open, stat, `1 pwrite64(3, "dddd", 4, 16384) = 4`, `1 pwrite64(3, "eeee", 4, 16388) = 4`, fsync}, false},
		{"truncated first", []string{`1 openat(AT_FDCWD, "/w/data.db", O_RDWR|O_TRUNC) = 3`, stat, write0, write2, fsync}, false},
		{"size unknown", []string{open, write0, write2, fsync}, false},
		{"the pages copied elsewhere in the file and synced first (InnoDB's doublewrite)", []string{open, stat, `1 pwrite64(3, "aaaacccc", 8, 12288) = 8`, fsync, write0, write2, fsync}, false},
		{"a copy smaller than the overwrites", []string{open, stat, `1 pwrite64(3, "aaaa", 4, 12288) = 4`, fsync, write0, write2, fsync}, true},
		{"a copy where an overwrite goes", []string{open, stat, `1 pwrite64(3, "aaaacccc", 8, 8190) = 8`, fsync, write0, write2, fsync}, true},
		{"a copy synced before the file's last sync", []string{open, stat, `1 pwrite64(3, "aaaacccc", 8, 12288) = 8`, fsync, write0, fsync, write0, write2, fsync}, true},
		{"sync() is no journal", []string{jopen, jwrite, open, stat, `1 sync() = 0`, write0, write2, `1 sync() = 0`}, true},
	}
	existed := func(p string) (bool, bool) { return p == "/w/data.db", true }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			res := runText(t, text, Options{Existed: existed})
			var got []string
			for _, f := range res.findings {
				if f.Rule.ID == OverwriteInPlace {
					got = append(got, f.Path)
					if f.State == nil || f.State.Outcome != "torn" {
						t.Errorf("the finding's state is %+v, want a torn data.db", f.State)
					}
				}
			}
			sort.Strings(got)
			var want []string
			if tc.fires {
				want = []string{"/w/data.db"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("overwrite-in-place findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStateLineCompletesSplitCall: a state a crash right after an event
// leaves is at the line that completes it. Here the second overwrite is
// split by another thread's call: the crash after it comes after line 6,
// where it returns, not line 4, where it starts (line 5's call completed
// before it).
func TestStateLineCompletesSplitCall(t *testing.T) {
	text := `1 openat(AT_FDCWD, "/w/data.db", O_RDWR) = 3
1 fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0
1 pwrite64(3, "aaaa", 4, 0) = 4
1 pwrite64(3, "cccc", 4, 8192 <unfinished ...>
2 getpid() = 1
1 <... pwrite64 resumed>) = 4
1 fsync(3) = 0
`
	f := dataDBOverwrite(t, text)
	if f.State == nil || f.State.Line != 6 {
		t.Errorf("the overwrite's state is %+v, want a crash right after line 6", f.State)
	}
}

// dataDBOverwrite checks text, where /w/data.db existed before the trace,
// and returns its one overwrite-in-place finding.
func dataDBOverwrite(t *testing.T, text string) *Finding {
	t.Helper()
	existed := func(p string) (bool, bool) { return p == "/w/data.db", true }
	res := runText(t, text, Options{Existed: existed})
	var found []*Finding
	for _, f := range res.findings {
		if f.Rule.ID == OverwriteInPlace {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d overwrite-in-place findings, want 1", len(found))
	}
	return found[0]
}

// TestOverwriteWindowEndsWhereTheSyncBegan: a sync covers only the
// writes that completed before it began (model.syncCut), so the window it
// ends holds those alone. Here thread 2's fdatasync begins on line 6 and
// returns on line 8; thread 1's third overwrite (line 7) begins after the
// sync began: it stays pending (data-not-synced names it) and belongs to
// the next window, not to the two overwrites "before the fdatasync at line
// 6". Cut from a MariaDB recording (InnoDB's page flushes during OPTIMIZE
// TABLE, under strace -f), names changed.
func TestOverwriteWindowEndsWhereTheSyncBegan(t *testing.T) {
	t.Skip("bug: overwrite-in-place counts in the window a sync ends every write that completed before the sync " +
		"returned, while the model covers only those that completed before it began: the finding says 3 writes " +
		"and names line 7 \"last overwrite before the sync\"; fix: give model.Effect the sync's cut (the Seq of " +
		"the last event it covers, syncCut) and have the window keep its overwrites' refs, closing with those at " +
		"or before the cut and opening the next window with the rest")
	text := `1 clone(child_stack=0x7f0000000000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 2
1 openat(AT_FDCWD, "/w/data.db", O_RDWR) = 3
1 fstat(3, {st_mode=S_IFREG|0644, st_size=65536, ...}) = 0
1 pwrite64(3, "a", 1, 0) = 1
1 pwrite64(3, "b", 1, 8192) = 1
2 fdatasync(3 <unfinished ...>
1 pwrite64(3, "c", 1, 16384) = 1
2 <... fdatasync resumed>) = 0
1 close(3) = 0
`
	f := dataDBOverwrite(t, text)
	if !strings.HasPrefix(f.Message, "data.db: 2 writes overwrote") {
		t.Errorf("message %q, want the 2 writes that completed before the sync began", f.Message)
	}
	for _, r := range f.Related {
		if r.Line == 7 {
			t.Errorf("line 7 named as %q: it began after the sync began", r.What)
		}
	}
}
