package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// statsTrace exercises every counted call, failures, pseudo files and a
// file out of the --root, in strace -f -y form.
const statsTrace = `100 openat(AT_FDCWD</w>, "a.txt", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</w/a.txt>
100 write(3</w/a.txt>, "abc", 3) = 3
100 pwrite64(3</w/a.txt>, "de", 2, 10) = 2
100 writev(3</w/a.txt>, [{iov_base="f", iov_len=1}, {iov_base="gh", iov_len=2}], 2) = 3
100 pwritev(3</w/a.txt>, [{iov_base="i", iov_len=1}], 1, 20) = 1
100 write(3</w/a.txt>, "zzzz", 4) = -1 ENOSPC (No space left on device)
100 fsync(3</w/a.txt>) = 0
100 fsync(3</w/a.txt>) = -1 EIO (Input/output error)
100 fdatasync(3</w/a.txt>) = 0
100 sync_file_range(3</w/a.txt>, 0, 0, SYNC_FILE_RANGE_WRITE) = 0
100 openat(AT_FDCWD</w>, "src", O_RDONLY) = 4</w/src>
100 copy_file_range(4</w/src>, NULL, 3</w/a.txt>, NULL, 100, 0) = 100
100 sendfile(3</w/a.txt>, 4</w/src>, NULL, 50) = 50
100 write(1<pipe:[1234]>, "out", 3) = 3
100 write(5<socket:[99]>, "net", 3) = 3
100 write(6</dev/null>, "x", 1) = 1
100 write(7</proc/self/oom_score_adj>, "0", 1) = 1
100 openat(AT_FDCWD</w>, "/elsewhere/b.txt", O_WRONLY|O_CREAT, 0644) = 8</elsewhere/b.txt>
100 write(8</elsewhere/b.txt>, "b", 1) = 1
100 rename("a.txt", "c.txt") = 0
100 renameat2(AT_FDCWD</w>, "c.txt", AT_FDCWD</w>, "d.txt", RENAME_NOREPLACE) = 0
100 rename("missing", "e.txt") = -1 ENOENT (No such file or directory)
100 close(3</w/d.txt>) = 0
100 +++ exited with 0 +++
`

func TestStatsCounts(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(trace, []byte(statsTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "stats", "--format", "json", trace)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct{ Files []fileStats }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	want := []fileStats{
		{Path: "/elsewhere/b.txt", Writes: 1, Bytes: 1},
		{Path: "/w/a.txt", Writes: 6, Bytes: 3 + 2 + 3 + 1 + 100 + 50, Fsync: 1, Fdatasync: 1, SyncFileRange: 1, Renames: 1, FailedSyncs: 1},
		{Path: "/w/c.txt", Renames: 2},
		{Path: "/w/d.txt", Renames: 1},
	}
	if len(got.Files) != len(want) {
		t.Fatalf("got %d files, want %d:\n%s", len(got.Files), len(want), out)
	}
	for i := range want {
		if got.Files[i] != want[i] {
			t.Errorf("file %d:\n got %+v\nwant %+v", i, got.Files[i], want[i])
		}
	}

	// --root keeps the files below it (relative roots work too).
	out, _, _ = runCLI(t, "stats", "--format", "json", "--root", "/elsewhere", trace)
	got.Files = nil
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Files) != 1 || got.Files[0].Path != "/elsewhere/b.txt" {
		t.Errorf("--root /elsewhere: %s", out)
	}
}
