package model_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// outcomesOf replays a fixture's -f -ttt -y -xx trace under persistence p
// and returns, per path (relative to the case directory), the outcome set
// at the last crash point and the union over every crash point.
func outcomesOf(t *testing.T, name string, p model.Persistence) (final, ever map[string]string) {
	t.Helper()
	dir := filepath.Join("..", "fixtures", "traces", name)
	lf, err := os.Open(filepath.Join(dir, "initial.list"))
	if err != nil {
		t.Fatal(err)
	}
	listing, err := model.ReadInitial(lf, lf.Name())
	lf.Close()
	if err != nil {
		t.Fatal(err)
	}
	root := "/tmp/crashsim-fixtures/" + name + "/"
	scope := func(p string) bool { return strings.HasPrefix(p, root) }
	tl := model.NewTimeline(model.Options{Persistence: p, Existed: listing.Existed}, scope, 1<<16)
	s, err := parser.Open(filepath.Join(dir, "f-ttt-y-xx.strace"), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	union := map[string]map[model.Outcome]bool{}
	var last model.Point
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pt, ok := tl.Step(ev)
		if !ok {
			continue
		}
		last = pt
		for path, po := range pt.All() {
			if union[path] == nil {
				union[path] = map[model.Outcome]bool{}
			}
			for _, o := range po.Outcomes {
				union[path][o] = true
			}
		}
	}
	final, ever = map[string]string{}, map[string]string{}
	for path, po := range last.All() {
		final[strings.TrimPrefix(path, root)] = join(po.Outcomes)
	}
	for path, set := range union {
		var os []model.Outcome
		for o := range set {
			os = append(os, o)
		}
		model.SortOutcomes(os)
		ever[strings.TrimPrefix(path, root)] = join(os)
	}
	return final, ever
}

func join(os []model.Outcome) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, " ")
}

// TestFinalOutcomes pins, with sets computed by hand, what a crash at the
// end of each program can leave, under both persistence models.
func TestFinalOutcomes(t *testing.T) {
	tests := []outcomeCase{
		// Seed 004's four modes. file-only: the file is fsynced, its name
		// never; ext4's file fsync commits the journal, names included.
		{"dirsync-file-only", "data/f0.bin", "missing latest", "latest"},
		{"dirsync-file-then-dir", "data/f0.bin", "latest", "latest"},
		// dir-only: the name is durable, the data is not. posix lets the
		// size persist without the data (zeros); ext4's delayed allocation
		// brings back a shorter (here empty) file instead.
		// ext4: writeback of the unsynced data can start on its own and
		// commit the size before the data (oracle --blocks saw zeros).
		{"dirsync-dir-only", "data/f0.bin", "latest empty zeros", "latest empty zeros"},
		{"dirsync-rename", "data/f0.bin", "latest", "latest"},
		{"dirsync-rename", "data/f0.bin.tmp", "missing", "missing"},
		// Python without f.flush(): after the final directory fsync the
		// target can be empty (posix). On ext4 the rename over the old
		// file starts writeback of the new one (auto_da_alloc) without
		// waiting: crashsim oracle saw config.txt come back as 21 zero
		// bytes on a real ext4 at this very point.
		{"python-noflush", "config.txt", "latest empty zeros", "latest empty zeros"},
		{"python-flush", "config.txt", "latest", "latest"},
		{"go-atomic", "config.json", "latest", "latest"},
		// sed -i renames an unsynced temp file over settings.ini and syncs
		// nothing: the old file can come back, or the new name with no data
		// (ext4: zeros too, its writeback started by the rename).
		{"sed-i", "settings.ini", "initial latest empty zeros", "initial latest empty zeros"},
		// O_TRUNC in place, then fsync: safe at the end.
		{"truncate-in-place", "state.txt", "latest", "latest"},
	}
	checkOutcomes(t, tests, false)
}

// outcomeCase is one path of a fixture with its outcome sets, as a
// space-separated list, under each model.
type outcomeCase struct {
	fixture, path string
	posix, ext4   string
}

// checkOutcomes compares each case with the outcomes at the end of the
// trace (ever false) or over every crash point (ever true).
func checkOutcomes(t *testing.T, tests []outcomeCase, ever bool) {
	t.Helper()
	for _, tc := range tests {
		for _, p := range []model.Persistence{model.Posix, model.Ext4} {
			want := tc.posix
			if p == model.Ext4 {
				want = tc.ext4
			}
			final, overall := outcomesOf(t, tc.fixture, p)
			got, when := final[tc.path], "at the end"
			if ever {
				got, when = overall[tc.path], "over the run"
			}
			if got != want {
				t.Errorf("%s %s under %s: outcomes %s %q, want %q", tc.fixture, tc.path, p, when, got, want)
			}
		}
	}
}

// TestOutcomesOverTheRun pins the union of outcomes over every crash point.
func TestOutcomesOverTheRun(t *testing.T) {
	tests := []outcomeCase{
		// With f.flush() the saved file is only ever the old or the new
		// one; without, it can also be empty or zeros (posix) at some point.
		{"python-flush", "config.txt", "initial latest", "initial latest"},
		{"python-noflush", "config.txt", "initial latest empty zeros", "initial latest empty zeros"},
		// Go's atomic save never leaves config.json empty, torn or zeros.
		{"go-atomic", "config.json", "initial latest", "initial latest"},
		// Truncating in place: between the truncation and the fsync a
		// crash leaves the old content, nothing, the new content, or
		// (posix) the new bytes over the old ones without the truncation:
		// a torn mix.
		{"truncate-in-place", "state.txt", "initial latest empty torn zeros", "initial latest empty zeros"},
	}
	checkOutcomes(t, tests, true)
}

// TestPersistenceDifferences pins each way a filesystem model differs
// from posix on a small synthetic trace, one rule per case.
func TestPersistenceDifferences(t *testing.T) {
	tests := []struct {
		name, trace             string
		path                    string
		posix, ext4, xfs, btrfs string
	}{
		{"a file fsync makes its own new name durable, except under posix",
			"openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/a>\nwrite(3</d/a>, \"x\", 1) = 1\nfsync(3</d/a>) = 0\n",
			"/d/a", "missing latest", "latest", "latest", "latest"},
		{"a file fsync commits other names on ext4 and xfs, not btrfs (log tree)",
			"openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/a>\nopenat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\nwrite(4</d/b>, \"x\", 1) = 1\nfsync(4</d/b>) = 0\n",
			"/d/a", "missing latest", "latest", "latest", "missing latest"},
		// lsm-manifest: an fdatasync that writes a new size commits the
		// journal (ext4) or forces the log (xfs); one of a rewrite in
		// place does neither. redis-aof: btrfs logs a file whose creation
		// is pending with its name, fsync or fdatasync.
		{"an fdatasync of a new file that grows makes its name durable on ext4, xfs and btrfs",
			"openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/a>\nwrite(3</d/a>, \"x\", 1) = 1\nfdatasync(3</d/a>) = 0\n",
			"/d/a", "missing latest", "latest", "latest", "latest"},
		// fdatasync-rename: btrfs logs the rename of the file it
		// fdatasyncs, not the create made before it.
		{"an fdatasync makes the file's rename durable on btrfs, not an earlier create",
			"openat(AT_FDCWD</d>, \"e\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/e>\nrename(\"/d/a\", \"/d/b\") = 0\nopenat(AT_FDCWD</d>, \"b\", O_WRONLY|O_APPEND) = 3</d/b>\nwrite(3</d/b>, \"x\", 1) = 1\nfdatasync(3</d/b>) = 0\n",
			"/d/b", "initial latest", "latest", "latest", "latest"},
		{"an fdatasync on btrfs leaves an earlier create of another file pending",
			"openat(AT_FDCWD</d>, \"e\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/e>\nrename(\"/d/a\", \"/d/b\") = 0\nopenat(AT_FDCWD</d>, \"b\", O_WRONLY|O_APPEND) = 3</d/b>\nwrite(3</d/b>, \"x\", 1) = 1\nfdatasync(3</d/b>) = 0\n",
			"/d/e", "missing latest", "latest", "latest", "missing latest"},
		{"an fdatasync of a rewrite in place commits nothing",
			"openat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\nopenat(AT_FDCWD</d>, \"a\", O_WRONLY) = 3</d/a>\npwrite64(3</d/a>, \"x\", 1, 0) = 1\nfdatasync(3</d/a>) = 0\n",
			"/d/b", "missing latest", "missing latest", "missing latest", "missing latest"},
		// fsync-clean: a sync with nothing new to write commits nothing.
		{"a second fsync with nothing new commits nothing",
			"openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/a>\nwrite(3</d/a>, \"x\", 1) = 1\nfsync(3</d/a>) = 0\nopenat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\nfsync(3</d/a>) = 0\n",
			"/d/b", "missing latest", "missing latest", "missing latest", "missing latest"},
		// fsync-old-change: a sync commits up to the file's last change;
		// names made after it are not sure to commit with it (ext4
		// committed that change on its own before).
		{"an fsync of a rewrite in place commits up to the rewrite, not after",
			"openat(AT_FDCWD</d>, \"a\", O_RDWR) = 3</d/a>\nfstat(3</d/a>, {st_mode=S_IFREG|0644, st_size=8192, ...}) = 0\nopenat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\npwrite64(3</d/a>, \"x\", 1, 0) = 1\nopenat(AT_FDCWD</d>, \"c\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5</d/c>\nfsync(3</d/a>) = 0\n",
			"/d/c", "missing latest", "missing latest", "missing latest", "missing latest"},
		{"an fsync of a rewrite in place commits the names made before the rewrite",
			"openat(AT_FDCWD</d>, \"a\", O_RDWR) = 3</d/a>\nfstat(3</d/a>, {st_mode=S_IFREG|0644, st_size=8192, ...}) = 0\nopenat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\npwrite64(3</d/a>, \"x\", 1, 0) = 1\nopenat(AT_FDCWD</d>, \"c\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5</d/c>\nfsync(3</d/a>) = 0\n",
			"/d/b", "missing latest", "latest", "latest", "missing latest"},
		// dpkg: writeback started by sync_file_range may have its new
		// size logged by any commit after it, and an fsync then commits
		// nothing new: what came after the start is not sure, what came
		// before it is.
		{"an fsync of a growing file whose writeback a sync_file_range started does not commit what came after it",
			"openat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\nwrite(4</d/b>, \"x\", 1) = 1\nsync_file_range(4</d/b>, 0, 0, SYNC_FILE_RANGE_WRITE) = 0\nopenat(AT_FDCWD</d>, \"c\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5</d/c>\nfsync(4</d/b>) = 0\n",
			"/d/c", "missing latest", "missing latest", "missing latest", "missing latest"},
		{"an fsync of a growing file whose writeback a sync_file_range started commits what came before it",
			"openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/a>\nopenat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\nwrite(4</d/b>, \"x\", 1) = 1\nsync_file_range(4</d/b>, 0, 0, SYNC_FILE_RANGE_WRITE) = 0\nfsync(4</d/b>) = 0\n",
			"/d/a", "missing latest", "latest", "latest", "missing latest"},
		{"an fsync of a file grown after its sync_file_range commits up to itself",
			"openat(AT_FDCWD</d>, \"b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/b>\nwrite(4</d/b>, \"x\", 1) = 1\nsync_file_range(4</d/b>, 0, 0, SYNC_FILE_RANGE_WRITE) = 0\nwrite(4</d/b>, \"y\", 1) = 1\nopenat(AT_FDCWD</d>, \"c\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5</d/c>\nfsync(4</d/b>) = 0\n",
			"/d/c", "missing latest", "latest", "latest", "missing latest"},
		// git-commit-fsync: on btrfs the rename of a file already in the
		// log rides on the next log sync, whichever file it is for.
		{"btrfs: the rename of a file synced before it is durable with the next fsync of any file",
			"openat(AT_FDCWD</d>, \"t\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/t>\nwrite(3</d/t>, \"x\", 1) = 1\nfsync(3</d/t>) = 0\nrename(\"/d/t\", \"/d/c\") = 0\nopenat(AT_FDCWD</d>, \"o\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/o>\nwrite(4</d/o>, \"y\", 1) = 1\nfsync(4</d/o>) = 0\n",
			"/d/c", "initial latest", "latest", "latest", "latest"},
		{"btrfs: not the rename of a file never synced",
			"openat(AT_FDCWD</d>, \"t\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/t>\nwrite(3</d/t>, \"x\", 1) = 1\nrename(\"/d/t\", \"/d/c\") = 0\nopenat(AT_FDCWD</d>, \"o\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</d/o>\nwrite(4</d/o>, \"y\", 1) = 1\nfsync(4</d/o>) = 0\n",
			"/d/c", "initial latest empty zeros", "latest empty zeros", "latest empty", "initial latest empty"},
		// overwrite-scatter: writeback goes in file offset order, so
		// rewrites in place persist in any subset on every filesystem.
		{"rewrites in place persist in any subset",
			"openat(AT_FDCWD</d>, \"a\", O_RDWR) = 3</d/a>\nfstat(3</d/a>, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0\npwrite64(3</d/a>, \"x\", 1, 8192) = 1\npwrite64(3</d/a>, \"y\", 1, 0) = 1\n",
			"/d/a", "initial earlier latest torn", "initial earlier latest torn", "initial earlier latest torn", "initial earlier latest torn"},
		// overwrite-extend (PostgreSQL's postmaster.pid): a rewrite from
		// offset 0 that goes past the old end, within one page; its bytes
		// below the old end can land without the new size.
		{"a rewrite past the old end can keep its bytes below it without the new size",
			"openat(AT_FDCWD</d>, \"a\", O_RDWR) = 3</d/a>\nfstat(3</d/a>, {st_mode=S_IFREG|0644, st_size=93, ...}) = 0\npwrite64(3</d/a>, \"0123456789\"..., 102, 0) = 102\nfsync(3</d/a>) = 0\npwrite64(3</d/a>, \"abcdefghij\"..., 110, 0) = 110\n",
			"/d/a", "earlier latest torn", "earlier latest torn", "earlier latest torn", "earlier latest torn"},
		{"appends persist in order on the filesystems",
			"openat(AT_FDCWD</d>, \"a\", O_RDWR) = 3</d/a>\nfstat(3</d/a>, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0\npwrite64(3</d/a>, \"x\", 1, 16384) = 1\npwrite64(3</d/a>, \"y\", 1, 16385) = 1\n",
			"/d/a", "initial earlier latest torn", "initial earlier latest torn", "initial earlier latest", "initial earlier latest"},
		{"unsynced data: zeros on ext4 (writeback commits the size first), never on xfs and btrfs",
			"openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/a>\nfsync(3</d/a>) = 0\nwrite(3</d/a>, \"x\", 1) = 1\n",
			"/d/a", "missing latest empty zeros", "latest empty zeros", "latest empty", "latest empty"},
		{"no holes on the filesystems: two writes persist in order",
			"openat(AT_FDCWD</d>, \"a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/a>\nfsync(3</d/a>) = 0\nwrite(3</d/a>, \"x\", 1) = 1\nwrite(3</d/a>, \"y\", 1) = 1\n",
			"/d/a", "missing earlier latest empty torn zeros", "earlier latest empty torn zeros", "earlier latest empty", "earlier latest empty"},
		// fsync-clean: xfs forces the log for a directory fsync only
		// while the directory has changes in it.
		{"a directory fsync commits every directory on ext4, even one with nothing changed",
			"openat(AT_FDCWD</d>, \"e/a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/e/a>\nopenat(AT_FDCWD</d>, \"f\", O_RDONLY|O_DIRECTORY) = 4</d/f>\nfsync(4</d/f>) = 0\n",
			"/d/e/a", "missing latest", "latest", "missing latest", "missing latest"},
		{"a directory fsync commits every directory on ext4 and xfs, its own on btrfs",
			"openat(AT_FDCWD</d>, \"e/a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/e/a>\nopenat(AT_FDCWD</d>, \"f/b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5</d/f/b>\nopenat(AT_FDCWD</d>, \"f\", O_RDONLY|O_DIRECTORY) = 4</d/f>\nfsync(4</d/f>) = 0\n",
			"/d/e/a", "missing latest", "latest", "latest", "missing latest"},
		{"a directory fsync keeps a new directory's own name on the filesystems",
			"mkdir(\"/d/n\", 0777) = 0\nopenat(AT_FDCWD</d>, \"n\", O_RDONLY|O_DIRECTORY) = 4</d/n>\nfsync(4</d/n>) = 0\n",
			"/d/n", "missing latest", "latest", "latest", "latest"},
		{"auto_da_alloc: zeros after a rename over a file only on ext4",
			"openat(AT_FDCWD</d>, \"c\", O_RDONLY) = 5</d/c>\nopenat(AT_FDCWD</d>, \"t\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/t>\nwrite(3</d/t>, \"x\", 1) = 1\nrename(\"/d/t\", \"/d/c\") = 0\nopenat(AT_FDCWD</d>, \".\", O_RDONLY|O_DIRECTORY) = 4</d>\nfsync(4</d>) = 0\n",
			"/d/c", "latest empty zeros", "latest empty zeros", "latest empty", "latest empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "trace")
			os.WriteFile(name, []byte(tc.trace), 0o644)
			got := map[model.Persistence]string{}
			for _, p := range model.Persistences {
				s, err := parser.Open(name, parser.Options{})
				if err != nil {
					t.Fatal(err)
				}
				tl := model.NewTimeline(model.Options{Persistence: p}, func(string) bool { return true }, 1<<16)
				var last model.Point
				for {
					ev, err := s.Next()
					if err != nil {
						break
					}
					if pt, ok := tl.Step(ev); ok {
						last = pt
					}
				}
				s.Close()
				got[p] = join(last.All()[tc.path].Outcomes)
			}
			want := map[model.Persistence]string{model.Posix: tc.posix, model.Ext4: tc.ext4, model.Xfs: tc.xfs, model.Btrfs: tc.btrfs}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
}

// Rewrites in place under the ordered models: with few ops every subset
// of them is a state, counted exactly; past ExhaustiveOps they are
// sampled, and the count says it is a bound, never exact.
func TestRewritesInPlaceCounted(t *testing.T) {
	for _, tc := range []struct {
		writes int
		total  int64
		exact  bool
	}{{3, 8, true}, {model.ExhaustiveOps + 4, 1 << (model.ExhaustiveOps + 4), false}} {
		var b strings.Builder
		b.WriteString("openat(AT_FDCWD</w>, \"a\", O_RDWR) = 3</w/a>\nfstat(3</w/a>, {st_mode=S_IFREG|0644, st_size=1048576, ...}) = 0\n")
		for i := range tc.writes {
			// Out of offset order: the last page first.
			fmt.Fprintf(&b, "pwrite64(3</w/a>, \"x\", 1, %d) = 1\n", (tc.writes-i)*4096)
		}
		for _, p := range []model.Persistence{model.Ext4, model.Xfs, model.Btrfs} {
			po := lastPoint(t, b.String(), p).All()["/w/a"]
			if po.Total != tc.total || po.Exact != tc.exact {
				t.Errorf("%d rewrites under %s: %d states (exact %v), want %d (exact %v)", tc.writes, p, po.Total, po.Exact, tc.total, tc.exact)
			}
			if got := join(po.Outcomes); got != "initial earlier latest torn" {
				t.Errorf("%d rewrites under %s: outcomes %q, want initial earlier latest torn", tc.writes, p, got)
			}
		}
	}
}
