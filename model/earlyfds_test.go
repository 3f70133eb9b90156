package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crashsim/crashsim/parser"
)

// fdsAfter replays trace through a process model and returns the fd
// table of each pid in pids at the end: each fd's file (its path, or
// "?" for one the model cannot name), with " cloexec" when it is set.
// Handles that are one open file description show the same "#N" tag.
//
// It reads the trace twice, and the tables must be the same: with each
// child attached when its clone returns, what it did before replayed
// (earlyOp: the way taken when two clones are under way, or in an
// attach), and attached at its first call (Procs.spawned: one call that
// makes a process under way, in a trace that starts with an execve).
// fdsAfterBoth gives both where they may differ.
func fdsAfter(t *testing.T, trace string, pids ...int) map[int]map[int]string {
	t.Helper()
	replayed, spawned := fdsAfterBoth(t, trace, pids...)
	if diff := cmp.Diff(replayed, spawned); diff != "" {
		t.Errorf("fd tables attached at the clone's return (-) and at the child's first call (+):\n%s", diff)
	}
	return replayed
}

// fdsAfterBoth is fdsAfter's two readings: each child attached when its
// clone returned, and at its first call.
func fdsAfterBoth(t *testing.T, trace string, pids ...int) (replayed, spawned map[int]map[int]string) {
	t.Helper()
	return tablesOf(t, replayProcs(trace, false), pids), tablesOf(t, replayProcs(trace, true), pids)
}

// tablesOf is fdsAfter's view of the fd tables of pids in p.
func tablesOf(t *testing.T, p *Procs, pids []int) map[int]map[int]string {
	t.Helper()
	tags := map[*Handle]int{}
	out := map[int]map[int]string{}
	for _, pid := range pids {
		pr := p.procs[pid]
		if pr == nil {
			t.Fatalf("no process %d", pid)
		}
		m := map[int]string{}
		for fd, e := range pr.files.all {
			if _, ok := tags[e.h]; !ok {
				tags[e.h] = len(tags) + 1
			}
			name := e.h.Path
			if name == "" {
				name = "?"
			}
			s := fmt.Sprintf("%s #%d", name, tags[e.h])
			if e.cloexec {
				s += " cloexec"
			}
			m[fd] = s
		}
		out[pid] = m
	}
	return out
}

const (
	earlyStart = "100 execve(\"/usr/bin/app\", [\"app\"], 0x7ffc /* 3 vars */) = 0\n"
	earlyClone = "100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>\n"
	earlyBack  = "100 <... clone resumed>, child_tidptr=0x7f) = 101\n"
)

// TestChildEarlyFDs: a child's calls printed before its parent's clone
// returns change the table it started with, a copy of its parent's, in
// order: an fd it only used is its parent's entry (the same open file
// description), an fd it opened is its own, what it closed is gone, and
// its execve closes its parent's close-on-exec fds too.
func TestChildEarlyFDs(t *testing.T) {
	for _, c := range []struct {
		name, trace string
		want        map[int]string // the child's table
	}{
		{"used, dup2ed and closed", earlyStart +
			"100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT|O_CLOEXEC, 0600) = 5\n" +
			"100 openat(AT_FDCWD, \"/d/b\", O_WRONLY|O_CREAT, 0600) = 6\n" + earlyClone +
			"101 fcntl(5, F_SETFD, 0) = 0\n" +
			"101 dup2(5, 3) = 3\n" +
			"101 close(5) = 0\n" + earlyBack,
			map[int]string{3: "/d/a #1", 6: "/d/b #2"}},
		{"its own open keeps its number", earlyStart +
			"100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5\n" +
			"100 close(5) = 0\n" + earlyClone +
			"101 openat(AT_FDCWD, \"/d/c\", O_RDONLY) = 5\n" +
			"101 dup2(5, 0) = 0\n" + earlyBack,
			map[int]string{0: "/d/c #1", 5: "/d/c #1"}},
		{"its own open over one of its parent's", earlyStart +
			"100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5\n" + earlyClone +
			"101 close(5) = 0\n" +
			"101 openat(AT_FDCWD, \"/d/c\", O_RDONLY) = 5\n" + earlyBack,
			map[int]string{5: "/d/c #1"}},
		{"execve closes the parent's close-on-exec fds", earlyStart +
			"100 socketpair(AF_UNIX, SOCK_SEQPACKET|SOCK_CLOEXEC, 0, [12, 13]) = 0\n" +
			"100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 7\n" + earlyClone +
			"101 fcntl(13, F_GETFD) = 0x1 (flags FD_CLOEXEC)\n" +
			"101 execve(\"/usr/bin/helper\", [\"helper\"], 0x7ffc /* 3 vars */) = 0\n" + earlyBack,
			map[int]string{7: "/d/a #1"}},
		{"close_range", earlyStart +
			"100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 3\n" +
			"100 openat(AT_FDCWD, \"/d/b\", O_WRONLY|O_CREAT, 0600) = 4\n" +
			"100 openat(AT_FDCWD, \"/d/c\", O_WRONLY|O_CREAT, 0600) = 9\n" + earlyClone +
			"101 close_range(4, 4294967295, 0) = 0\n" + earlyBack,
			map[int]string{3: "/d/a #1"}},
		{"an fd the parent does not hold stays unknown", earlyStart + earlyClone +
			"101 dup2(8, 1) = 1\n" + earlyBack,
			map[int]string{1: "? #1", 8: "? #1"}},
		{"an fd received after closing the parent's number is not the parent's", earlyStart +
			"100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5\n" + earlyClone +
			"101 close(5) = 0\n" +
			"101 recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"x\", iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5]}], msg_controllen=24, msg_flags=0}, 0) = 1\n" +
			"101 dup2(5, 6) = 6\n" + earlyBack,
			// 4 is the socket it received on, no file (Procs.socketUse).
			map[int]string{4: "? #1", 5: "? #2", 6: "? #2"}},
		{"-y: the same file is the parent's entry", earlyStart +
			"100 openat(AT_FDCWD</work>, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5</d/a>\n" + earlyClone +
			"101 dup2(5</d/a>, 3</d/a>) = 3</d/a>\n" + earlyBack,
			map[int]string{3: "/d/a #1", 5: "/d/a #1"}},
		{"-y: strace names another file than the parent's entry", earlyStart +
			"100 openat(AT_FDCWD</work>, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5</d/a>\n" + earlyClone +
			"101 fcntl(5</d/z>, F_GETFL) = 0x8001 (flags O_WRONLY|O_LARGEFILE)\n" + earlyBack,
			map[int]string{5: "/d/z #1"}},
	} {
		got := fdsAfter(t, c.trace, 101)[101]
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: child's fds (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestGrandchildEarlyFDs: a child that forks before its own clone
// returned gives its child a copy of its table as the window showed it;
// once the child is attached, the grandchild's fd the child had from its
// parent is the parent's entry too, not the stand-in (bash's command
// substitution on a busy machine: the subshell dup2s the pipe onto fd 1,
// and the program it runs writes there after the subshell's clone
// returned).
func TestGrandchildEarlyFDs(t *testing.T) {
	trace := earlyStart +
		"100 openat(AT_FDCWD, \"/d/out\", O_WRONLY|O_CREAT, 0600) = 3\n" +
		"100 openat(AT_FDCWD, \"/d/log\", O_WRONLY|O_CREAT, 0600) = 4\n" + earlyClone +
		"101 dup2(4, 1) = 1\n" +
		"101 close(4) = 0\n" +
		"101 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 102\n" +
		"102 write(1, \"x\", 1) = 1\n" + earlyBack +
		"102 write(1, \"y\", 1) = 1\n"
	replayed, spawned := fdsAfterBoth(t, trace, 100, 101, 102)
	want := map[int]map[int]string{
		100: {3: "/d/out #1", 4: "/d/log #2"},
		101: {1: "/d/log #2", 3: "/d/out #1"},
		102: {1: "/d/log #2", 3: "/d/out #1"},
	}
	if diff := cmp.Diff(want, spawned); diff != "" {
		t.Errorf("fd tables, each child attached at its first call (-want +got):\n%s", diff)
	}
	// Attached when the clone returns, the grandchild holds only what
	// the child's table held when it forked: the child's own fds and
	// the stand-ins of those it used; fd 3 it never used.
	delete(want[102], 3)
	if diff := cmp.Diff(want, replayed); diff != "" {
		t.Errorf("fd tables, each child attached when its clone returned (-want +got):\n%s", diff)
	}
}

// TestChildEarlyFDsShared: the handle a child inherits is its parent's
// own (offset and flags are the open file description's), and an
// F_SETFL made before the clone returned reaches it.
func TestChildEarlyFDsShared(t *testing.T) {
	trace := earlyStart +
		"100 openat(AT_FDCWD, \"/d/log\", O_WRONLY|O_CREAT, 0600) = 5\n" + earlyClone +
		"101 fcntl(5, F_SETFL, O_WRONLY|O_APPEND) = 0\n" + earlyBack +
		"101 write(5, \"x\", 1) = 1\n"
	p := replayProcs(trace, true)
	pe, _ := p.procs[100].files.get(5)
	ce, _ := p.procs[101].files.get(5)
	if pe.h != ce.h {
		t.Fatalf("child's fd 5 is %+v, not its parent's %+v", ce.h, pe.h)
	}
	if ce.h.Flags&(1<<10) == 0 { // O_APPEND
		t.Errorf("flags %#o: the child's F_SETFL O_APPEND was lost", ce.h.Flags)
	}
}

// TestThreadEarlyFDs: a thread (CLONE_FILES) shares its parent's table,
// so what it did before its clone returned is done to the parent's; a
// change another thread made to the table after the thread's call is
// not undone by it.
func TestThreadEarlyFDs(t *testing.T) {
	const flags = "flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM"
	trace := earlyStart +
		"100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0} => {parent_tid=[102]}, 88) = 102\n" +
		"100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5\n" +
		"100 openat(AT_FDCWD, \"/d/b\", O_WRONLY|O_CREAT, 0600) = 6\n" +
		"100 clone(child_stack=0x7f, " + flags + " <unfinished ...>\n" +
		"101 dup2(5, 7) = 7\n" +
		"101 close(6) = 0\n" +
		"102 openat(AT_FDCWD, \"/d/c\", O_WRONLY|O_CREAT, 0600) = 6\n" +
		"100 <... clone resumed>, parent_tid=[101], tls=0x7f, child_tidptr=0x7f) = 101\n"
	got := fdsAfter(t, trace, 100, 101, 102)
	want := map[int]string{5: "/d/a #1", 6: "/d/c #2", 7: "/d/a #1"}
	for _, pid := range []int{100, 101, 102} {
		if diff := cmp.Diff(want, got[pid]); diff != "" {
			t.Errorf("pid %d's fds (-want +got):\n%s", pid, diff)
		}
	}
}

// TestChildEarlyFDsBounded: a process whose clone the trace never shows
// (attached with -p) is never attached; what it does to its fds is not
// kept past earlyOpsMax, and should its clone come after all, its own
// table's entries win, as they did before the record was kept.
func TestChildEarlyFDsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(earlyStart)
	b.WriteString("100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 3\n")
	b.WriteString(earlyClone)
	for range earlyOpsMax {
		b.WriteString("101 openat(AT_FDCWD, \"/d/b\", O_RDONLY) = 4\n101 close(4) = 0\n")
	}
	b.WriteString("101 dup2(3, 5) = 5\n")
	b.WriteString(earlyBack)
	r := parser.NewReader(strings.NewReader(b.String()), "t", parser.Options{})
	p := NewProcsIn("/work")
	most := 0
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		p.Apply(ev, p.Paths(ev))
		if pr := p.procs[101]; pr != nil {
			most = max(most, len(pr.early))
		}
	}
	if most > earlyOpsMax {
		t.Errorf("%d changes kept, want at most %d", most, earlyOpsMax)
	}
	pr := p.procs[101]
	if !pr.attached || pr.early != nil || pr.earlyLost {
		t.Errorf("after the clone returned: attached %v, %d changes kept, lost %v", pr.attached, len(pr.early), pr.earlyLost)
	}
	fds := slices.Sorted(maps.Keys(maps.Collect(pr.files.all)))
	if !slices.Equal(fds, []int{3, 5}) {
		t.Errorf("child's fds %v, want [3 5]", fds)
	}
}

// replayProcs replays trace through a process model whose cwd is /work.
func replayProcs(trace string, spawn bool) *Procs {
	r := parser.NewReader(strings.NewReader(trace), "t", parser.Options{})
	p := NewProcsIn("/work")
	for {
		ev, err := r.Next()
		if err != nil {
			return p
		}
		if spawn {
			p.spawned(ev) // as Model.Apply does
		}
		p.Apply(ev, p.Paths(ev))
	}
}

// TestSpawnedFromExecOnly: a child whose first call comes while its
// parent's clone is the only one under way is attached at that call, in
// a trace that starts with the program's execve; in one that does not
// (strace -p, an excerpt), a process the trace has not shown may be one
// that was running before, so it waits for a clone to return its pid.
func TestSpawnedFromExecOnly(t *testing.T) {
	const body = "100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5\n" + earlyClone +
		"101 dup2(5, 3) = 3\n"
	for _, c := range []struct {
		name, start string
		attached    bool
	}{
		{"from the execve", earlyStart, true},
		{"attached with -p", "100 getpid() = 100\n", false},
	} {
		wantAttachedEarly(t, c.name, c.start+body, 3, c.attached)
	}
}

// wantAttachedEarly fails t unless process 101 of trace, read to its end
// with no clone returning its pid, is attached (or not, as attached
// says) and holds /d/a at fd exactly when it is.
func wantAttachedEarly(t *testing.T, name, trace string, fd int, attached bool) {
	t.Helper()
	pr := replayProcs(trace, true).procs[101]
	if pr == nil {
		t.Fatalf("%s: no process 101", name)
	}
	if pr.attached != attached {
		t.Errorf("%s: process 101 attached %v before a clone returned, want %v", name, pr.attached, attached)
	}
	if e, ok := pr.files.get(fd); !ok || (e.h.Path == "/d/a") != attached {
		t.Errorf("%s: fd %d of process 101 is %+v, want /d/a only when attached", name, fd, e.h)
	}
}

// TestSpawnedAmongSeveral: with several calls that make a process under
// way at once, a new process is attached at its first call when they are
// threads of one process (one fd table and cwd: which of them made it
// does not matter), and waits for its clone to return when they are not.
func TestSpawnedAmongSeveral(t *testing.T) {
	const (
		thread   = "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM"
		open     = "100 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0600) = 5\n"
		newTh    = "100 clone3({flags=" + thread + ", exit_signal=0} => {parent_tid=[110]}, 88) = 110\n"
		twoTh    = "100 clone(child_stack=0x7f, flags=" + thread + " <unfinished ...>\n110 clone(child_stack=0x7f, flags=" + thread + " <unfinished ...>\n"
		fork110  = "100 fork() = 110\n"
		twoForks = "100 fork( <unfinished ...>\n110 fork( <unfinished ...>\n"
		child    = "101 write(5, \"x\", 1) = 1\n"
	)
	for _, c := range []struct {
		name, trace string
		attached    bool
	}{
		{"two threads of one process", earlyStart + open + newTh + twoTh + child, true},
		{"two processes", earlyStart + open + fork110 + twoForks + child, false},
	} {
		wantAttachedEarly(t, c.name, c.trace, 5, c.attached)
	}
}
