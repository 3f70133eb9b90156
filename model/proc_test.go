package model

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// pathsOf replays trace through a process model whose first process starts
// in /work and returns the paths resolved for each call named syscall.
func pathsOf(trace, syscall string) []string {
	r := parser.NewReader(strings.NewReader(trace), "t", parser.Options{})
	p := NewProcsIn("/work")
	var got []string
	for {
		ev, err := r.Next()
		if err != nil {
			return got
		}
		paths := p.Paths(ev)
		p.Apply(ev, paths)
		if ev.Name == syscall {
			got = append(got, strings.Join(paths, ","))
		}
	}
}

// TestThreadSharesFDs: without -y, a thread made by clone3 with
// CLONE_FILES writes through fds its process opens after the clone (a Go
// goroutine moving between threads does that).
func TestThreadSharesFDs(t *testing.T) {
	trace := `10 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, exit_signal=0} => {parent_tid=[11]}, 88) = 11
10 openat(AT_FDCWD, "bench.bin", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5
11 write(5, ""..., 65536) = 65536
12 write(5, ""..., 1) = 1
`
	got := pathsOf(trace, "write")
	// Thread 11 shares the table; 12 came from nowhere the trace shows.
	if len(got) != 2 || got[0] != "/work/bench.bin" || got[1] != "" {
		t.Errorf("write paths %q, want [/work/bench.bin \"\"]", got)
	}
}

// TestChildBeforeFork: under -f strace can print a child's first calls
// before its parent's fork returns. While every placed process has the same
// cwd, the child's relative paths resolve against it; when they differ, an
// unplaced child's relative path stays unknown.
func TestChildBeforeFork(t *testing.T) {
	run := func(trace string) []string { return pathsOf(trace, "openat") }
	got := run(`10 execve("/usr/bin/python3", ["python3"], 0x7ffd /* 9 vars */) = 0
10 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>
11 openat(AT_FDCWD, "from-child.txt", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3
10 <... clone resumed>, child_tidptr=0x7f) = 11
11 openat(AT_FDCWD, "after.txt", O_RDONLY) = 4
`)
	if len(got) != 2 || got[0] != "/work/from-child.txt" || got[1] != "/work/after.txt" {
		t.Errorf("child paths %q, want [/work/from-child.txt /work/after.txt]", got)
	}
	got = run(`10 execve("/bin/sh", ["sh"], 0x7ffd /* 9 vars */) = 0
10 chdir("sub") = 0
12 openat(AT_FDCWD, "early.txt", O_RDONLY) = 3
10 clone(child_stack=NULL, flags=SIGCHLD) = 12
`)
	if len(got) != 1 || got[0] != "/work/sub/early.txt" {
		t.Errorf("child of a process that moved: %q, want [/work/sub/early.txt]", got)
	}
	got = run(`10 execve("/bin/sh", ["sh"], 0x7ffd /* 9 vars */) = 0
10 clone(child_stack=NULL, flags=SIGCHLD) = 11
11 chdir("sub") = 0
12 openat(AT_FDCWD, "early.txt", O_RDONLY) = 3
11 clone(child_stack=NULL, flags=SIGCHLD) = 12
`)
	// Unresolved, it stays relative (and so out of every root).
	if len(got) != 1 || got[0] != "early.txt" {
		t.Errorf("child while placed processes differ: %q, want [early.txt]", got)
	}
}

// cleanAbs answers as path.Clean does for every absolute path.
func TestCleanAbs(t *testing.T) {
	for _, p := range []string{"/", "//", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/a/..",
		"/.hidden", "/a/.b", "/a/..b/c", "/a/b.", "/x/y/z", "/a\nb", "/tmp/crashsim fixtures/a.txt"} {
		if got, want := cleanAbs(p), path.Clean(p); got != want {
			t.Errorf("cleanAbs(%q) = %q, path.Clean gives %q", p, got, want)
		}
	}
}

// TestPidReusedAfterExit: a pid that comes back after its process exited
// is a new process, without the fds of the old one, even when the model
// answered that pid last (Procs keeps its last answer). Under -f the new
// process's first call can come before the clone that made it returns.
func TestPidReusedAfterExit(t *testing.T) {
	trace := `20 getpid() = 20
10 openat(AT_FDCWD, "/w/a", O_RDONLY) = 3
10 write(3, "x", 1) = 1
10 +++ exited with 0 +++
10 write(3, "x", 1) = 1
20 clone(child_stack=NULL, flags=SIGCHLD) = 10
`
	got := pathsOf(trace, "write")
	if len(got) != 2 || got[0] != "/w/a" || got[1] != "" {
		t.Errorf("writes resolved to %q, want [/w/a \"\"]: the new process 10 holds no fd 3", got)
	}
}

// TestLaterSessionStartsAfresh: strace -A -o FILE -p N run twice writes
// two processes without a pid column; the second, attached after the
// first exited, has its own cwd and fds, unknown as any attach's: neither
// the first's --cwd nor its initial fds are its.
func TestLaterSessionStartsAfresh(t *testing.T) {
	trace := `strace: Process 40 attached
openat(AT_FDCWD, "a", O_RDONLY) = 3
write(5, "x", 1) = 1
exit_group(0) = ?
+++ exited with 0 +++
strace: Process 41 attached
openat(AT_FDCWD, "b", O_RDONLY) = 3
write(5, "y", 1) = 1
`
	r := parser.NewReader(strings.NewReader(trace), "t", parser.Options{})
	p := NewProcsIn("/work")
	p.SetInitialFDs([]InitialFD{{FD: 5, Path: "/work/log", Offset: -1}})
	var got []string
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		paths := p.Paths(ev)
		p.Apply(ev, paths)
		if ev.Kind == parser.KindSyscall && ev.Name != "exit_group" {
			got = append(got, strings.Join(paths, ","))
		}
	}
	want := []string{"/work/a", "/work/log", "b", ""} // b: relative to a cwd not known
	if !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q: the second session's process starts with no cwd and no fds known", got, want)
	}
}
