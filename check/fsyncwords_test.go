package check

import (
	"strings"
	"testing"
)

// fsync-before-write says the sync "covered nothing" only when no write
// of the file was ever made durable: Python's f.write() then os.fsync()
// without f.flush(). A file written, synced and written again had its
// first bytes covered, and the finding says so.
func TestFsyncBeforeWriteWords(t *testing.T) {
	const open = "100 openat(AT_FDCWD, \"/w/a\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
	const end = "100 close(3) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, body, words string
	}{
		{"nothing written before the sync", "100 fsync(3) = 0\n100 write(3, \"v1\", 2) = 2\n", "a was synced before its data was written: the sync covered nothing,"},
		{"a write before the sync", "100 write(3, \"v1\", 2) = 2\n100 fsync(3) = 0\n100 write(3, \"v2\", 2) = 2\n", "a was synced, then written again: the sync covered only what was written before it,"},
		{"a write synced by an earlier sync", "100 write(3, \"v1\", 2) = 2\n100 fdatasync(3) = 0\n100 fsync(3) = 0\n100 write(3, \"v2\", 2) = 2\n", "the sync covered only what was written before it,"},
	} {
		saysEarlySync(t, c.name, open+c.body+end, c.words)
	}
}

// saysEarlySync checks that trace text gets fsync-before-write findings,
// each of which says words.
func saysEarlySync(t *testing.T, name, text, words string) {
	t.Helper()
	res := runText(t, text, Options{Roots: []string{"/w"}})
	found := false
	for _, f := range res.findings {
		if f.Rule.ID == FsyncBeforeWrite {
			found = true
			if !strings.Contains(f.Message, words) {
				t.Errorf("%s: %q; want it to say %q", name, f.Message, words)
			}
		}
	}
	if !found {
		t.Errorf("%s: no fsync-before-write finding", name)
	}
}

// TestFsyncBeforeWriteNextBatch: a file synced now and then (Redis's
// appendfsync everysec) and written again after other calls has its
// last batch unsynced: data-not-synced, not a sync that came too early,
// whose words ("call f.flush()") would send the user the wrong way. The
// write right after the sync (the rest of a buffer flushed at close) is
// still one.
func TestFsyncBeforeWriteNextBatch(t *testing.T) {
	const open = "100 openat(AT_FDCWD, \"/w/a\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3\n"
	const end = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, body string
		early      bool
	}{
		{"the next batch, after a sleep", "100 write(3, \"r1\\n\", 3) = 3\n100 fdatasync(3) = 0\n" +
			"100 clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=1, tv_nsec=0}, NULL) = 0\n100 write(3, \"r2\\n\", 3) = 3\n", false},
		{"the sync from another thread", "100 clone(child_stack=0x7f0000000000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 101\n" +
			"100 write(3, \"r1\\n\", 3) = 3\n101 fdatasync(3) = 0\n" +
			"100 epoll_wait(5, [], 128, 100) = 0\n100 write(3, \"r2\\n\", 3) = 3\n", false},
		{"the rest of the buffer right after the sync", "100 write(3, \"r1\\n\", 3) = 3\n100 fsync(3) = 0\n100 write(3, \"r2\\n\", 3) = 3\n100 close(3) = 0\n", true},
		{"nothing written before the sync, then later", "100 fsync(3) = 0\n" +
			"100 clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=1, tv_nsec=0}, NULL) = 0\n100 write(3, \"r1\\n\", 3) = 3\n", true},
	} {
		res := runText(t, open+c.body+end, Options{Roots: []string{"/w"}})
		early, lost := false, false
		for _, f := range res.findings {
			early = early || f.Rule.ID == FsyncBeforeWrite
			lost = lost || f.Rule.ID == DataNotSynced
		}
		if early != c.early || !lost {
			t.Errorf("%s: fsync-before-write %v (want %v), data-not-synced %v (want true)", c.name, early, c.early, lost)
		}
	}
}

// TestFsyncBeforeWriteAdvice: the advice names the flush of the runtime
// the syncing process ran, as its execve showed it, through the forks
// and threads that followed (the JVM syncs from a thread of its own);
// where the trace shows none, the common ones.
func TestFsyncBeforeWriteAdvice(t *testing.T) {
	const save = "openat(AT_FDCWD, \"/w/a\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
	body := func(pid string) string {
		return pid + " " + save + pid + " fsync(3) = 0\n" + pid + " write(3, \"v1\", 2) = 2\n" + pid + " close(3) = 0\n"
	}
	const end = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, text, advice string
	}{
		{"python", "100 execve(\"/usr/bin/python3.11\", [\"python3\", \"save.py\"], 0x7ffd0 /* 9 vars */) = 0\n" + body("100") + end,
			"in Python, call f.flush() before os.fsync(f.fileno())"},
		{"a JVM thread", "100 execve(\"/usr/lib/jvm/java-17-openjdk-amd64/bin/java\", [\"java\", \"Save\"], 0x7ffd0 /* 9 vars */) = 0\n" +
			"100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0, parent_tid=0x7f0, exit_signal=0, stack=0x7f0, stack_size=0x100000, tls=0x7f0} => {parent_tid=[101]}, 88) = 101\n" +
			body("101") + end,
			"in Java, flush the stream or writer before getFD().sync()"},
		{"perl, run by a shell", "100 execve(\"/bin/sh\", [\"sh\", \"-c\", \"perl save.pl\"], 0x7ffd0 /* 9 vars */) = 0\n" +
			"100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0) = 101\n" +
			"101 execve(\"/usr/bin/perl\", [\"perl\", \"save.pl\"], 0x7ffd0 /* 9 vars */) = 0\n" + body("101") +
			"101 exit_group(0) = ?\n101 +++ exited with 0 +++\n" + end,
			"in Perl, call $fh->flush before $fh->sync"},
		{"a shell's fork of python that ran another program", "100 execve(\"/usr/bin/python3\", [\"python3\", \"run.py\"], 0x7ffd0 /* 9 vars */) = 0\n" +
			"100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0) = 101\n" +
			"101 execve(\"/usr/local/bin/saver\", [\"saver\"], 0x7ffd0 /* 9 vars */) = 0\n" + body("101") +
			"101 exit_group(0) = ?\n101 +++ exited with 0 +++\n" + end,
			"flush the program's own buffer first: f.flush() in Python, fflush(fp) in C"},
		{"no execve", body("100") + end, "flush the program's own buffer first"},
	} {
		saysEarlySync(t, c.name, c.text, c.advice)
	}
}
