package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// strace -e inject=CALL:retval=N answers a call itself: it gives the
// kernel an invalid call number in its place and prints "= N (INJECTED)".
// The lines below are shaped after strace 6.1's, recorded with
//
//	strace -f -o t -e inject=fsync:retval=0 python3 -c 'import os; f = os.open("/w/d.txt", os.O_WRONLY|os.O_CREAT, 0o644); os.write(f, b"x"); os.fsync(f)'
//
// A faked fsync made nothing durable, and a faked write put nothing in
// the page cache; an injected error is a failure the program saw, as a
// real one.
func TestInjectedCalls(t *testing.T) {
	const start = "100 execve(\"/usr/bin/python3\", [\"python3\"], 0x7ffc408087f8 /* 3 vars */) = 0\n" +
		"100 openat(AT_FDCWD, \"/w/d.txt\", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3\n" +
		"100 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 4\n"
	const end = "100 close(3) = 0\n100 fsync(4) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, body string
		findings   []string
		notes      []string
	}{
		{"fsync done", "100 write(3, \"x\", 1) = 1\n100 fsync(3) = 0\n", nil, nil},
		{"fsync faked", "100 write(3, \"x\", 1) = 1\n100 fsync(3) = 0 (INJECTED)\n", []string{"data-not-synced /w/d.txt", "dir-sync-before-data /w/d.txt"}, []string{NoteFaked}},
		{"fdatasync faked", "100 write(3, \"x\", 1) = 1\n100 fdatasync(3) = 0 (INJECTED)\n", []string{"data-not-synced /w/d.txt", "dir-sync-before-data /w/d.txt"}, []string{NoteFaked}},
		// The write never ran: there is nothing to lose, and the fsync
		// after it is the program's own.
		{"write faked", "100 write(3, \"x\", 1) = 1 (INJECTED)\n100 fsync(3) = 0\n", nil, []string{NoteFaked}},
		// A faked close leaves the fd open: the fsync through it after
		// is real.
		{"close faked", "100 write(3, \"x\", 1) = 1\n100 close(3) = 0 (INJECTED)\n100 fsync(3) = 0\n", nil, []string{NoteFaked}},
		{"fsync failed by injection, error ignored", "100 write(3, \"x\", 1) = 1\n100 fsync(3) = -1 EIO (Input/output error) (INJECTED)\n", []string{"data-not-synced /w/d.txt", "dir-sync-before-data /w/d.txt", "fsync-error-ignored /w/d.txt"}, nil},
	} {
		p := filepath.Join(t.TempDir(), "t.strace")
		if err := os.WriteFile(p, []byte(start+c.body+end), 0o644); err != nil {
			t.Fatal(err)
		}
		_, notes, findings := blindRun(t, p, Options{Roots: []string{"/w"}})
		if diff := cmp.Diff(c.findings, findings); diff != "" {
			t.Errorf("%s: findings (-want +got):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(c.notes, notes); diff != "" {
			t.Errorf("%s: notes (-want +got):\n%s", c.name, diff)
		}
	}
}

// The note names the first faked call and where it is, so that a user
// can find the -e inject= the recording was made with.
func TestInjectedNoteSaysWhere(t *testing.T) {
	trace := "100 openat(AT_FDCWD, \"/w/a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n" +
		"100 write(3, \"x\", 1) = 1\n100 fsync(3) = 0 (INJECTED)\n100 fsync(3) = 0 (INJECTED)\n" +
		"100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	res, p := runText(t, trace, Options{Roots: []string{"/w"}}), "t.strace"
	if len(res.Notes) != 1 {
		t.Fatalf("notes: %+v", res.Notes)
	}
	n := res.Notes[0]
	if n.Trace != p || n.Line != 3 || !strings.Contains(n.Message, "2 calls") || !strings.Contains(n.Message, "first fsync at "+p+":3") {
		t.Errorf("note %+v: want 2 calls, first fsync at %s:3", n, p)
	}
}

// A clean verdict on a run that failed says little of the save the user
// meant to check: the traced command's exit status or fatal signal is a
// note. A child's failure is not the command's; the signals that stop a
// server when its recording ends are no failure.
func TestCommandFailedNote(t *testing.T) {
	const save = "100 openat(AT_FDCWD, \"/w/a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n100 write(3, \"x\", 1) = 1\n100 fsync(3) = 0\n100 close(3) = 0\n"
	for _, c := range []struct {
		name, end string
		notes     []string
		words     string
	}{
		{"exit 0", "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n", nil, ""},
		{"exit 2", "100 exit_group(2) = ?\n100 +++ exited with 2 +++\n", []string{NoteFailed}, "the traced command exited with status 2 at "},
		{"SIGKILL", "100 +++ killed by SIGKILL +++\n", []string{NoteFailed}, "the traced command was killed by SIGKILL at "},
		{"SIGSEGV with a core", "100 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---\n100 +++ killed by SIGSEGV (core dumped) +++\n", []string{NoteFailed}, "was killed by SIGSEGV at "},
		{"SIGTERM stops it", "100 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=1, si_uid=0} ---\n100 +++ killed by SIGTERM +++\n", nil, ""},
		{"a child fails", "100 clone(child_stack=NULL, flags=SIGCHLD) = 101\n101 exit_group(1) = ?\n101 +++ exited with 1 +++\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n", nil, ""},
	} {
		res, p := runText(t, save+c.end, Options{Roots: []string{"/w"}}), "t.strace"
		var ids []string
		for _, n := range res.Notes {
			ids = append(ids, n.ID)
			if c.words != "" && !strings.Contains(n.Message, c.words) {
				t.Errorf("%s: note %q; want it to say %q", c.name, n.Message, c.words)
			}
			if n.Line == 0 || n.Trace != p {
				t.Errorf("%s: note %+v names no line", c.name, n)
			}
		}
		if diff := cmp.Diff(c.notes, ids); diff != "" {
			t.Errorf("%s: notes (-want +got):\n%s", c.name, diff)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("%s: blind spots %v", c.name, res.Warnings)
		}
	}
}

// strace names a pipe "pipe:[12]" and a socket "TCP:[1.2.3.4:5->6.7.8.9:10]",
// never with a leading '/': a file a program named /w/log:[1] is a file,
// whose unsynced write is a finding, and a pipe written is none.
func TestBracketNamesAreFiles(t *testing.T) {
	trace := "100 openat(AT_FDCWD</w>, \"/w/log:[1]\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</w/log:[1]>\n" +
		"100 write(3</w/log:[1]>, \"x\", 1) = 1\n" +
		"100 openat(AT_FDCWD</w>, \"pipe:[2]\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4</w/pipe:[2]>\n" +
		"100 write(4</w/pipe:[2]>, \"x\", 1) = 1\n" +
		"100 pipe2([5<pipe:[77]>, 6<pipe:[77]>], 0) = 0\n100 write(6<pipe:[77]>, \"x\", 1) = 1\n" +
		"100 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 7<TCP:[78]>\n100 write(7<TCP:[1.2.3.4:5->6.7.8.9:10]>, \"x\", 1) = 1\n" +
		"100 close(3</w/log:[1]>) = 0\n100 close(4</w/pipe:[2]>) = 0\n100 close(6<pipe:[77]>) = 0\n" +
		"100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	p := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	blind, _, findings := blindRun(t, p, Options{Roots: []string{"/w"}})
	var data []string
	for _, f := range findings {
		if strings.HasPrefix(f, "data-not-synced ") {
			data = append(data, f)
		}
	}
	if diff := cmp.Diff([]string{"data-not-synced /w/log:[1]", "data-not-synced /w/pipe:[2]"}, data); diff != "" {
		t.Errorf("data-not-synced (-want +got):\n%s", diff)
	}
	if len(blind) > 0 {
		t.Errorf("blind spots %v", blind)
	}
}

// checkFile checks the trace at path.
func checkFile(t *testing.T, path string, opt Options) *Result {
	t.Helper()
	s, err := parser.Open(path, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Run(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
