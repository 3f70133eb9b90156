package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNoReadsTruncOpen: an open with O_TRUNC empties the file as it opens
// it, so nothing read through it could be the data the file held: a
// program that opens its temp file O_RDWR|O_CREAT|O_TRUNC and never reads
// (a static C program, Go's os.Create) shows no read because it makes
// none, not because a filter left them out.
func TestNoReadsTruncOpen(t *testing.T) {
	const (
		exec = "9 execve(\"/opt/save\", [\"save\"], 0x7ffc0000 /* 1 var */) = 0\n9 brk(NULL) = 0x3ae2000\n"
		tmp  = "9 openat(AT_FDCWD, \"/d/data.tmp\", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3\n9 write(3, \"v\\n\", 2) = 2\n9 fsync(3) = 0\n9 close(3) = 0\n" +
			"9 rename(\"/d/data.tmp\", \"/d/data\") = 0\n9 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 3\n9 fsync(3) = 0\n9 close(3) = 0\n"
		end = "9 exit_group(0) = ?\n9 +++ exited with 0 +++\n"
		// Opened to be read first, then emptied by a second open: the
		// first open could have read it.
		src = "9 openat(AT_FDCWD, \"/d/data.tmp\", O_RDONLY) = 3\n9 close(3) = 0\n"
	)
	wantBlind(t, Options{Roots: []string{"/d"}}, []blindCase{
		{"O_RDWR|O_TRUNC temp file, no read", exec + tmp + end, nil},
		{"opened to be read before, then emptied", exec + src + tmp + end, []string{BlindSyscallFilter}},
	})
}

// TestNoReadsAttachedThread: strace -p without -f follows one thread of a
// Go program; the others read, write and exit_group, and the thread
// traced dies in its futex. What is missing is the other threads' calls,
// blind-unfollowed-children, not a filter's.
func TestNoReadsAttachedThread(t *testing.T) {
	const trace = "futex(0x5a14d8, FUTEX_WAIT_PRIVATE, 0, NULL) = 0\n" +
		"openat(AT_FDCWD, \"/d/log\", O_RDONLY|O_CLOEXEC) = 8\n" +
		"openat(AT_FDCWD, \"/d/log.tmp\", O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 9\n" +
		"write(9, \"v\\n\", 2) = 2\nfsync(9) = 0\nclose(9) = 0\nclose(8) = 0\n" +
		"unlink(\"/d/log\") = 0\n" +
		"futex(0x42b55c5e960, FUTEX_WAKE_PRIVATE, 1) = 1\n" +
		"futex(0x42b55d10160, FUTEX_WAKE_PRIVATE, 1) = ?\n+++ exited with 0 +++\n"
	if diff := cmp.Diff([]string{BlindUnfollowedChildren}, blindOfText(t, "p.strace", trace, Options{Roots: []string{"/d"}})); diff != "" {
		t.Errorf("one thread attached: blind spots (-want +got):\n%s", diff)
	}
}

// TestNoReadsPartialSet: one file of an strace -ff set holds one thread;
// the set's other files may hold the reads.
func TestNoReadsPartialSet(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.12")
	lines := "1700000000.000001 openat(AT_FDCWD, \"/d/log\", O_RDONLY|O_CLOEXEC) = 8\n" +
		"1700000000.000002 close(8) = 0\n" +
		"1700000000.000003 unlink(\"/d/log\") = 0\n" +
		"1700000000.000004 exit_group(0) = ?\n1700000000.000005 +++ exited with 0 +++\n"
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	blind, _, _ := blindRun(t, trace, Options{Roots: []string{"/d"}, SetPrefix: filepath.Join(dir, "t"), SetOthers: []string{filepath.Join(dir, "t.13")}})
	if diff := cmp.Diff([]string{BlindPartialSet}, blind); diff != "" {
		t.Errorf("one file of a set: blind spots (-want +got):\n%s", diff)
	}
}
