package check

import (
	"strings"
	"testing"
)

// TestStatusNotFailedNoAccess: a C program's fsync fails, it retries and
// the retry succeeds. Recorded with -e status=successful,unfinished (or
// !failed) the failed fsync is gone, exit_group still shows, and so does
// no access call at all: the loader's access of /etc/ld.so.preload
// failed. The calls glibc makes in every program (brk, set_tid_address)
// say no -e trace= list left access out; crashsim trace's list keeps
// neither kind.
func TestStatusNotFailedNoAccess(t *testing.T) {
	const (
		exec   = "1 execve(\"/usr/bin/prog\", [\"prog\"], 0x7ffd0000 /* 3 vars */) = 0\n"
		brk    = "1 brk(NULL) = 0x558d6e6a8000\n"
		access = "1 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n"
		cache  = "1 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n" + loaderMap + "1 close(3) = 0\n"
		start  = "1 set_tid_address(0x7f22000010d0) = 1\n1 mprotect(0x7f78780e3000, 16384, PROT_READ) = 0\n"
		save   = "1 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n1 write(3, \"x\", 1) = 1\n1 fsync(3) = 0\n1 close(3) = 0\n" +
			"1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 3\n1 fsync(3) = 0\n1 close(3) = 0\n" +
			"1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
		failed = "1 fsync(3) = -1 EIO (Input/output error)\n"
	)
	retried := strings.Replace(save, "1 fsync(3) = 0\n", failed+"1 fsync(3) = 0\n", 1)
	wantBlind(t, Options{Roots: []string{"/w"}}, []blindCase{
		{"failed calls left out (status=successful,unfinished)", exec + brk + cache + start + save, []string{BlindSuccessfulOnly}},
		{"the whole trace", exec + brk + access + cache + start + retried, nil},
		// crashsim trace's list: mmap and mprotect, no brk, no access, no
		// call of no class.
		{"a list without access and the calls of no class", exec + cache + "1 mprotect(0x7f78780e3000, 16384, PROT_READ) = 0\n" + save, nil},
		// The cache opened later than the program's start (dlopen of an
		// NSS module after an open of its own): no loader starting.
		{"the cache opened after another open", exec + brk + "1 openat(AT_FDCWD, \"/etc/nsswitch.conf\", O_RDONLY|O_CLOEXEC) = 3\n1 close(3) = 0\n" + cache + start + save, nil},
	})
	msgs := blindMessages(t, "s.strace", exec+brk+cache+start+save, Options{Roots: []string{"/w"}}, BlindSuccessfulOnly)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "-e status=!failed") || !strings.Contains(msgs[0], "ld.so.preload") {
		t.Errorf("message %q, want one naming -e status=!failed and ld.so.preload", msgs)
	}
}

// TestStatusNotFailedGo: a static Go program has no loader; its os
// package sets every file it opens non-blocking, adds it to the
// netpoller's epoll, and clears O_NONBLOCK again only when that
// epoll_ctl failed (EPERM, for every regular file and directory). A
// clear with no epoll_ctl between shows the failed call left out.
func TestStatusNotFailedGo(t *testing.T) {
	const (
		exec = "1 execve(\"/usr/bin/gosave\", [\"gosave\"], 0x7ffd0000 /* 3 vars */) = 0\n" +
			"1 openat(AT_FDCWD, \"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size\", O_RDONLY) = 3\n1 read(3, \"2097152\\n\", 20) = 8\n1 close(3) = 0\n"
		open = "1 openat(AT_FDCWD, \"/w/f.tmp\", O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 5\n" +
			"1 fcntl(5, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)\n1 fcntl(5, F_SETFL, O_RDWR|O_NONBLOCK|O_LARGEFILE) = 0\n" +
			"1 epoll_create1(EPOLL_CLOEXEC) = 6\n1 eventfd2(0, EFD_CLOEXEC|EFD_NONBLOCK) = 7\n" +
			"1 epoll_ctl(6, EPOLL_CTL_ADD, 7, {events=EPOLLIN, data={u32=5832536, u64=5832536}}) = 0\n"
		eperm = "1 epoll_ctl(6, EPOLL_CTL_ADD, 5, {events=EPOLLIN|EPOLLOUT|EPOLLRDHUP|EPOLLET, data={u32=1, u64=1}}) = -1 EPERM (Operation not permitted)\n"
		clear = "1 fcntl(5, F_GETFL) = 0x8802 (flags O_RDWR|O_NONBLOCK|O_LARGEFILE)\n1 fcntl(5, F_SETFL, O_RDWR|O_LARGEFILE) = 0\n"
		save  = "1 write(5, \"v=2\\n\", 4) = 4\n1 fsync(5) = 0\n1 close(5) = 0\n" +
			"1 renameat(AT_FDCWD, \"/w/f.tmp\", AT_FDCWD, \"/w/f\") = 0\n" +
			"1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_CLOEXEC) = 5\n1 fsync(5) = 0\n1 close(5) = 0\n" +
			"1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
		failed = "1 fsync(5) = -1 EIO (Input/output error)\n"
	)
	wantBlind(t, Options{Roots: []string{"/w"}}, []blindCase{
		{"failed calls left out", exec + open + clear + save, []string{BlindSuccessfulOnly}},
		{"the whole trace", exec + open + eperm + clear + failed + save, nil},
		// A pipe the netpoller took: O_NONBLOCK stays.
		{"a pollable fd", exec + open + "1 epoll_ctl(6, EPOLL_CTL_ADD, 5, {events=EPOLLIN, data={u32=1, u64=1}}) = 0\n" + save, nil},
		// Without a netpoller, a toggle says nothing.
		{"no epoll", exec + "1 openat(AT_FDCWD, \"/w/f.tmp\", O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 5\n1 fcntl(5, F_SETFL, O_RDWR|O_NONBLOCK) = 0\n" + clear + save, nil},
	})
}
