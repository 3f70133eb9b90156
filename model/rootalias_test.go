package model

import (
	"strings"
	"testing"
)

// TestRootAliasExit: the first process's lines carry no pid until a
// second process appears (strace -f writing to its stderr), and its later
// lines name it by pid. Its exit under that pid ends it, and a line of
// that pid after its exit (a call strace left unfinished, flushed at the
// end of the log) is a process of its own: it used to read the deleted
// first process and crash.
func TestRootAliasExit(t *testing.T) {
	const start = "execve(\"/bin/x\", [\"x\"], 0x7ffd /* 1 vars */) = 0\n" +
		"openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 3\n" +
		"[pid 7] write(3, \"x\", 1) = 1\n"
	p := replayProcs(start+"[pid 7] +++ exited with 0 +++\n", false)
	if pr, ok := p.procs[0]; ok {
		t.Errorf("the first process outlived its exit as pid 7: %+v", pr)
	}
	if _, ok := p.procs[7]; ok {
		t.Errorf("pid 7 is a process of its own after the first process, its alias, exited")
	}

	p = replayProcs(start+"[pid 7] close(3 <unfinished ...>\n"+
		"[pid 7] <... prctl resumed>) = 0\n"+
		"exit_group(0) = ?\n"+
		"+++ exited with 0 +++\n", false)
	if _, ok := p.procs[0]; ok {
		t.Errorf("the first process outlived its exit")
	}
	// Its fd 3 is a stand-in for an fd it had before (the close used
	// it), not the first process's /d/a.
	if fds := tablesOf(t, p, []int{7})[7]; strings.HasPrefix(fds[3], "/d/a") {
		t.Errorf("pid 7 after the first process's exit has its fds: %v", fds)
	}
}
