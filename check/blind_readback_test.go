package check

import (
	"strings"
	"testing"
)

// TestReadBackNoWrite: ed keeps its buffer in an O_TMPFILE file and reads
// it back when it saves, truncating the file it edits and rewriting it.
// Under -e trace=!write the new, empty file returns bytes no call put
// there, and the truncation and rewrite (truncate-in-place) went unseen,
// with no blind spot. The read back is the sign; a full trace shows the
// write, and a file made then grown with ftruncate reads back zeros no
// write put there either.
func TestReadBackNoWrite(t *testing.T) {
	const start = "90 execve(\"/usr/bin/ed\", [\"ed\", \"F\"], 0x7ffe0000 /* 20 vars */) = 0\n" +
		"90 openat(AT_FDCWD, \"/tmp\", O_RDWR|O_EXCL|O_TMPFILE, 0600) = 3\n" +
		"90 openat(AT_FDCWD, \"F\", O_RDONLY) = 4\n90 read(4, \"old\\n\", 4096) = 4\n90 read(4, \"\", 4096) = 0\n90 close(4) = 0\n" +
		"90 read(0, \"a\\nx\\n.\\nw\\n\", 4096) = 9\n"
	const save = "90 openat(AT_FDCWD, \"F\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4\n" +
		"90 lseek(3, 0, SEEK_SET) = 0\n90 read(3, \"oldx\", 4096) = 4\n90 close(4) = 0\n" +
		"90 read(0, \"q\\n\", 4096) = 2\n90 exit_group(0) = ?\n90 +++ exited with 0 +++\n"
	const full = "90 openat(AT_FDCWD, \"F\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4\n" +
		"90 write(3, \"oldx\", 4) = 4\n90 lseek(3, 0, SEEK_SET) = 0\n90 read(3, \"oldx\", 4096) = 4\n" +
		"90 write(4, \"old\\nx\\n\", 6) = 6\n90 close(4) = 0\n90 write(1, \"6\\n\", 2) = 2\n" +
		"90 read(0, \"q\\n\", 4096) = 2\n90 exit_group(0) = ?\n90 +++ exited with 0 +++\n"
	grown := strings.Replace(save, "90 lseek(3, 0, SEEK_SET) = 0\n", "90 ftruncate(3, 4) = 0\n", 1)
	// An fd of the new file that dup2 put another file on reads that one.
	dup := strings.Replace(save, "90 lseek(3, 0, SEEK_SET) = 0\n", "90 openat(AT_FDCWD, \"G\", O_RDONLY) = 5\n90 dup2(5, 3) = 3\n", 1)
	opt := Options{Cwd: "/home/u"}
	wantBlind(t, opt, []blindCase{
		{"ed under -e trace=!write", start + save, []string{BlindSyscallFilter}},
		{"ed, full trace", start + full, nil},
		{"a new file grown with ftruncate, read back", start + grown, nil},
		{"another file dup2ed onto its fd", start + dup, nil},
		// O_TMPFILE makes a file: not one opened to write into its data.
		{"a new file never written", start + "90 close(3) = 0\n90 exit_group(0) = ?\n90 +++ exited with 0 +++\n", nil},
	})
	msgs := blindMessages(t, "t.strace", start+save, opt, BlindSyscallFilter)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "returned 4 bytes from a file new or emptied when opened at line 2") || !strings.Contains(msgs[0], "-e trace=!write") {
		t.Errorf("ed under -e trace=!write: %q, want the read back and the filter named", msgs)
	}
}
