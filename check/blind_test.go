package check

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// blindRun checks a trace and returns its blind spot IDs, note IDs and
// findings ("rule path"), each sorted.
func blindRun(t *testing.T, trace string, opt Options) (blind, notes, findings []string) {
	t.Helper()
	res := checkFile(t, trace, opt)
	for _, w := range res.Warnings {
		if w.Line <= 0 || w.Trace == "" || w.Fix == "" || w.Message == "" {
			t.Errorf("%s: warning %+v lacks a trace line, a message or a fix", trace, w)
		}
		blind = append(blind, w.ID)
	}
	for _, n := range res.Notes {
		notes = append(notes, n.ID)
	}
	seen := map[string]bool{}
	for _, f := range res.findings {
		k := f.Rule.ID + " " + f.Path
		if !seen[k] {
			seen[k] = true
			findings = append(findings, k)
		}
	}
	sort.Strings(blind)
	sort.Strings(findings)
	return blind, notes, findings
}

const fx = "../fixtures/traces/"

// TestBlindSpots runs each blind-spot fixture (recorded by
// fixtures/record-blind.sh with the flag that blinds crashsim) and checks
// that it gives its named warning, and only that one.
func TestBlindSpots(t *testing.T) {
	dir := func(c string) string { return "/tmp/crashsim-fixtures/" + c }
	tests := []struct {
		name     string
		trace    string
		opt      Options
		blind    []string
		findings []string // nil: not checked
	}{
		{name: "raw arguments", trace: "blind-raw-args",
			opt: Options{Roots: []string{dir("blind-raw-args")}}, blind: []string{BlindRawArgs}, findings: []string{}},
		{name: "no calls (-e trace=none)", trace: "blind-no-calls",
			opt: Options{Roots: []string{dir("blind-no-calls")}}, blind: []string{BlindNoCalls}, findings: []string{}},
		// fd 3 is the shell's, opened before strace started the program,
		// and without -y the trace never names its file.
		{name: "inherited fd (no -y)", trace: "blind-unknown-fd",
			opt: Options{Roots: []string{dir("blind-unknown-fd")}}, blind: []string{BlindUnknownFD}, findings: []string{}},
		// Writes through a dup of standard error and through fd 3, a pipe
		// an fstat shows, none named without -y: none reaches a file.
		{name: "dup of stderr, inherited pipe (no -y)", trace: "blind-unknown-fd-perror",
			opt: Options{Roots: []string{dir("blind-unknown-fd-perror")}}, blind: nil, findings: []string{}},
		// strace -p stopped while the program ran on: its save is in the
		// trace, its exit is not.
		{name: "cut short (strace -p stopped)", trace: "blind-cut-short",
			opt: Options{Roots: []string{dir("blind-cut-short")}}, blind: []string{BlindCutShort},
			findings: []string{"data-not-synced " + dir("blind-cut-short") + "/state.txt", "name-not-synced " + dir("blind-cut-short") + "/state.txt"}},
		{name: "failed only (-Z)", trace: "blind-failed-only",
			opt: Options{Roots: []string{dir("blind-failed-only")}}, blind: []string{BlindFailedOnly}, findings: []string{}},
		{name: "successful only (-z)", trace: "blind-successful-only",
			opt: Options{Roots: []string{dir("blind-successful-only")}, Cwd: dir("blind-successful-only")}, blind: []string{BlindSuccessfulOnly}, findings: []string{}},
		// The same with calls cut in two, their rest on a line with no
		// pid: the shell's four children write f1-f4 unsynced (the save
		// after them fsyncs the directory, so their names are durable).
		{name: "successful only (-z), calls cut in two", trace: "blind-successful-only-split",
			opt: Options{Roots: []string{dir("blind-successful-only-split")}, Cwd: dir("blind-successful-only-split")}, blind: []string{BlindSuccessfulOnly},
			findings: []string{
				"data-not-synced " + dir("blind-successful-only-split") + "/f1",
				"data-not-synced " + dir("blind-successful-only-split") + "/f2",
				"data-not-synced " + dir("blind-successful-only-split") + "/f3",
				"data-not-synced " + dir("blind-successful-only-split") + "/f4",
			}},
		// The program fsyncs the file and the directory; the filter hides
		// both, so the findings are the false alarms the warning explains.
		{name: "syscall filter", trace: "blind-syscall-filter",
			opt:   Options{Roots: []string{dir("blind-syscall-filter")}, Cwd: dir("blind-syscall-filter")},
			blind: []string{BlindSyscallFilter},
			findings: []string{
				"data-not-synced " + dir("blind-syscall-filter") + "/config.txt",
				"name-not-synced " + dir("blind-syscall-filter") + "/config.txt",
				// Without a listing the trace cannot tell whether the temp
				// name existed before; if it did, a crash can bring it back.
				"name-not-synced " + dir("blind-syscall-filter") + "/config.txt.tmp",
				"rename-before-sync " + dir("blind-syscall-filter") + "/config.txt",
			}},
		// A filter that keeps opens, fsyncs and renames but drops the
		// writes: the save looks clean, and a write after its fsync would
		// not show.
		{name: "syscall filter without writes", trace: "blind-syscall-filter-writes",
			opt: Options{Roots: []string{dir("blind-syscall-filter-writes")}, Cwd: dir("blind-syscall-filter-writes")}, blind: []string{BlindSyscallFilter}, findings: []string{}},
		// A filter without write: python opens its existing state.txt
		// write only and writes over it without a sync (data-not-synced
		// in a full recording). With the write gone the open is all
		// that shows, and the check was clean.
		{name: "syscall filter, an overwrite without its write", trace: "blind-syscall-filter-overwrite",
			opt: Options{Roots: []string{dir("blind-syscall-filter-overwrite")}, Cwd: dir("blind-syscall-filter-overwrite")}, blind: []string{BlindSyscallFilter}, findings: []string{}},
		// A filter that keeps writes and syncs and drops the opens:
		// sqlite3's commit unlinks its journal without an fsync of the
		// directory (name-not-synced in a full recording), and the
		// unlink goes with the opens. Its syncs, through fds no call in
		// the trace opened, say a filter was on: without them the check
		// was clean.
		{name: "syscall filter without opens", trace: "blind-syscall-filter-syncs",
			opt:   Options{Roots: []string{dir("blind-syscall-filter-syncs")}, Cwd: dir("blind-syscall-filter-syncs")},
			blind: []string{BlindSyscallFilter}, findings: []string{"unaligned-write " + dir("blind-syscall-filter-syncs") + "/t.db-journal"}},
		// A filter without read: consume.py copies inbox.txt into a new
		// file, unlinks it and syncs only after, which remove-before-sync
		// flags in the full recording (fixtures/traces/consume); here the
		// copy does not show, and the check is clean but blind.
		{name: "syscall filter without reads", trace: "blind-syscall-filter-reads",
			opt: Options{Roots: []string{dir("blind-syscall-filter-reads")}}, blind: []string{BlindSyscallFilter}, findings: []string{}},
		// -e trace=%file: opens and stats, not one read nor close. The
		// program only read its config, and the trace cannot show that.
		{name: "syscall filter %file", trace: "blind-syscall-filter-file",
			opt: Options{Roots: []string{dir("blind-syscall-filter-file")}}, blind: []string{BlindSyscallFilter}, findings: []string{}},
		// -e trace=%desc: no execve, no rename; the loader's first open
		// shows a program starting, so a filter dropped its execve.
		{name: "syscall filter %desc", trace: "blind-syscall-filter-desc",
			opt:   Options{Roots: []string{dir("blind-syscall-filter-desc")}, Cwd: dir("blind-syscall-filter-desc")},
			blind: []string{BlindSyscallFilter}},
		// -e trace=%desc on a static binary: no loader open, no execve.
		// The rename and the exit_group do not show, and what does is a
		// careful save (fsynced file, fsynced directory): clean, where the
		// program never fsynced the directory after its rename. The one
		// sign left is a process that exited without calling exit_group.
		{name: "syscall filter %desc, static binary", trace: "blind-syscall-filter-static",
			opt:   Options{Roots: []string{dir("blind-syscall-filter-static")}},
			blind: []string{BlindSyscallFilter}, findings: []string{}},
		{name: "no -f, a child ran cp", trace: "blind-unfollowed-children",
			opt: Options{Roots: []string{dir("blind-unfollowed-children")}}, blind: []string{BlindUnfollowedChildren}, findings: []string{}},
		{name: "relative paths, absolute root", trace: "blind-unknown-cwd",
			opt: Options{Roots: []string{dir("blind-unknown-cwd")}}, blind: []string{BlindUnknownCwd}, findings: []string{}},
		{name: "relative paths placed by --cwd", trace: "blind-unknown-cwd",
			opt: Options{Roots: []string{dir("blind-unknown-cwd")}, Cwd: dir("blind-unknown-cwd")}, blind: nil,
			findings: []string{"data-not-synced " + dir("blind-unknown-cwd") + "/dst.txt", "name-not-synced " + dir("blind-unknown-cwd") + "/dst.txt"}},
		{name: "relative paths, no root", trace: "blind-unknown-cwd",
			opt: Options{}, blind: nil, findings: []string{"data-not-synced dst.txt", "name-not-synced dst.txt"}},
		{name: "-s 0, for a command that builds states", trace: "blind-no-data",
			opt: Options{Roots: []string{dir("blind-no-data")}, NeedData: true}, blind: []string{BlindNoData}, findings: []string{}},
		{name: "-s 0, for check", trace: "blind-no-data",
			opt: Options{Roots: []string{dir("blind-no-data")}}, blind: nil, findings: []string{}},
		// Stores into a file mapped shared and writable, then msync: the
		// trace shows when the mapping was made, never what changed.
		{name: "shared writable mapping", trace: "blind-shared-mmap",
			opt: Options{Roots: []string{dir("blind-shared-mmap")}}, blind: []string{BlindSharedMmap}, findings: []string{}},
		// A mapping of a file outside the roots is none of the check's
		// business.
		{name: "shared writable mapping out of scope", trace: "blind-shared-mmap",
			opt: Options{Roots: []string{dir("blind-shared-mmap") + "/elsewhere"}}, blind: []string{BlindRootUnmatched}, findings: []string{}},
		// A write and an fsync submitted through io_uring: data.txt's
		// creation shows (the name is never made durable), its data not.
		{name: "io_uring", trace: "blind-io-uring",
			opt:   Options{Roots: []string{dir("blind-io-uring")}},
			blind: []string{BlindIOUring}, findings: []string{"name-not-synced " + dir("blind-io-uring") + "/data.txt"}},
		{name: "root that matches nothing", trace: "sed-i",
			opt: Options{Roots: []string{"/nonexistent"}}, blind: []string{BlindRootUnmatched}, findings: []string{}},
		{name: "root that matches", trace: "sed-i",
			opt: Options{Roots: []string{dir("sed-i")}}, blind: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trace := fx + tc.trace + "/trace.strace"
			if _, err := os.Stat(trace); err != nil {
				trace = fx + tc.trace + "/f-ttt-y-xx.strace"
			}
			blind, _, findings := blindRun(t, trace, tc.opt)
			if diff := cmp.Diff(tc.blind, blind); diff != "" {
				t.Errorf("blind spots (-want +got):\n%s", diff)
			}
			if tc.findings != nil {
				if findings == nil {
					findings = []string{}
				}
				if diff := cmp.Diff(tc.findings, findings); diff != "" {
					t.Errorf("findings (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestNoFalseBlindSpots checks the fixtures recorded with good flags: no
// blind spot in any of them. Traces without -y get the directory the
// program started in, as a listing or --cwd would give it; those without
// -f have exactly the blind spot of the programs that start a child or a
// thread.
func TestNoFalseBlindSpots(t *testing.T) {
	forks := map[string]bool{"go-atomic": true, "go-threads": true, "rsync": true, "shell-mv": true}
	// sqlite3 maps the WAL index (test.db-shm) shared and writable.
	mapped := map[string]bool{"sqlite3-wal": true}
	wants, _ := filepath.Glob(fx + "*/want")
	if len(wants) == 0 {
		t.Fatal("no fixtures")
	}
	n := 0
	for _, w := range wants {
		d := filepath.Dir(w)
		name := filepath.Base(d)
		traces, _ := filepath.Glob(d + "/*.strace")
		if _, err := os.Stat(d + "/ff-ttt"); err == nil {
			traces = append(traces, d+"/ff-ttt/trace")
		}
		for _, tr := range traces {
			root := "/tmp/crashsim-fixtures/" + name
			opt := Options{Roots: []string{root}, Cwd: root, LikelyVolatile: LikelyVolatile}
			blind, notes, _ := blindRun(t, tr, opt)
			n++
			var want []string
			if strings.HasSuffix(tr, "/nof.strace") && forks[name] {
				want = []string{BlindUnfollowedChildren}
			}
			if mapped[name] {
				want = append(want, BlindSharedMmap)
			}
			if diff := cmp.Diff(want, blind); diff != "" {
				t.Errorf("%s: blind spots (-want +got):\n%s", tr, diff)
			}
			if len(notes) > 0 {
				t.Errorf("%s: notes %v, want none", tr, notes)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d fixture traces checked", n)
	}
}

// TestVolatile checks that files on tmpfs are out of scope with a note,
// and back in scope under an explicit root below /run.
func TestVolatile(t *testing.T) {
	trace := fx + "blind-volatile/trace.strace"
	state := "/run/crashsim-blind-volatile/state"

	blind, notes, findings := blindRun(t, trace, Options{LikelyVolatile: LikelyVolatile})
	if len(blind) != 0 || len(findings) != 0 {
		t.Errorf("no root: blind spots %v, findings %v; want none (tmpfs only)", blind, findings)
	}
	if diff := cmp.Diff([]string{NoteVolatile}, notes); diff != "" {
		t.Errorf("no root: notes (-want +got):\n%s", diff)
	}

	_, _, findings = blindRun(t, trace, Options{Roots: []string{"/run/crashsim-blind-volatile"}, LikelyVolatile: LikelyVolatile})
	if diff := cmp.Diff([]string{"data-not-synced " + state, "name-not-synced " + state}, findings); diff != "" {
		t.Errorf("--root below /run: findings (-want +got):\n%s", diff)
	}

	// With the machine's mounts known, tmpfs is out whatever the roots say.
	mounts := []Mount{{"/", "ext4"}, {"/run", "tmpfs"}, {"/dev/shm", "tmpfs"}}
	_, notes, findings = blindRun(t, trace, Options{Roots: []string{"/run/crashsim-blind-volatile"}, Mounts: mounts})
	if len(findings) != 0 {
		t.Errorf("mounts known: findings %v, want none", findings)
	}
	if diff := cmp.Diff([]string{NoteVolatile, NoteVolatile}, notes); diff != "" {
		t.Errorf("mounts known: notes (-want +got): the root and the paths\n%s", diff)
	}

	// A saved trace's files on a disk mounted below a tmpfs are in scope.
	mounts = append(mounts, Mount{"/run/crashsim-blind-volatile", "ext4"})
	_, _, findings = blindRun(t, trace, Options{Mounts: mounts})
	if len(findings) != 2 {
		t.Errorf("ext4 below tmpfs: findings %v, want the two on %s", findings, state)
	}
}

func TestScopeVolatile(t *testing.T) {
	tests := []struct {
		opt  Options
		path string
		want bool
	}{
		{Options{LikelyVolatile: LikelyVolatile}, "/run/user/1000/dconf/user", false},
		{Options{LikelyVolatile: LikelyVolatile}, "/runner/x", true},
		{Options{LikelyVolatile: LikelyVolatile, Roots: []string{"/run/user"}}, "/run/user/1000/dconf/user", true},
		{Options{LikelyVolatile: LikelyVolatile, Roots: []string{"/"}}, "/run/user/1000/dconf/user", false},
		{Options{}, "/run/x", true},
		{Options{Mounts: []Mount{{"/", "ext4"}, {"/tmp", "tmpfs"}}, Roots: []string{"/tmp/x"}}, "/tmp/x/a", false},
		{Options{Mounts: []Mount{{"/", "ext4"}, {"/tmp", "ramfs"}}}, "/tmp/a", false},
		{Options{Mounts: []Mount{{"/", "ext4"}, {"/tmp", "tmpfs"}}}, "/tmpx/a", true},
		{Options{Mounts: []Mount{{"/", "ext4"}, {"/tmp", "tmpfs"}}}, "/run/a", true},
		// /var/run and /var/lock are links into /run: a pid file written
		// there is on tmpfs, whether the mounts are known or assumed.
		{Options{LikelyVolatile: LikelyVolatile}, "/var/run/daemon.pid", false},
		{Options{LikelyVolatile: LikelyVolatile}, "/var/lock/LCK..ttyS0", false},
		{Options{Mounts: []Mount{{"/", "ext4"}, {"/run", "tmpfs"}}}, "/var/run/daemon.pid", false},
		{Options{LikelyVolatile: LikelyVolatile, Roots: []string{"/var/run/app"}}, "/var/run/app/state", true},
		{Options{LikelyVolatile: LikelyVolatile}, "/var/runner/x", true},
		{Options{LikelyVolatile: LikelyVolatile}, "/var/lib/app/state", true},
	}
	for _, tc := range tests {
		if got := tc.opt.InScope(tc.path); got != tc.want {
			t.Errorf("%+v: %s in scope %v, want %v", tc.opt, tc.path, got, tc.want)
		}
	}
}

func TestShownPath(t *testing.T) {
	if got := shown("/d/a\x1b[2Jb"); got != `"/d/a\x1b[2Jb"` {
		t.Errorf("control characters: %s", got)
	}
	if got := shown("/d/plain name"); got != "/d/plain name" {
		t.Errorf("plain: %s", got)
	}
}

// TestUnfollowedInline covers what the recorded fixtures do not: children
// whose lines the trace has under other pids (a pid namespace), and a
// child that appears before its fork returns.
func TestUnfollowedInline(t *testing.T) {
	tests := []struct {
		name, trace string
		want        []string
	}{
		{"no -f", `clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD) = 4242
wait4(-1, NULL, 0, NULL) = 4242
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindUnfollowedChildren}},
		// A thread the trace does not follow ended the process: no
		// exit_group in the trace, which says no filter (a failed call
		// shows there is no -z either).
		{"no -f, a thread's exit_group", `openat(AT_FDCWD, "/etc/nope", O_RDONLY) = -1 ENOENT (No such file or directory)
clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x7f0000000000, stack_size=0x7fff00}, 88) = 4243
futex(0x7f0000001000, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL, FUTEX_BITSET_MATCH_ANY) = ?
+++ exited with 0 +++
`, []string{BlindUnfollowedChildren}},
		{"-f, child first", `300 getpid() = 300
301 exit_group(0) = ?
301 +++ exited with 0 +++
300 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD) = 301
300 exit_group(0) = ?
300 +++ exited with 0 +++
`, nil},
		{"-f, child in a pid namespace", `300 clone(child_stack=NULL, flags=CLONE_NEWPID|SIGCHLD) = 1
301 close(3) = 0
301 exit_group(0) = ?
301 +++ exited with 0 +++
300 exit_group(0) = ?
300 +++ exited with 0 +++
`, nil},
		// strace -p attaches to one thread: threads made before it
		// show in no fork, but a futex wake that woke one does.
		// A filter that left out clone and the child's calls: only the
		// SIGCHLD says there was a child.
		{"a filter hid the child, its SIGCHLD did not", `500 execve("/usr/bin/redis", ["redis"], 0x7ffd /* 3 vars */) = 0
500 openat(AT_FDCWD, "/data/dump.rdb", O_RDONLY) = 3
500 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=501, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
500 exit_group(0) = ?
500 +++ exited with 0 +++
`, []string{BlindUnfollowedChildren}},
		{"-f, the signalled child in the trace", `500 clone(child_stack=NULL, flags=SIGCHLD) = 501
501 exit_group(0) = ?
501 +++ exited with 0 +++
500 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=501, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
500 exit_group(0) = ?
500 +++ exited with 0 +++
`, nil},
		// strace -f to a terminal: the command's lines have no pid until
		// it has a child. Whole, then cut before the command ends.
		{"-f to a terminal, whole", `execve("/bin/x", ["x"], 0x7ffd /* 3 vars */) = 0
clone(child_stack=NULL, flags=SIGCHLD) = 501
[pid   501] exit_group(0) = ?
[pid   501] +++ exited with 0 +++
[pid   500] close(3) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
		{"-f to a terminal, cut after a child exited", `execve("/bin/x", ["x"], 0x7ffd /* 3 vars */) = 0
clone(child_stack=NULL, flags=SIGCHLD) = 501
[pid   501] exit_group(0) = ?
[pid   501] +++ exited with 0 +++
[pid   500] close(3) = 0
`, []string{BlindCutShort}},
		// A child that exited does not make the trace whole: the
		// command's own process never ends in it.
		{"-f, a child exited, the command cut off", `500 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD) = 501
501 exit_group(0) = ?
501 +++ exited with 0 +++
500 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=501, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
500 openat(AT_FDCWD, "/etc/hosts", O_RDONLY) = 3
`, []string{BlindCutShort}},
		{"attached to one thread, a futex wake wakes another", `dup(2) = 5
futex(0x55d0c1a0, FUTEX_WAKE_PRIVATE, 1) = 1
close(5) = 0
`, []string{BlindCutShort, BlindUnfollowedChildren}},
		{"one thread, a futex wake with no waiter", `futex(0x55d0c1a0, FUTEX_WAKE_PRIVATE, 1) = 0
futex(0x55d0c1a4, FUTEX_WAIT_PRIVATE, 0, NULL) = -1 EAGAIN (Resource temporarily unavailable)
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
		{"-f, the woken thread in the trace", `300 futex(0x55d0c1a0, FUTEX_WAKE_PRIVATE, 1) = 1
301 <... futex resumed>) = 0
300 exit_group(0) = ?
300 +++ exited with 0 +++
`, nil},
		{"-f, one child followed, one not", `300 clone(child_stack=NULL, flags=SIGCHLD) = 301
300 clone(child_stack=NULL, flags=SIGCHLD) = 302
301 exit_group(0) = ?
301 +++ exited with 0 +++
300 exit_group(0) = ?
300 +++ exited with 0 +++
`, []string{BlindUnfollowedChildren}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "t.strace")
			if err := os.WriteFile(name, []byte(tc.trace), 0o644); err != nil {
				t.Fatal(err)
			}
			blind, _, _ := blindRun(t, name, Options{})
			if diff := cmp.Diff(tc.want, blind); diff != "" {
				t.Errorf("blind spots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWritesOnlyInline(t *testing.T) {
	write := func(name, trace string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// strace -e trace=write: the file behind fd 3 is never named.
	blind, _, _ := blindRun(t, write("w.strace", "write(3, \"abc\", 3) = 3\nwrite(1, \"ok\\n\", 3) = 3\n+++ exited with 0 +++\n"), Options{})
	if diff := cmp.Diff([]string{BlindSyscallFilter}, blind); diff != "" {
		t.Errorf("writes only: blind spots (-want +got):\n%s", diff)
	}
	// With -y the fd names its file, but neither its open nor the
	// program's execve shows: the calls that name a file (its create,
	// a rename or unlink after) were left out with them.
	blind, _, _ = blindRun(t, write("y.strace", "write(3</d/f>, \"abc\", 3) = 3\nwrite(1</dev/pts/0>, \"ok\\n\", 3) = 3\nexit_group(0) = ?\n+++ exited with 0 +++\n"), Options{})
	if diff := cmp.Diff([]string{BlindSyscallFilter}, blind); diff != "" {
		t.Errorf("writes with -y: blind spots (-want +got):\n%s", diff)
	}
	// Standard output is no file to judge, named or not.
	blind, _, _ = blindRun(t, write("out.strace", "write(1</dev/pts/0>, \"ok\\n\", 3) = 3\nexit_group(0) = ?\n+++ exited with 0 +++\n"), Options{})
	if len(blind) != 0 {
		t.Errorf("stdout written with -y: blind spots %v, want none", blind)
	}
	// The program's start shows (execve, which -e trace=!%file leaves
	// out): a file written through an fd from before the trace, named,
	// is judged as any other.
	blind, _, _ = blindRun(t, write("exec.strace", "execve(\"/bin/app\", [\"app\"], 0x7ffd /* 3 vars */) = 0\nwrite(3</d/f>, \"abc\", 3) = 3\nexit_group(0) = ?\n+++ exited with 0 +++\n"), Options{})
	if len(blind) != 0 {
		t.Errorf("inherited fd 3 with -y after an execve: blind spots %v, want none", blind)
	}
}

// TestNoReadsInline: a trace with opens and not one read, in which a file
// from before the run loses its last name or its data, was filtered:
// remove-before-sync cannot see whether a copy of it was pending. A file
// the trace made itself, or a trace that reads, is no blind spot; nor is
// a file mapped to be read (git and bup read their packs so), which
// remove-before-sync follows as a read. A library the loader mapped says
// nothing of the file lost.
func TestNoReadsInline(t *testing.T) {
	const (
		open  = "openat(AT_FDCWD</d>, \"/d/log\", O_RDONLY) = 3</d/log>\n"
		read  = "read(3</d/log>, \"abc\", 4096) = 3\n"
		copy  = "close(3</d/log>) = 0\nopenat(AT_FDCWD</d>, \"/d/log.1\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</d/log.1>\nwrite(3</d/log.1>, \"abc\", 3) = 3\nclose(3</d/log.1>) = 0\n"
		trunc = "truncate(\"/d/log\", 0) = 0\n"
		rm    = "unlink(\"/d/log\") = 0\n"
		end   = "exit_group(0) = ?\n+++ exited with 0 +++\n"
		// The file mapped, and a library mapped by the loader.
		mapped = "mmap(NULL, 3, PROT_READ, MAP_PRIVATE, 3</d/log>, 0) = 0x7f0000000000\n"
		lib    = "openat(AT_FDCWD</d>, \"/usr/lib/libz.so.1\", O_RDONLY|O_CLOEXEC) = 4</usr/lib/libz.so.1>\n" +
			"mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_DENYWRITE, 4</usr/lib/libz.so.1>, 0) = 0x7f0000100000\n"
	)
	wantBlind(t, Options{Roots: []string{"/d"}}, []blindCase{
		{"truncated, no read", open + copy + trunc + end, []string{BlindSyscallFilter}},
		{"unlinked, no read", open + copy + rm + end, []string{BlindSyscallFilter}},
		{"truncated, read", open + read + copy + trunc + end, nil},
		{"unlinked, read", open + read + copy + rm + end, nil},
		{"no removal, no read", open + copy + end, nil},
		{"its own file unlinked, no read", "openat(AT_FDCWD</d>, \"/d/log\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</d/log>\n" + copy + rm + end, nil},
		// Read through memory: no read call is missing (git's packs).
		{"unlinked, mapped to be read", open + mapped + copy + rm + end, nil},
		{"truncated, mapped shared to be read", open + strings.Replace(mapped, "MAP_PRIVATE", "MAP_SHARED", 1) + copy + trunc + end, nil},
		{"unlinked, mapped with no access", open + strings.Replace(mapped, "PROT_READ", "PROT_NONE", 1) + copy + rm + end, []string{BlindSyscallFilter}},
		{"unlinked, another file mapped to be read", open + lib + copy + rm + end, []string{BlindSyscallFilter}},
	})
}

// blindMessages writes trace to a file called name and returns the
// messages of the blind spots of kind id that check finds in it under opt.
// TestUnfollowedSaysWhy: a trace whose lines carry pids was recorded
// with -f; a child missing from it was cut or edited out, and the message
// must not tell the user to add the -f they used.
func TestUnfollowedSaysWhy(t *testing.T) {
	noF := blindMessages(t, "t.strace", `clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD) = 4242
wait4(-1, NULL, 0, NULL) = 4242
exit_group(0) = ?
+++ exited with 0 +++
`, Options{}, BlindUnfollowedChildren)
	if len(noF) != 1 || !strings.Contains(noF[0], "recorded without -f") {
		t.Errorf("no pids on the lines: %q, want one message saying it was recorded without -f", noF)
	}
	for _, trace := range []string{`300 clone(child_stack=NULL, flags=SIGCHLD) = 301
300 clone(child_stack=NULL, flags=SIGCHLD) = 302
301 exit_group(0) = ?
301 +++ exited with 0 +++
300 exit_group(0) = ?
300 +++ exited with 0 +++
`, `300 clone(child_stack=NULL, flags=SIGCHLD) = 302
300 exit_group(0) = ?
300 +++ exited with 0 +++
`, `500 openat(AT_FDCWD, "/data/dump.rdb", O_RDONLY) = 3
500 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=501, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
500 exit_group(0) = ?
500 +++ exited with 0 +++
`} {
		msgs := blindMessages(t, "t.strace", trace, Options{}, BlindUnfollowedChildren)
		if len(msgs) != 1 || strings.Contains(msgs[0], "recorded without -f") || !strings.Contains(msgs[0], "strace -f writes them") {
			t.Errorf("pids on the lines:\n%s: %q, want one message that says the lines carry pids, not that -f was missing", trace, msgs)
		}
	}
	// Pids wrapped: the child the message names is the one of the line
	// it cites, the first in the trace, not the smallest pid.
	wrapped := blindMessages(t, "t.strace", `clone(child_stack=NULL, flags=SIGCHLD) = 32761
wait4(-1, NULL, 0, NULL) = 32761
clone(child_stack=NULL, flags=SIGCHLD) = 305
wait4(-1, NULL, 0, NULL) = 305
exit_group(0) = ?
+++ exited with 0 +++
`, Options{}, BlindUnfollowedChildren)
	if len(wrapped) != 1 || !strings.Contains(wrapped[0], "first pid 32761") {
		t.Errorf("pids wrapped: %q, want one message naming pid 32761, the first clone's", wrapped)
	}
	// An -ff set whose child's file is gone: the set names the file.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.300"), []byte(`1700000000.000001 clone(child_stack=NULL, flags=SIGCHLD) = 301
1700000000.000002 exit_group(0) = ?
1700000000.000003 +++ exited with 0 +++
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, w := range checkFile(t, filepath.Join(dir, "t"), Options{}).Warnings {
		if w.ID == BlindUnfollowedChildren {
			msgs = append(msgs, w.Message)
		}
	}
	if want := "has no file " + filepath.Join(dir, "t.301"); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
		t.Errorf("an -ff set without the child's file: %q, want one message saying it %s", msgs, want)
	}
}

func blindMessages(t *testing.T, name, trace string, opt Options, id string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, w := range checkFile(t, p, opt).Warnings {
		if w.ID == id {
			msgs = append(msgs, w.Message)
		}
	}
	return msgs
}

// blindOfText writes trace to a file called name and returns the blind
// spots check finds in it under opt.
func blindOfText(t *testing.T, name, trace string, opt Options) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	blind, _, _ := blindRun(t, p, opt)
	return blind
}

// blindCase is a trace written inline and the blind spots check must
// find in it (nil: none).
type blindCase struct {
	name, trace string
	want        []string
}

// wantBlind checks each case under opt.
func wantBlind(t *testing.T, opt Options, cases []blindCase) {
	t.Helper()
	for _, c := range cases {
		if diff := cmp.Diff(c.want, blindOfText(t, "t.strace", c.trace, opt)); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestFewKindsInline: a whole run whose many calls are of one or two
// kinds was recorded with a filter (a public -e trace=openat trace of
// 4,026 opens and nothing else checked clean); a static program that only
// writes still shows three kinds, and a window cut short is said as that.
func TestFewKindsInline(t *testing.T) {
	run := func(name, trace string) []string { return blindOfText(t, name, trace, Options{}) }
	opens := strings.Repeat("openat(AT_FDCWD, \"/usr/lib/x.so\", O_RDONLY|O_CLOEXEC) = 3\n", 25)
	if diff := cmp.Diff([]string{BlindSyscallFilter}, run("opens.strace", opens+"+++ exited with 0 +++\n")); diff != "" {
		t.Errorf("opens only: blind spots (-want +got):\n%s", diff)
	}
	writes := "execve(\"/bin/yes\", [\"yes\"], 0x7ffd /* 3 vars */) = 0\n" + strings.Repeat("write(1, \"y\\n\", 2) = 2\n", 25) + "exit_group(0) = ?\n+++ exited with 0 +++\n"
	if got := run("writes.strace", writes); len(got) != 0 {
		t.Errorf("a static program that only writes: blind spots %v, want none", got)
	}
	if diff := cmp.Diff([]string{BlindCutShort}, run("window.strace", opens)); diff != "" {
		t.Errorf("a window of opens: blind spots (-want +got):\n%s", diff)
	}
}

// TestProcessOnlyInline: a run recorded with a filter that keeps only
// the calls of processes' lives (a build profiler records with
// -e trace=execve,execveat,exit,exit_group) shows no file at all, in
// more kinds than two; it is no clean run. A static program that does
// nothing shows two such calls and is left alone.
func TestProcessOnlyInline(t *testing.T) {
	run := func(name, trace string) []string { return blindOfText(t, name, trace, Options{}) }
	build := "300 execve(\"/opt/bin/make\", [\"make\"], 0x7ffe0010 /* 9 vars */) = 0\n" +
		"300 execve(\"/usr/bin/cc\", [\"cc\", \"-c\", \"a.c\"], 0x7ffe0020 /* 9 vars */) = -1 ENOENT (No such file or directory)\n" +
		"301 execve(\"/usr/local/bin/cc\", [\"cc\", \"-c\", \"a.c\"], 0x7ffe0030 /* 9 vars */) = 0\n" +
		"302 exit(0) = ?\n302 +++ exited with 0 +++\n" +
		"301 exit_group(0) = ?\n301 +++ exited with 0 +++\n" +
		"300 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=301, si_uid=1000, si_status=0, si_utime=0, si_stime=0} ---\n" +
		"300 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 301\n" +
		"300 exit_group(0) = ?\n300 +++ exited with 0 +++\n"
	if diff := cmp.Diff([]string{BlindSyscallFilter}, run("build.strace", build)); diff != "" {
		t.Errorf("process calls only: blind spots (-want +got):\n%s", diff)
	}
	static := "execve(\"/bin/true\", [\"true\"], 0x7ffe0010 /* 9 vars */) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\n"
	if got := run("true.strace", static); len(got) != 0 {
		t.Errorf("a static program that does nothing: blind spots %v, want none", got)
	}
}

// io_uring moves file operations out of the trace's sight: a trace that
// set one up is never a quiet clean, even with nothing in scope.
func TestIOUringIsBlind(t *testing.T) {
	ring := "io_uring_setup(8, {flags=0, sq_thread_cpu=0, sq_thread_idle=0, sq_entries=8, cq_entries=16}) = 3\nio_uring_enter(3, 1, 1, IORING_ENTER_GETEVENTS, NULL, 8) = 1\nclose(3) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\n"
	if diff := cmp.Diff([]string{BlindIOUring}, blindOfText(t, "ring.strace", ring, Options{})); diff != "" {
		t.Errorf("blind spots (-want +got):\n%s", diff)
	}
	failed := "io_uring_setup(8, 0x7ffd0000) = -1 ENOSYS (Function not implemented)\ngetpid() = 100\nexit_group(0) = ?\n+++ exited with 0 +++\n"
	if blind := blindOfText(t, "nosys.strace", failed, Options{}); len(blind) != 0 {
		t.Errorf("a failed io_uring_setup: blind spots %v, want none", blind)
	}
}

// TestIOUringFilteredSetup: MariaDB recorded with
// -e trace=!io_uring_setup,io_uring_enter,io_uring_register shows no
// io_uring call, but -y still names the ring's fd where its rings are
// mapped and where it is closed. That trace is as blind as one with the
// setup in it; without the fd's name (no -y) nothing tells.
func TestIOUringFilteredSetup(t *testing.T) {
	body := `1 openat(AT_FDCWD</w>, "/w/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</w/f>
1 write(3</w/f>, "x", 1) = 1
1 fsync(3</w/f>) = 0
1 close(3</w/f>) = 0
1 openat(AT_FDCWD</w>, "/w", O_RDONLY|O_DIRECTORY) = 3</w>
1 fsync(3</w>) = 0
1 close(3</w>) = 0
`
	end := "1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	mapped := "1 mmap(NULL, 73792, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_POPULATE, 9<anon_inode:[io_uring]>, 0) = 0x7f999fe22000\n" + body + end
	if diff := cmp.Diff([]string{BlindIOUring}, blindOfText(t, "mapped.strace", mapped, Options{})); diff != "" {
		t.Errorf("rings mapped: blind spots (-want +got):\n%s", diff)
	}
	closed := body + "1 close(9<anon_inode:[io_uring]>) = 0\n" + end
	if diff := cmp.Diff([]string{BlindIOUring}, blindOfText(t, "closed.strace", closed, Options{})); diff != "" {
		t.Errorf("ring closed: blind spots (-want +got):\n%s", diff)
	}
	other := body + "1 close(9<anon_inode:[eventfd]>) = 0\n" + end
	if blind := blindOfText(t, "eventfd.strace", other, Options{}); len(blind) != 0 {
		t.Errorf("an eventfd closed: blind spots %v, want none", blind)
	}
}

// loaderMap is the dynamic loader's map of /etc/ld.so.cache, opened as fd
// 3 just before: a trace that shows the loader open the cache and map
// nothing was recorded with a -e trace= list (TestLoaderWithoutMmap).
const loaderMap = "1 mmap(NULL, 20115, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f2200000000\n"

// TestLoaderWithoutMmap: the loader maps each library it opens, and the
// cache first; a trace that opens /etc/ld.so.cache and has not one mmap
// was recorded with a list written by hand, and which of the calls that
// change names it kept cannot be told (sqlite3 under a list of opens,
// writes, syncs and closes, without unlink, checked clean).
func TestLoaderWithoutMmap(t *testing.T) {
	const (
		exec    = "1 execve(\"/usr/bin/sqlite3\", [\"sqlite3\"], 0x7ffd0000 /* 3 vars */) = 0\n"
		cache   = "1 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n"
		closeIt = "1 close(3) = 0\n"
		save    = "1 openat(AT_FDCWD, \"/w/t.db-journal\", O_RDWR|O_CREAT|O_CLOEXEC, 0644) = 3\n1 pwrite64(3, \"x\", 1, 0) = 1\n1 fdatasync(3) = 0\n1 close(3) = 0\n" +
			"1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_CLOEXEC) = 4\n1 fdatasync(4) = 0\n1 close(4) = 0\n" +
			"1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	opt := Options{Existed: func(p string) (bool, bool) { return p == "/w", true }}
	if diff := cmp.Diff([]string{BlindSyscallFilter}, blindOfText(t, "nommap.strace", exec+cache+closeIt+save, opt)); diff != "" {
		t.Errorf("the cache opened, not one mmap: blind spots (-want +got):\n%s", diff)
	}
	if blind := blindOfText(t, "mmap.strace", exec+cache+loaderMap+closeIt+save, opt); len(blind) != 0 {
		t.Errorf("the cache opened and mapped: blind spots %v, want none", blind)
	}
	// A static program opens no cache: no mmap says nothing.
	if blind := blindOfText(t, "static.strace", exec+save, opt); len(blind) != 0 {
		t.Errorf("no cache opened: blind spots %v, want none", blind)
	}
}

// TestHandListInline: a glibc program's start (the loader opens and maps
// its cache) without the calls of no strace class glibc makes as it
// starts, with stat calls (so no crashsim trace list) and without the
// loader's access of /etc/ld.so.preload (so no %file): a list written by
// hand, which may leave out renameat2 or unlinkat (mv after a sync under
// -e trace=openat,write,rename,unlink,...,sync checked clean). A glibc
// older than those calls opened ld.so.preload before the cache.
func TestHandListInline(t *testing.T) {
	const (
		exec   = "1 execve(\"/usr/bin/mv\", [\"mv\"], 0x7ffd0000 /* 3 vars */) = 0\n"
		cache  = "1 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n" + loaderMap + "1 close(3) = 0\n"
		start  = "1 set_tid_address(0x7f2200000a10) = 1\n1 set_robust_list(0x7f2200000a20, 24) = 0\n"
		access = "1 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n"
		stat   = "1 newfstatat(AT_FDCWD, \"/w/b\", 0x7ffd00000100, 0) = -1 ENOENT (No such file or directory)\n"
		end    = "1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	opt := Options{Existed: func(p string) (bool, bool) { return p == "/w" || p == "/w/a", true }}
	wantBlind(t, opt, []blindCase{
		{"a list with stat calls", exec + cache + stat + end, []string{BlindSyscallFilter}},
		{"glibc's start shown", exec + cache + start + stat + end, nil},
		// %file (with %desc: the cache is mapped and closed) keeps every
		// call that changes a name, but not sync, of no class: a class
		// filter is said as one (TestClassFilterHidesSync).
		{"the loader's access shown (%file,%desc)", exec + access + cache + stat + end, []string{BlindSyscallFilter}},
		{"the loader's access and glibc's start shown", exec + access + cache + start + stat + end, nil},
		{"no stat call (crashsim trace's list)", exec + cache + end, nil},
		// glibc before 2.3 made none of the start calls and probed
		// ld.so.preload with open (a public i386 log of 2002).
		{"an old glibc's loader", exec + "1 open(\"/etc/ld.so.preload\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" + cache + stat + end, nil},
		{"a later open of ld.so.preload", exec + cache + "1 open(\"/etc/ld.so.preload\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" + stat + end, []string{BlindSyscallFilter}},
	})
}

// TestLoaderWithoutOpensInline: the loader's access of ld.so.preload,
// and not one open after it, under -e trace=!%desc (openat takes a
// directory fd, so its class holds it; so does renameat2).
func TestLoaderWithoutOpensInline(t *testing.T) {
	const (
		exec   = "1 execve(\"/usr/bin/mv\", [\"mv\"], 0x7ffd0000 /* 3 vars */) = 0\n"
		access = "1 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n"
		cache  = "1 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n" + loaderMap + "1 close(3) = 0\n"
		start  = "1 set_tid_address(0x7f2200000a10) = 1\n1 set_robust_list(0x7f2200000a20, 24) = 0\n"
		end    = "1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	wantBlind(t, Options{}, []blindCase{
		{"the access, no open", exec + access + start + end, []string{BlindSyscallFilter}},
		{"the access and the cache's open", exec + access + cache + start + end, nil},
	})
}

// TestLoaderInTheMiddle: an excerpt (or an attach) with no execve in
// which a library is loaded in the middle of the run (an NSS module):
// the loader's open of its cache is no program's start, and calls a
// %desc list leaves out (stat, unlink, open) show there is no such list.
// A trace that starts at that open, with none of them, is one.
func TestLoaderInTheMiddle(t *testing.T) {
	const (
		before = "100 stat(\"/etc/krb5.conf\", {st_mode=S_IFREG|0644, st_size=449, ...}) = 0\n100 unlink(\"/d/old\") = 0\n"
		load   = "100 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n100 mmap(NULL, 20115, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f2200000000\n100 close(3) = 0\n"
		end    = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	)
	wantBlind(t, Options{}, []blindCase{
		{"a library loaded mid-run", before + load + end, nil},
		{"the loader first, no execve", load + "100 unlinkat(AT_FDCWD, \"/d/old\", 0) = 0\n" + end, []string{BlindSyscallFilter}},
	})
}

// TestSyncsOnlyInline: a trace whose calls are all syncs and exits, with
// no execve, was recorded with a list of syncs (sed -i after a sync
// under -e trace=fsync,fdatasync,sync,exit_group checked clean). With the
// execve shown, a program that only syncs is taken at its word.
func TestSyncsOnlyInline(t *testing.T) {
	const (
		exec  = "2 execve(\"/usr/bin/sync\", [\"sync\"], 0x7ffd0000 /* 3 vars */) = 0\n"
		syncs = "2 sync() = 0\n2 exit_group(0) = ?\n2 +++ exited with 0 +++\n1 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=2, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---\n" +
			"3 exit_group(0) = ?\n3 +++ exited with 0 +++\n1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	wantBlind(t, Options{}, []blindCase{
		{"syncs and exits, no execve", syncs, []string{BlindSyscallFilter}},
		{"one program's execve, sync and exit", exec + "2 sync() = 0\n2 exit_group(0) = ?\n2 +++ exited with 0 +++\n", nil},
	})
}

// TestStatusNotFailed: strace -e status=!failed keeps exit_group (it
// never returns) and drops every failed call, a failed fsync among them.
// A dynamically linked program's loader asks for /etc/ld.so.preload
// before it opens /etc/ld.so.cache, and that access fails unless the
// file exists: a trace that opens the cache, shows no such access and
// no failed call left the failures out.
func TestStatusNotFailed(t *testing.T) {
	const (
		exec    = "1 execve(\"/usr/bin/prog\", [\"prog\"], 0x7ffd0000 /* 3 vars */) = 0\n"
		access  = "1 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n"
		present = "1 access(\"/etc/ld.so.preload\", R_OK) = 0\n1 openat(AT_FDCWD, \"/etc/ld.so.preload\", O_RDONLY|O_CLOEXEC) = 3\n1 close(3) = 0\n"
		rest    = "1 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n" + loaderMap + "1 close(3) = 0\n1 set_tid_address(0x7f22000010d0) = 1\n1 access(\"/w\", W_OK) = 0\n" +
			"1 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n1 write(3, \"x\", 1) = 1\n1 fsync(3) = 0\n1 close(3) = 0\n" +
			"1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 3\n1 fsync(3) = 0\n1 close(3) = 0\n" +
			"1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	if diff := cmp.Diff([]string{BlindSuccessfulOnly}, blindOfText(t, "nofailed.strace", exec+rest, Options{})); diff != "" {
		t.Errorf("no failed call, no preload access: blind spots (-want +got):\n%s", diff)
	}
	if blind := blindOfText(t, "full.strace", exec+access+rest, Options{}); len(blind) != 0 {
		t.Errorf("the loader's failed access shown: blind spots %v, want none", blind)
	}
	if blind := blindOfText(t, "preload.strace", exec+present+rest, Options{}); len(blind) != 0 {
		t.Errorf("an /etc/ld.so.preload that exists: blind spots %v, want none", blind)
	}
	// crashsim trace's own -e trace= list leaves access out, and so do
	// others: no access call at all says nothing of failed ones.
	noAccess := strings.Replace(rest, "1 access(\"/w\", W_OK) = 0\n", "", 1)
	if blind := blindOfText(t, "noaccess.strace", exec+noAccess, Options{}); len(blind) != 0 {
		t.Errorf("no access call traced at all: blind spots %v, want none", blind)
	}
}

// Linux AIO: io_submit queues writes and fsyncs that the kernel completes
// later and the model does not follow. A database that writes its pages
// that way and never calls fsync itself is no clean run; an io_submit
// that queued nothing (or failed) is no blind spot.
func TestLinuxAIOIsBlind(t *testing.T) {
	run := func(name, calls string) []string {
		text := "execve(\"/usr/sbin/dbd\", [\"dbd\"], 0x7ffd /* 9 vars */) = 0\n" +
			"io_setup(64, [0x7f2200001000]) = 0\n" +
			"openat(AT_FDCWD, \"/srv/db/pages\", O_RDWR|O_DIRECT) = 5\n" + calls +
			"close(5) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\n"
		return blindOfText(t, name, text, Options{Existed: func(string) (bool, bool) { return true, true }})
	}
	queued := "io_submit(0x7f2200001000, 1, [{aio_data=0x10, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=5, aio_buf=\"\\x01\\x02\"..., aio_nbytes=8192, aio_offset=16384}]) = 1\n" +
		"io_getevents(0x7f2200001000, 1, 64, [{data=0x10, obj=0x7ffd1000, res=8192, res2=0}], NULL) = 1\n"
	if diff := cmp.Diff([]string{BlindLinuxAIO}, run("aio.strace", queued)); diff != "" {
		t.Errorf("blind spots (-want +got):\n%s", diff)
	}
	failed := "io_submit(0x7f2200001000, 1, 0x7ffd2000) = -1 EINVAL (Invalid argument)\n"
	if blind := run("failed.strace", failed); len(blind) != 0 {
		t.Errorf("a failed io_submit: blind spots %v, want none", blind)
	}
}

// Linux AIO under a class filter: -e trace=%file,%desc,%process keeps
// the opens, reads and fsyncs but not io_submit, which strace puts in no
// class, so a database's page writes vanish and nothing says AIO. What
// still shows is the loader opening libaio, and the absence of every
// call of no class (set_robust_list, futex, ...) that glibc always makes.
func TestLinuxAIOFilteredOut(t *testing.T) {
	const (
		exec = "1 execve(\"/usr/sbin/dbd\", [\"dbd\"], 0x7ffd /* 9 vars */) = 0\n" +
			"1 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n" +
			"1 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n" + loaderMap + "1 close(3) = 0\n"
		lib   = "1 openat(AT_FDCWD, \"/lib/x86_64-linux-gnu/libaio.so.1t64\", O_RDONLY|O_CLOEXEC) = 3\n1 read(3, \"\\177ELF\", 4) = 4\n1 close(3) = 0\n"
		glibc = "1 set_tid_address(0x7f22000010d0) = 1\n1 set_robust_list(0x7f22000010e0, 24) = 0\n"
		stat  = "1 newfstatat(AT_FDCWD, \"/srv/db\", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0\n"
		rest  = "1 openat(AT_FDCWD, \"/srv/db/pages\", O_RDWR|O_CREAT, 0644) = 5\n1 pwrite64(5, \"x\", 1, 0) = 1\n1 fdatasync(5) = 0\n1 close(5) = 0\n" +
			"1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	run := func(name, text string) []string {
		return blindOfText(t, name, text, Options{Existed: func(string) (bool, bool) { return true, true }})
	}
	if diff := cmp.Diff([]string{BlindSyscallFilter}, run("classes.strace", exec+lib+stat+rest)); diff != "" {
		t.Errorf("libaio loaded under a class filter: blind spots (-want +got):\n%s", diff)
	}
	if blind := run("full.strace", exec+lib+glibc+stat+rest); len(blind) != 0 {
		t.Errorf("libaio loaded, calls of no class shown: blind spots %v, want none", blind)
	}
	if blind := run("sync.strace", exec+lib+stat+strings.Replace(rest, "fdatasync(5)", "sync()", 1)); len(blind) != 0 {
		t.Errorf("libaio loaded, sync (of no class) shown: blind spots %v, want none", blind)
	}
	// crashsim trace's own list keeps io_submit and leaves out the stat
	// calls: no io_submit there means none was made.
	noAccess := strings.Replace(exec, "1 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)\n", "", 1)
	if blind := run("crashsim.strace", noAccess+lib+rest); len(blind) != 0 {
		t.Errorf("libaio loaded, no stat call traced: blind spots %v, want none", blind)
	}
	if blind := run("nolib.strace", exec+glibc+stat+rest); len(blind) != 0 {
		t.Errorf("no libaio: blind spots %v, want none", blind)
	}
}

// A strace older than the kernel prints a call it does not know by its
// number, with bare numbers for arguments: renameat2 (316 on amd64) as
// strace 4.x printed it hides a rename. A number that stands for no call
// a verdict needs (seccomp, 317), or one that failed, is no blind spot.
func TestUnnamedCallIsBlind(t *testing.T) {
	run := func(name, calls string) []string {
		text := "execve(\"./save\", [\"./save\"], [/* 20 vars */]) = 0\n" + calls + "exit_group(0) = ?\n+++ exited with 0 +++\n"
		return blindOfText(t, name, text, Options{})
	}
	for _, tc := range []struct {
		name, calls string
		want        []string
	}{
		{"renameat2, strace 4.x", "syscall_316(0xffffffffffffff9c, 0x4005e4, 0xffffffffffffff9c, 0x4005f0, 0x1, 0) = 0\n", []string{BlindUnnamedCall}},
		{"openat2, hex", "syscall_0x1b5(0xffffff9c, 0x7ffd10, 0x7ffd20, 0x18) = 3\nclose(3) = 0\n", []string{BlindUnnamedCall}},
		{"seccomp", "syscall_317(0x1, 0, 0x7ffd10) = 0\n", nil},
		{"renameat2 that failed", "syscall_316(0xffffffffffffff9c, 0x4005e4, 0xffffffffffffff9c, 0x4005f0, 0x1, 0) = -1 EEXIST (File exists)\n", nil},
		{"renameat2 by name", "renameat2(AT_FDCWD, \"a\", AT_FDCWD, \"b\", RENAME_NOREPLACE) = 0\n", nil},
	} {
		if diff := cmp.Diff(tc.want, run(strings.ReplaceAll(tc.name, " ", "_")+".strace", tc.calls)); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestNoDataInline(t *testing.T) {
	tests := []struct {
		name, trace string
		want        []string
	}{
		{"whole bytes", `openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT, 0644) = 3</d/f>
write(3</d/f>, "abc", 3) = 3
close(3</d/f>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
		{"raw write", `openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT, 0644) = 3</d/f>
write(3</d/f>, 0x55d0c0ffee00, 3) = 3
close(3</d/f>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindNoData}},
		{"iovecs cut short", `openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT, 0644) = 3</d/f>
writev(3</d/f>, [{iov_base="ab", iov_len=2}, ...], 3) = 4
close(3</d/f>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindNoData}},
		// A copy in the kernel shows no bytes; those of a file below the
		// root the trace had not changed are the initial snapshot's.
		{"copy of an unchanged file", `openat(AT_FDCWD</d>, "/d/src", O_RDONLY) = 3</d/src>
openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT, 0644) = 4</d/f>
copy_file_range(3</d/src>, NULL, 4</d/f>, NULL, 9223372035781033984, 0) = 100
sendfile(4</d/f>, 3</d/src>, [0] => [10], 10) = 10
close(4</d/f>) = 0
close(3</d/src>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
		{"copy of a file written first", `openat(AT_FDCWD</d>, "/d/src", O_RDWR) = 3</d/src>
write(3</d/src>, "abc", 3) = 3
openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT, 0644) = 4</d/f>
copy_file_range(3</d/src>, [0], 4</d/f>, NULL, 100, 0) = 100
close(4</d/f>) = 0
close(3</d/src>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindNoData}},
		{"copy of a file outside the roots", `openat(AT_FDCWD</d>, "/e/src", O_RDONLY) = 3</e/src>
openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT, 0644) = 4</d/f>
sendfile(4</d/f>, 3</e/src>, NULL, 100) = 100
close(4</d/f>) = 0
close(3</e/src>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindNoData}},
		{"copy from a pipe", `pipe2([3<pipe:[1]>, 5<pipe:[1]>], 0) = 0
openat(AT_FDCWD</d>, "/d/f", O_WRONLY|O_CREAT, 0644) = 4</d/f>
splice(3<pipe:[1]>, NULL, 4</d/f>, NULL, 100, 0) = 100
close(4</d/f>) = 0
close(3<pipe:[1]>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindNoData}},
		// A file from before the trace named below the roots from
		// outside them: its bytes are in no snapshot of the roots.
		{"hard link from outside the roots", `link("/e/obj", "/d/obj") = 0
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindNoData}},
		{"rename from outside the roots", `rename("/e/obj", "/d/obj") = 0
exit_group(0) = ?
+++ exited with 0 +++
`, []string{BlindNoData}},
		{"hard link below the roots", `link("/d/a", "/d/b") = 0
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
		{"hard link to a file made outside the roots", `openat(AT_FDCWD</d>, "/e/new", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</e/new>
write(3</e/new>, "abc", 3) = 3
close(3</e/new>) = 0
link("/e/new", "/d/new") = 0
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
		{"hard link out of the roots", `link("/d/a", "/e/a") = 0
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
		{"outside the roots", `openat(AT_FDCWD</d>, "/e/f", O_WRONLY|O_CREAT, 0644) = 3</e/f>
write(3</e/f>, ""..., 3) = 3
openat(AT_FDCWD</d>, "/d/g", O_WRONLY|O_CREAT, 0644) = 4</d/g>
close(3</e/f>) = 0
exit_group(0) = ?
+++ exited with 0 +++
`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "t.strace")
			if err := os.WriteFile(name, []byte(tc.trace), 0o644); err != nil {
				t.Fatal(err)
			}
			blind, _, _ := blindRun(t, name, Options{Roots: []string{"/d"}, NeedData: true})
			if diff := cmp.Diff(tc.want, blind); diff != "" {
				t.Errorf("blind spots (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRootBelowDevShm: /dev/shm is tmpfs on every Linux system, so a root
// below it checks nothing; the run must say so rather than report "0 files
// in scope" as if the trace had touched none. Before, the scope left every
// /dev path out while the blind-spot watcher counted /dev/shm as in the
// roots, and nothing was said.
func TestRootBelowDevShm(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "shm.strace")
	lines := `100 openat(AT_FDCWD</>, "/etc/nope", O_RDONLY) = -1 ENOENT (No such file or directory)
100 openat(AT_FDCWD</>, "/dev/shm/x/a", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</dev/shm/x/a>
100 write(3</dev/shm/x/a>, "hi\n", 3) = 3
100 close(3</dev/shm/x/a>) = 0
100 exit_group(0) = ?
100 +++ exited with 0 +++
`
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{
		{Roots: []string{"/dev/shm/x"}, LikelyVolatile: LikelyVolatile},
		{Roots: []string{"/dev/shm/x"}, Mounts: []Mount{{"/", "ext4"}, {"/dev/shm", "tmpfs"}}},
	} {
		blind, notes, findings := blindRun(t, trace, opt)
		if len(blind) != 0 || len(findings) != 0 {
			t.Errorf("%+v: blind spots %v, findings %v; want none", opt, blind, findings)
		}
		if diff := cmp.Diff([]string{NoteVolatile, NoteVolatile}, notes); diff != "" {
			t.Errorf("%+v: notes (-want +got): the root and the path\n%s", opt, diff)
		}
	}
	// A disk mounted there is checked like any other.
	_, _, findings := blindRun(t, trace, Options{Roots: []string{"/dev/shm/x"}, Mounts: []Mount{{"/", "ext4"}, {"/dev/shm", "tmpfs"}, {"/dev/shm/x", "ext4"}}})
	if diff := cmp.Diff([]string{"data-not-synced /dev/shm/x/a", "name-not-synced /dev/shm/x/a"}, findings); diff != "" {
		t.Errorf("ext4 at /dev/shm/x: findings (-want +got):\n%s", diff)
	}
}

// TestPartialSet: one file of an -ff set (Options.SetPrefix and
// SetOthers, which crashsim sets from parser.SetOf) holds one process of
// the recording. A Go program's thread that changed nothing checked clean;
// the main thread's file said the threads were lost to a recording
// without -f. Both now say what the file is, and only that. A numbered
// trace with a pid column is a whole recording: no warning.
func TestPartialSet(t *testing.T) {
	set := fx + "go-atomic/ff-ttt/trace"
	members, _ := filepath.Glob(set + ".*")
	if len(members) != 4 {
		t.Fatalf("go-atomic's -ff set has %d files, want 4", len(members))
	}
	sort.Strings(members)
	others := func(m string) []string {
		var out []string
		for _, o := range members {
			if o != m {
				out = append(out, o)
			}
		}
		return out
	}
	for _, m := range []string{members[0], members[3]} {
		blind, _, findings := blindRun(t, m, Options{SetPrefix: set, SetOthers: others(m)})
		if diff := cmp.Diff([]string{BlindPartialSet}, blind); diff != "" || len(findings) != 0 {
			t.Errorf("%s: blind spots (-want +got):\n%s\nfindings %v", m, diff, findings)
		}
		blind, _, _ = blindRun(t, m, Options{})
		if slices.Contains(blind, BlindPartialSet) {
			t.Errorf("%s: %v without SetPrefix", m, blind)
		}
	}
	trace := filepath.Join(t.TempDir(), "run.1")
	lines := "7 openat(AT_FDCWD</d>, \"/d/a\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</d/a>\n" +
		"7 write(3</d/a>, \"x\", 1) = 1\n7 fsync(3</d/a>) = 0\n7 close(3</d/a>) = 0\n" +
		"7 openat(AT_FDCWD</d>, \"/nope\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" +
		"7 exit_group(0) = ?\n7 +++ exited with 0 +++\n"
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	blind, _, _ := blindRun(t, trace, Options{SetPrefix: strings.TrimSuffix(trace, ".1"), SetOthers: []string{strings.TrimSuffix(trace, "1") + "2"}})
	if slices.Contains(blind, BlindPartialSet) {
		t.Errorf("a trace with a pid column: %v", blind)
	}
}

// An fd the trace never opened, moved onto standard output, is no
// standard output: `sh -c 'echo x >&3' 3>>log` recorded without -y dup2s
// fd 3 onto 1 and writes the file through fd 1. That checked clean with
// exit 0, the write left out as if to a terminal. Standard output as the
// program got it, and an fd the trace opened moved onto it, are no blind
// spot.
func TestUnknownFDMovedOntoStdout(t *testing.T) {
	const start = "100 execve(\"/bin/sh\", [\"sh\", \"-c\", \"echo x >&3\"], 0x7ffc408087f8 /* 3 vars */) = 0\n"
	const end = "100 read(0, \"\", 10) = 0\n100 getpid() = 100\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, body string
		blind      []string
	}{
		{"inherited fd 3 onto 1", "100 fcntl(1, F_DUPFD, 10) = 11\n100 dup2(3, 1) = 1\n100 write(1, \"x\\n\", 2) = 2\n100 dup2(11, 1) = 1\n", []string{BlindUnknownFD}},
		{"inherited fd 3 onto 2 with dup3", "100 dup3(3, 2, 0) = 2\n100 write(2, \"x\\n\", 2) = 2\n", []string{BlindUnknownFD}},
		{"standard output as given", "100 write(1, \"x\\n\", 2) = 2\n100 write(2, \"y\\n\", 2) = 2\n", nil},
		{"a dup of standard output", "100 fcntl(1, F_DUPFD, 10) = 11\n100 write(11, \"x\\n\", 2) = 2\n100 close(11) = 0\n", nil},
		{"an opened file onto 1", "100 openat(AT_FDCWD, \"/w/log\", O_WRONLY|O_CREAT|O_APPEND, 0666) = 3\n100 dup2(3, 1) = 1\n100 close(3) = 0\n100 write(1, \"x\\n\", 2) = 2\n100 fsync(1) = 0\n", nil},
	} {
		blind, _ := bigRun(t, start+c.body+end, Options{Roots: []string{"/w"}})
		if diff := cmp.Diff(c.blind, blind); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
		}
	}
}

// A program that only reserves space and syncs, and prints nothing
// (util-linux's fallocate -l), makes no write at all: that is no sign of
// a filter that left writes out, as the same trace without the fallocate
// is.
func TestFallocateOnlyIsNoFilter(t *testing.T) {
	const start = "100 execve(\"/usr/bin/fallocate\", [\"fallocate\", \"-l\", \"1M\", \"/w/fa\"], 0x7ffc408087f8 /* 3 vars */) = 0\n" +
		"100 brk(NULL) = 0x55d5c3a6b000\n" +
		"100 openat(AT_FDCWD, \"/w/fa\", O_WRONLY|O_CREAT, 0644) = 3\n"
	const end = "100 fsync(3) = 0\n100 close(3) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, body string
		blind      []string
	}{
		{"fallocate", "100 fallocate(3, 0, 0, 1048576) = 0\n", nil},
		{"ftruncate", "100 ftruncate(3, 1048576) = 0\n", nil},
		{"a fallocate that failed", "100 fallocate(3, 0, 0, 1048576) = -1 EOPNOTSUPP (Operation not supported)\n", []string{BlindSyscallFilter}},
		{"nothing between the open and the fsync", "", []string{BlindSyscallFilter}},
	} {
		blind, _ := bigRun(t, start+c.body+end, Options{Roots: []string{"/w"}})
		if diff := cmp.Diff(c.blind, blind); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestTruncatedAfterSyncWithoutWrites: sh -c 'echo x > f; sync;
// truncate -s 0 f' under -e trace=!write shows the shell's open of f,
// the sync and the cut, and not the echo's write: the model takes f for
// empty and the cut for nothing, and the trace checked clean, as it did
// with "echo y >> f" after the sync. A cut, or an open for appending,
// after a sync in a trace without a single write is a blind spot; one in
// a trace that shows writes, or stores into a file mapped shared and
// writable, or before any sync, is not.
func TestTruncatedAfterSyncWithoutWrites(t *testing.T) {
	const (
		start = "100 execve(\"/bin/sh\", [\"sh\", \"-c\", \"...\"], 0x7ffc408087f8 /* 3 vars */) = 0\n" +
			"100 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n100 close(3) = 0\n"
		sync   = "100 sync() = 0\n"
		cut    = "100 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_NONBLOCK, 0666) = 3\n100 ftruncate(3, 0) = 0\n100 close(3) = 0\n"
		reopen = "100 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n100 close(3) = 0\n"
		path   = "100 truncate(\"/w/f\", 0) = 0\n"
		tty    = "100 write(2</dev/pts/0>, \"ok\\n\", 3) = 3\n"
		end    = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	)
	in := func(body string) string { return start + body + end }
	wantBlind(t, Options{Roots: []string{"/w"}}, []blindCase{
		{"ftruncate after a sync", in(sync + cut), []string{BlindSyscallFilter}},
		{"O_TRUNC after a sync", in(sync + reopen), []string{BlindSyscallFilter}},
		{"truncate(2) after a sync", in(sync + path), []string{BlindSyscallFilter}},
		{"O_APPEND after a sync", in(sync + "100 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_APPEND, 0666) = 3\n100 close(3) = 0\n"), []string{BlindSyscallFilter}},
		{"a write to the terminal shows", in(sync + cut + tty), nil},
		{"no sync before the cut", in(cut + sync), nil},
		{"written through a shared writable mapping", in("100 openat(AT_FDCWD, \"/x/db\", O_RDWR) = 4\n" +
			"100 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_SHARED, 4, 0) = 0x7f0000000000\n" + sync + path), nil},
	})
}

// TestOpenedToWriteWithoutWrites: a program that opens an existing file
// to write (O_WRONLY, or O_RDWR, or for appending: "echo y >> log")
// writes to it; under -e trace=!write only the open shows, which the
// model takes for a file left as it was, and the trace checked clean.
// Such an open in a trace without a single write is a blind spot, unless
// a read or stat looks at the file after the fd is closed (what that
// shows is the evidence then), or, for O_RDWR, the program reads it (a
// database opened to be queried). A look while the fd is open comes
// before the write: Python's open stats its fd. An open that creates or
// cuts the file (touch, "> f", sqlite3's O_RDWR|O_CREAT) writes nothing
// in many programs, and is not one; nor is any open in a trace that
// shows a write anywhere, or a file mapped shared and writable, which
// the program writes by storing into memory (rrdtool update): that is
// blind-shared-mmap's, not a filter's.
func TestOpenedToWriteWithoutWrites(t *testing.T) {
	const (
		start = "100 execve(\"/bin/prog\", [\"prog\"], 0x7ffc408087f8 /* 3 vars */) = 0\n"
		end   = "100 close(3) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
		tty   = "100 write(1</dev/pts/0>, \"ok\\n\", 3) = 3\n"
		mapRW = "100 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000\n"
	)
	open := func(flags string) string {
		return "100 openat(AT_FDCWD, \"/w/f\", " + flags + ") = 3\n"
	}
	in := func(body string) string { return start + body + end }
	wantBlind(t, Options{Roots: []string{"/w"}}, []blindCase{
		{"write only", in(open("O_WRONLY|O_CLOEXEC")), []string{BlindSyscallFilter}},
		{"for appending", in(open("O_WRONLY|O_CREAT|O_APPEND, 0666")), []string{BlindSyscallFilter}},
		{"for appending, not created", in(open("O_WRONLY|O_APPEND")), []string{BlindSyscallFilter}},
		{"a failed open", start + "100 openat(AT_FDCWD, \"/w/f\", O_WRONLY) = -1 EACCES (Permission denied)\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n", nil},
		{"a write to the terminal shows", in(open("O_WRONLY") + tty), nil},
		{"created (touch)", in(open("O_WRONLY|O_CREAT|O_NOCTTY|O_NONBLOCK, 0666")), nil},
		{"truncated", in(open("O_WRONLY|O_CREAT|O_TRUNC, 0666")), nil},
		{"read and write, created", in(open("O_RDWR|O_CREAT, 0644")), nil},
		{"read and write", in(open("O_RDWR|O_CLOEXEC")), []string{BlindSyscallFilter}},
		{"read and write, and read", in(open("O_RDWR|O_CLOEXEC") + "100 pread64(3, \"a\", 1, 0) = 1\n"), nil},
		{"stat of the fd while open", in(open("O_WRONLY|O_CLOEXEC") + "100 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=0, ...}, AT_EMPTY_PATH) = 0\n"), []string{BlindSyscallFilter}},
		{"a device", start + "100 openat(AT_FDCWD, \"/dev/null\", O_WRONLY) = 3\n" + end, nil},
		{"cut to a size", in(open("O_WRONLY") + "100 ftruncate(3, 0) = 0\n"), nil},
		// Read back and found as the model has it: nothing was written.
		{"read back empty", in(open("O_WRONLY|O_APPEND") + "100 close(3) = 0\n" + open("O_RDONLY") + "100 read(3, \"\", 4096) = 0\n"), nil},
		{"closed by close_range, then read back", in(open("O_WRONLY|O_APPEND") + "100 close_range(3, 4294967295, 0) = 0\n" + open("O_RDONLY") + "100 read(3, \"\", 4096) = 0\n"), nil},
		{"marked by close_range only, stat of the fd", in(open("O_WRONLY") + "100 close_range(3, 4294967295, CLOSE_RANGE_CLOEXEC) = 0\n" + "100 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=0, ...}, AT_EMPTY_PATH) = 0\n"), []string{BlindSyscallFilter}},
		{"a later file not read back", in(open("O_WRONLY|O_APPEND") + "100 read(3, \"\", 4096) = -1 EBADF (Bad file descriptor)\n" + "100 close(3) = 0\n" + open("O_RDONLY") + "100 read(3, \"\", 4096) = 0\n100 close(3) = 0\n" + "100 openat(AT_FDCWD, \"/w/g\", O_WRONLY) = 3\n"), []string{BlindSyscallFilter}},
		// Written by storing into a shared writable mapping (rrdtool
		// update): no write call is missing, and the mapping is the
		// blind spot.
		{"read and write, mapped shared and writable", in(open("O_RDWR") + mapRW), []string{BlindSharedMmap}},
		{"read and write, mapped shared and made writable", in(open("O_RDWR") + strings.Replace(mapRW, "PROT_READ|PROT_WRITE", "PROT_READ", 1) +
			"100 mprotect(0x7f0000000000, 8192, PROT_READ|PROT_WRITE) = 0\n"), []string{BlindSharedMmap}},
		{"read and write, mapped shared and writable, synced", in(open("O_RDWR") + mapRW + "100 fsync(3) = 0\n"), []string{BlindSharedMmap}},
		{"another file mapped shared and writable, out of scope", in(open("O_WRONLY") + "100 openat(AT_FDCWD, \"/x/db\", O_RDWR) = 4\n" +
			strings.Replace(mapRW, ", 3, 0)", ", 4, 0)", 1)), nil},
		{"read and write, mapped private and writable", in(open("O_RDWR") + strings.Replace(mapRW, "MAP_SHARED", "MAP_PRIVATE", 1)), []string{BlindSyscallFilter}},
		{"read and write, mapped shared to be read", in(open("O_RDWR") + strings.Replace(mapRW, "PROT_READ|PROT_WRITE", "PROT_READ", 1)), []string{BlindSyscallFilter}},
	})
}

// TestNoFileCallsInline: a static Go program recorded with -e
// trace=!%desc shows its runtime's signals, clones and futexes, and not
// its opens, writes, fsyncs or renameat, which all take fds: it checked
// clean. A whole run of many calls without one that takes an fd or
// names a file is a blind spot; the runtime's one open of a file of /sys
// is enough to say the trace shows files, and a short run says nothing.
func TestNoFileCallsInline(t *testing.T) {
	const (
		start = "100 execve(\"/usr/local/bin/saver\", [\"saver\", \"/w\"], 0x7fffc24d71a8 /* 3 vars */) = 0\n"
		hpage = "100 openat(AT_FDCWD, \"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size\", O_RDONLY) = 3\n"
		end   = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	)
	runtime := strings.Repeat("100 rt_sigaction(SIGURG, {sa_handler=0x466a40, sa_mask=~[], sa_flags=SA_RESTORER|SA_ONSTACK|SA_RESTART|SA_SIGINFO, sa_restorer=0x466b80}, NULL, 8) = 0\n", 20) +
		"100 nanosleep({tv_sec=0, tv_nsec=20000}, NULL) = 0\n"
	wantBlind(t, Options{}, []blindCase{
		{"a run without a call on a file", start + runtime + end, []string{BlindSyscallFilter}},
		{"the runtime's open shows", start + hpage + runtime + end, nil},
		{"a short run", start + "100 nanosleep({tv_sec=0, tv_nsec=20000}, NULL) = 0\n" + end, nil},
	})
}

// TestStatusFilterSaid: strace -e status=successful,failed leaves out the
// calls that never returned, exit_group among them. The run reads as
// filtered (no process called exit_group), and the warning and its fix
// name -e status= beside -e trace=, since the user may have used either.
func TestStatusFilterSaid(t *testing.T) {
	trace := `100 execve("/usr/bin/prog", ["prog"], 0x7ffd /* 3 vars */) = 0
100 openat(AT_FDCWD, "/etc/prog.conf", O_RDONLY) = -1 ENOENT (No such file or directory)
100 openat(AT_FDCWD, "/data/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
100 write(3, "x", 1) = 1
100 fsync(3) = 0
100 close(3) = 0
100 +++ exited with 0 +++
`
	p := filepath.Join(t.TempDir(), "status.strace")
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	res := checkFile(t, p, Options{})
	var said []string
	for _, w := range res.Warnings {
		said = append(said, w.ID)
		if w.ID != BlindSyscallFilter {
			continue
		}
		if !strings.Contains(w.Message, "-e status=") || !strings.Contains(w.Fix, "-e status=") {
			t.Errorf("the warning does not name -e status=:\n%s\nfix: %s", w.Message, w.Fix)
		}
	}
	if diff := cmp.Diff([]string{BlindSyscallFilter}, said); diff != "" {
		t.Errorf("blind spots (-want +got):\n%s", diff)
	}
}

// TestCutShortNamesFirstLine: a trace that starts inside a call (strace
// -p to a waiting thread, an excerpt) gets that call as an event only at
// its resumed line, after the calls other threads ended in between. The
// process the warning names is the first line's, and the other thread's
// exit does not end it.
func TestCutShortNamesFirstLine(t *testing.T) {
	trace := `700 futex(0x7f10, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, 702, NULL, FUTEX_BITSET_MATCH_ANY <unfinished ...>
702 openat(AT_FDCWD, "/etc/hosts", O_RDONLY) = 3
702 close(3) = 0
702 exit(0) = ?
702 +++ exited with 0 +++
700 <... futex resumed>) = 0
700 openat(AT_FDCWD, "/etc/hosts", O_RDONLY) = 3
`
	msgs := blindMessages(t, "window.strace", trace, Options{}, BlindCutShort)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "pid 700,") {
		t.Errorf("blind-cut-short messages %q, want one naming pid 700", msgs)
	}
	// The first line's process ends: the trace is whole.
	whole := trace + "700 exit_group(0) = ?\n700 +++ exited with 0 +++\n"
	if blind := blindOfText(t, "whole.strace", whole, Options{}); slices.Contains(blind, BlindCutShort) {
		t.Errorf("the first line's process exited: blind spots %v, want no %s", blind, BlindCutShort)
	}
}

// TestCutShortAfterCommand: the traced command ended, and a process
// still ran when the trace ends: a daemon it left, or a later run in a
// log of several (a pid reused, another pid, lines without one). strace
// -f waits for every process it follows, so the recording was cut. The
// threads of a process end with its exit_group, -qq or not, whether the
// trace shows their clone or they were there before it.
func TestCutShortAfterCommand(t *testing.T) {
	const (
		run1  = "100 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
		read  = "openat(AT_FDCWD, \"/data/out\", O_RDONLY) = 3\nPID read(3, \"abc\", 3) = 3\n"
		fork  = "100 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 200\n"
		clone = "100 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x7f00, stack_size=0x7fff00}, 88) = 101\n"
	)
	at := func(pid, lines string) string { return pid + " " + strings.ReplaceAll(lines, "PID", pid) }
	wantBlind(t, Options{}, []blindCase{
		{"a later run of the same pid", run1 + "100 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n" + at("100", read), []string{BlindCutShort}},
		{"a later run of another pid", run1 + "200 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n" + at("200", read), []string{BlindCutShort}},
		{"a later run without pids", "execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\nexecve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n" + strings.ReplaceAll(read, "PID ", ""), []string{BlindCutShort}},
		{"a child outlives the command", fork + "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n" + at("200", read), []string{BlindCutShort}},
		{"the child ends too", fork + "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n" + at("200", read) + "200 exit_group(0) = ?\n200 +++ exited with 0 +++\n", nil},
		{"a thread, -qq", clone + at("101", read) + "100 exit_group(0) = ?\n", nil},
		{"a thread's exit_group, -qq", clone + at("101", read) + "101 exit_group(0) = ?\n", nil},
		{"a thread's exit, then its process's exit_group, -qq", clone + at("101", read) + "101 exit(0) = ?\n100 exit_group(0) = ?\n", nil},
		{"a thread made before the trace, -qq", "100 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n" + at("101", read) + "100 exit_group(0) = ?\n", nil},
		{"a child's thread, the child cut", fork + "200 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x7f00, stack_size=0x7fff00}, 88) = 201\n" + at("201", read) + "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n", []string{BlindCutShort}},
	})
}

// TestCutShortLaterSession: strace -A -o FILE -p N run again appends a
// second session, without a pid column, after the first process exited:
// the process it attached is cut short as that session's, not as one
// strace -f should have waited for; a later run (its execve first) is
// said as a run. The process of the last session ending makes it whole.
func TestCutShortLaterSession(t *testing.T) {
	const (
		first  = "strace: Process 40 attached\nread(0, \"a\", 1) = 1\nexit_group(0) = ?\n+++ exited with 0 +++\n"
		second = "strace: Process 41 attached\nread(0, \"b\", 1) = 1\n"
	)
	msgs := blindMessages(t, "t.strace", first+second, Options{}, BlindCutShort)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "before pid 41 exited") || !strings.Contains(msgs[0], "a later strace -p session") || strings.Contains(msgs[0], "strace -f waits") {
		t.Errorf("blind-cut-short messages %q, want one naming pid 41 and a later strace -p session", msgs)
	}
	run := "1 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n1 exit_group(0) = ?\n1 +++ exited with 0 +++\n2 execve(\"/bin/prog\", [\"prog\"], 0x7ffd0000 /* 1 var */) = 0\n2 read(0, \"b\", 1) = 1\n"
	msgs = blindMessages(t, "t.strace", run, Options{}, BlindCutShort)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "before pid 2 exited") || !strings.Contains(msgs[0], "a later run") {
		t.Errorf("blind-cut-short messages %q, want one naming pid 2 and a later run", msgs)
	}
	whole := first + second + "exit_group(0) = ?\n+++ exited with 0 +++\n"
	if blind := blindOfText(t, "whole.strace", whole, Options{}); slices.Contains(blind, BlindCutShort) {
		t.Errorf("the last session's process exited: blind spots %v, want no %s", blind, BlindCutShort)
	}
}

// TestUnseenChange: a stat that shows a file the trace changed at a size
// its calls do not give it says a change the trace does not show. Here
// chpasswd's lock protocol (write the pid into a temp file, link it,
// stat it) under -e trace=!write, where a copy elsewhere in the run kept
// the trace's other write-shaped calls, so no filter was seen. A write
// still running when the stat ran (it began on an earlier line) explains
// the size, and a cause already said (writes to an fd the trace cannot
// name) is the one problem.
func TestUnseenChange(t *testing.T) {
	const (
		start = "1 execve(\"/usr/sbin/chpasswd\", [\"chpasswd\"], 0x7ffd /* 3 vars */) = 0\n" +
			"1 openat(AT_FDCWD, \"/w/src\", O_RDONLY) = 3\n1 openat(AT_FDCWD, \"/w/copy\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4\n" +
			"1 copy_file_range(3, NULL, 4, NULL, 9, 0) = 9\n1 fsync(4) = 0\n1 close(4) = 0\n1 close(3) = 0\n" +
			"1 openat(AT_FDCWD, \"/w/passwd.1\", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 5\n"
		lock = "1 fdatasync(5) = 0\n1 close(5) = 0\n1 link(\"/w/passwd.1\", \"/w/passwd.lock\") = 0\n" +
			"1 newfstatat(AT_FDCWD, \"/w/passwd.1\", {st_mode=S_IFREG|0600, st_size=2, ...}, 0) = 0\n" +
			"1 unlink(\"/w/passwd.1\") = 0\n1 unlink(\"/w/passwd.lock\") = 0\n"
		end = "1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	opt := Options{Existed: func(string) (bool, bool) { return false, true }}
	if diff := cmp.Diff([]string{BlindUnseenChange}, blindOfText(t, "nowrite.strace", start+lock+end, opt)); diff != "" {
		t.Errorf("the pid's write filtered out: blind spots (-want +got):\n%s", diff)
	}
	written := start + "1 write(5, \"1\\n\", 2) = 2\n" + lock + end
	if blind := blindOfText(t, "written.strace", written, opt); len(blind) != 0 {
		t.Errorf("the pid's write shown: blind spots %v, want none", blind)
	}
	running := start + "2 pwrite64(5</w/passwd.1>, \"1\\n\", 2, 0 <unfinished ...>\n" +
		"1 newfstatat(AT_FDCWD, \"/w/passwd.1\", {st_mode=S_IFREG|0600, st_size=2, ...}, 0) = 0\n" +
		"2 <... pwrite64 resumed>) = 2\n2 exit(0) = ?\n2 +++ exited with 0 +++\n" + lock + end
	running = strings.Replace(running, "1 execve(\"/usr/sbin/chpasswd\", [\"chpasswd\"], 0x7ffd /* 3 vars */) = 0\n",
		"1 execve(\"/usr/sbin/chpasswd\", [\"chpasswd\"], 0x7ffd /* 3 vars */) = 0\n1 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 2\n", 1)
	if blind := blindOfText(t, "running.strace", running, opt); len(blind) != 0 {
		t.Errorf("a thread's write still running at the stat: blind spots %v, want none", blind)
	}
	unnamed := strings.Replace(start, "1 execve(\"/usr/sbin/chpasswd\", [\"chpasswd\"], 0x7ffd /* 3 vars */) = 0\n", "", 1) + "1 write(9, \"x\", 1) = 1\n" + lock + end
	if diff := cmp.Diff([]string{BlindUnknownFD}, blindOfText(t, "unnamed.strace", unnamed, opt)); diff != "" {
		t.Errorf("writes to an fd the trace cannot name: blind spots (-want +got):\n%s", diff)
	}
}

// TestUnseenChangeReadSeek: a read that returns bytes past the size the
// trace's calls give a file, or an lseek to its end that lands elsewhere,
// shows a change no line shows as a stat does (a program that appends to
// its log, then reads it back, with its writes filtered out). Reads up to
// the size, a short read, reads at an offset the trace does not give and
// a seek from the start show nothing.
func TestUnseenChangeReadSeek(t *testing.T) {
	const (
		open = "1 execve(\"/usr/bin/app\", [\"app\"], 0x7ffd /* 3 vars */) = 0\n" +
			"1 openat(AT_FDCWD, \"/w/log\", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3\n1 write(3, \"abc\", 3) = 3\n"
		end = "1 fsync(3) = 0\n1 close(3) = 0\n1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	opt := Options{Existed: func(string) (bool, bool) { return false, true }}
	for _, c := range []struct {
		name, calls string
		want        []string
		message     string
	}{
		{"read past", "1 lseek(3, 0, SEEK_SET) = 0\n1 read(3, \"abcdefgh\", 4096) = 8\n", []string{BlindUnseenChange},
			"this read returns bytes of /w/log up to byte 8, but the calls in the trace leave it at 3 bytes"},
		{"pread past", "1 pread64(3, \"de\", 2, 3) = 2\n", []string{BlindUnseenChange},
			"this pread64 returns bytes of /w/log up to byte 5, but the calls in the trace leave it at 3 bytes"},
		{"seek end", "1 lseek(3, 0, SEEK_END) = 8\n", []string{BlindUnseenChange},
			"this lseek shows /w/log at 8 bytes, but the calls in the trace leave it at 3 bytes"},
		{"seek end before", "1 lseek(3, -2, SEEK_END) = 1\n", nil, ""},
		{"read all", "1 lseek(3, 0, SEEK_SET) = 0\n1 read(3, \"abc\", 4096) = 3\n1 read(3, \"\", 4096) = 0\n", nil, ""},
		{"read part", "1 pread64(3, \"b\", 1, 1) = 1\n", nil, ""},
		{"seek set far", "1 lseek(3, 100, SEEK_SET) = 100\n", nil, ""},
		{"read after shown write", "1 write(3, \"defgh\", 5) = 5\n1 lseek(3, 0, SEEK_SET) = 0\n1 read(3, \"abcdefgh\", 4096) = 8\n", nil, ""},
	} {
		trace := open + c.calls + end
		if diff := cmp.Diff(c.want, blindOfText(t, "readseek.strace", trace, opt)); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
			continue
		}
		if c.message != "" {
			msgs := blindMessages(t, "readseek.strace", trace, opt, BlindUnseenChange)
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0], c.message) {
				t.Errorf("%s: messages %q, want one starting %q", c.name, msgs, c.message)
			}
		}
	}
	// A fifo the trace made has no size: what a read takes from it came
	// from its writer.
	fifo := "1 execve(\"/usr/bin/app\", [\"app\"], 0x7ffd /* 3 vars */) = 0\n" +
		"1 mknodat(AT_FDCWD, \"/w/pipe\", S_IFIFO|0600) = 0\n1 openat(AT_FDCWD, \"/w/pipe\", O_RDWR) = 3\n" +
		"1 read(3, \"hello\", 4096) = 5\n1 close(3) = 0\n1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	if blind := blindOfText(t, "fifo.strace", fifo, opt); slices.Contains(blind, BlindUnseenChange) {
		t.Errorf("a read from a fifo the trace made: blind spots %v, want no %s", blind, BlindUnseenChange)
	}
}

// TestSettledWithoutWrites: a shell appends to a log it may be making
// (O_CREAT, no listing), then cat reads data from it. The model takes the
// data as there before the trace; with not one write in the whole trace,
// the writes that put it there may be what a -e trace= filter left out,
// and check says so rather than checking clean. With cat's write to its
// terminal in the trace, the data was there before: no blind spot.
func TestSettledWithoutWrites(t *testing.T) {
	const (
		head = "1 execve(\"/bin/sh\", [\"sh\"], 0x7ffd /* 3 vars */) = 0\n" +
			"1 openat(AT_FDCWD, \"/w/log\", O_WRONLY|O_CREAT|O_APPEND, 0666) = 3\n1 close(3) = 0\n" +
			"1 openat(AT_FDCWD, \"/w/log\", O_RDONLY) = 3\n"
		tail = "1 close(3) = 0\n1 exit_group(0) = ?\n1 +++ exited with 0 +++\n"
	)
	for _, c := range []struct {
		name, calls string
		want        []string
	}{
		{"read", "1 read(3, \"abcdef\", 4096) = 6\n", []string{BlindSyscallFilter}},
		{"stat", "1 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=6, ...}, AT_EMPTY_PATH) = 0\n", []string{BlindSyscallFilter}},
		{"read and printed", "1 read(3, \"abcdef\", 4096) = 6\n1 write(1, \"abcdef\", 6) = 6\n", nil},
		{"empty", "1 read(3, \"\", 4096) = 0\n", nil},
	} {
		trace := head + c.calls + tail
		if diff := cmp.Diff(c.want, blindOfText(t, "settled.strace", trace, Options{})); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
		}
	}
	// With a listing that says the log was not there, the model knows the
	// shell made it: the read past its end is the evidence instead.
	made := head + "1 read(3, \"abcdef\", 4096) = 6\n" + tail
	if diff := cmp.Diff([]string{BlindUnseenChange}, blindOfText(t, "made.strace", made, Options{Existed: func(string) (bool, bool) { return false, true }})); diff != "" {
		t.Errorf("a log the listing says was not there: blind spots (-want +got):\n%s", diff)
	}
}

// TestSharedMmapNamesFinalName: localedef maps a temp file shared and
// writable, fills it through the mapping, then renames it over the
// archive. The warning names the temp file it saw mapped and the name
// the file has after, the one the user knows.
func TestSharedMmapNamesFinalName(t *testing.T) {
	trace := `1 openat(AT_FDCWD, "/w/archive.Xy12", O_RDWR|O_CREAT|O_EXCL, 0644) = 3
1 ftruncate(3, 8192) = 0
1 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000
1 msync(0x7f0000000000, 8192, MS_SYNC) = 0
1 fsync(3) = 0
1 close(3) = 0
1 rename("/w/archive.Xy12", "/w/archive") = 0
1 openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 4
1 fsync(4) = 0
1 close(4) = 0
1 exit_group(0) = ?
1 +++ exited with 0 +++
`
	msgs := blindMessages(t, "localedef.strace", trace, Options{Existed: func(string) (bool, bool) { return false, true }}, BlindSharedMmap)
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "/w/archive.Xy12, named /w/archive from line 7 on, is mapped") {
		t.Errorf("blind-shared-mmap messages %q, want one naming /w/archive.Xy12 and /w/archive from line 7", msgs)
	}
}

// TestSyncsThroughUnopenedInline: a sync through an fd the trace never
// opened, named by -y, in a trace without one open, is a filter's work
// (sqlite3's commit under -e trace=write,pwrite64,fsync,fdatasync,close
// hides the unlink of its journal), with or without the closes; so is a
// sync of standard output named as a file when no execve shows either
// (dd of=F conv=fsync). An open anywhere in the trace, standard output
// synced after an execve or only written, a terminal, or a memfd (on no
// filesystem) says nothing of the kind.
func TestSyncsThroughUnopenedInline(t *testing.T) {
	const (
		write = "100 pwrite64(4</d/j>, \"abc\", 3, 0) = 3\n"
		sync  = "100 fdatasync(4</d/j>) = 0\n100 fdatasync(5</d>) = 0\n"
		close = "100 close(4</d/j>) = 0\n100 close(5</d>) = 0\n"
		open  = "100 openat(AT_FDCWD</d>, \"/d/k\", O_RDONLY) = 6</d/k>\n"
		end   = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
		// A static program: no loader, no open.
		execve       = "100 execve(\"/bin/prog\", [\"prog\"], 0x7ffd2c41e6a8 /* 1 var */) = 0\n"
		stdoutSynced = "100 write(1</d/out>, \"abc\", 3) = 3\n100 fsync(1</d/out>) = 0\n"
	)
	wantBlind(t, Options{}, []blindCase{
		{"syncs, no open", write + sync + end, []string{BlindSyscallFilter}},
		{"syncs and closes, no open", write + sync + close + end, []string{BlindSyscallFilter}},
		{"an open elsewhere", open + write + sync + end, nil},
		// dd of=/d/out conv=fsync puts its file on fd 1: under -e
		// trace=write,fsync its open and a later rename are gone. A
		// program strace started (its execve shows) may sync the file a
		// shell redirected its output into without an open of its own.
		{"stdout synced, no execve", stdoutSynced + end, []string{BlindSyscallFilter}},
		{"stdout synced after an execve", execve + stdoutSynced + end, nil},
		{"stdout written, no execve", "100 write(1</d/out>, \"abc\", 3) = 3\n" + end, nil},
		{"a terminal synced, no execve", "100 write(1</dev/pts/0>, \"abc\", 3) = 3\n100 fsync(1</dev/pts/0>) = 0\n" + end, nil},
		// -e trace=!%file: the loader's fds, and a sync() that takes
		// none; neither an open nor an execve shows.
		{"uses, no open, no execve", "100 mmap(NULL, 20115, PROT_READ, MAP_PRIVATE, 3</etc/ld.so.cache>, 0) = 0x7f2200000000\n100 close(3</etc/ld.so.cache>) = 0\n100 sync() = 0\n" + end, []string{BlindSyscallFilter}},
		{"a memfd synced", "100 write(3</memfd:ring (deleted)>, \"abc\", 3) = 3\n100 fsync(3</memfd:ring (deleted)>) = 0\n" + end, nil},
	})
}

// TestUnnamedBeforeCloneReturns: under strace -f on a busy machine a
// child's calls can be printed before its parent's clone returns, when
// the model does not yet know the table the child started with. bash's
// command substitution dup2s the pipe its parent made onto fd 1 and
// writes there; the write is to a pipe, not to an fd the trace never
// opened, however late the clone returns (the subshell may even have
// exited by then), and for the subshell's own child as well. An fd that
// was unnamed in the parent too, or in a child whose clone never shows,
// stays a blind spot.
func TestUnnamedBeforeCloneReturns(t *testing.T) {
	const (
		start = "100 execve(\"/bin/bash\", [\"bash\"], 0x7ffd2c41e6a8 /* 1 var */) = 0\n" +
			"100 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3\n" +
			"100 mmap(NULL, 20115, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f2200000000\n" +
			"100 close(3) = 0\n"
		pipe  = "100 pipe2([3, 4], 0) = 0\n"
		clone = "100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0000000a10 <unfinished ...>\n"
		sub   = "101 close(3) = 0\n101 dup2(4, 1) = 1\n101 close(4) = 0\n"
		write = "101 write(1, \"3.11.7\\n\", 7) = 7\n"
		exit  = "101 exit_group(0) = ?\n101 +++ exited with 0 +++\n"
		back  = "100 <... clone resumed>) = 101\n"
		read  = "100 close(4) = 0\n100 read(3, \"3.11.7\\n\", 128) = 7\n100 close(3) = 0\n"
		end   = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
		// The subshell runs a program: its clone returns in the
		// subshell, whose own has not.
		grandchild = "101 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0000000a10) = 102\n" +
			"102 write(1, \"3.11.7\\n\", 7) = 7\n102 exit_group(0) = ?\n102 +++ exited with 0 +++\n"
	)
	cases := []blindCase{
		{"the subshell exits before its clone returns", start + pipe + clone + sub + write + exit + back + read + end, nil},
		{"the subshell exits after", start + pipe + clone + sub + write + back + exit + read + end, nil},
		{"the subshell's child writes", start + pipe + clone + sub + grandchild + exit + back + read + end, nil},
		{"the clone returns first", start + pipe + strings.Replace(clone, "<unfinished ...>", ") = 101", 1) + sub + write + exit + read + end, nil},
		// fd 4 of the parent is no pipe of the trace's: it was open
		// before the trace began.
		{"the parent's fd was unnamed too", start + clone + sub + write + exit + back + end, []string{BlindUnknownFD}},
		{"the clone never shows", start + pipe + sub + write + exit + read + end, []string{BlindUnknownFD}},
	}
	// With one clone under way the model gives the subshell its parent's
	// table at its first call (parser.Event.Spawner); with a thread's
	// clone under way too, which clone made it is open until one
	// returns, and the subshell's fds are stand-ins until then.
	wantBlind(t, Options{}, cases)
	var busier []blindCase
	for _, c := range cases {
		if !strings.Contains(c.trace, clone) {
			continue // the thread's clone would be the one under way
		}
		c.name += ", a thread's clone under way too"
		c.trace = strings.Replace(c.trace, start, start+busyThread+busyClone, 1)
		c.trace = strings.Replace(c.trace, end, busyBack+busyEnd+end, 1)
		busier = append(busier, c)
	}
	wantBlind(t, Options{}, busier)
}

// TestUnnamedBeforeCloneReturnsWords: a change a child made through its
// parent's file before its clone returned, which the model could not
// apply, is said as that, with the file; an fd the parent never opened
// either is said as one the program started with; one a process no clone
// made used is said as a list that left out clone.
func TestUnnamedBeforeCloneReturnsWords(t *testing.T) {
	const start, clone, back, end = earlyApp, earlyClone, earlyBack, earlyEnd
	for _, c := range []struct {
		name, trace, want string
	}{
		// With a thread's clone under way too: with one alone, the
		// child gets its parent's table at its first call.
		{"the parent's file", start +
			"100 openat(AT_FDCWD, \"/data/out.log\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 13\n" + busyThread + busyClone + clone +
			"101 write(13, \"early\\n\", 6) = 6\n" + back + busyBack + "100 close(13) = 0\n" + busyEnd + end,
			"write on fd 13 by process 101, printed before the clone that made that process had returned in its parent (on a busy machine strace can show a new child's first calls first): the fd was not known then; it is its parent's /data/out.log, and the check did not apply that change to it"},
		{"an fd the parent never opened", start +
			"100 openat(AT_FDCWD, \"/etc/app.conf\", O_RDONLY) = 3\n100 close(3) = 0\n" + clone +
			"101 write(13, \"early\\n\", 6) = 6\n" + back + end,
			"write on fd 13, which the trace never opened and does not name: the fd was open when the program started (inherited"},
		// No clone at all for the writer: a list without clone hid
		// that it shares (or copied) the parent's fd 3.
		{"a process no clone made", start +
			"100 openat(AT_FDCWD, \"/data/out.log\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3\n" +
			"101 write(3, \"early\\n\", 6) = 6\n101 fsync(3) = 0\n100 close(3) = 0\n" + end,
			"write on fd 3 by process 101, which the trace never opened and does not name: no fork or clone in the trace made process 101"},
	} {
		p := filepath.Join(t.TempDir(), "t.strace")
		if err := os.WriteFile(p, []byte(c.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		res := checkFile(t, p, Options{Roots: []string{"/data"}})
		if len(res.Warnings) != 1 || res.Warnings[0].ID != BlindUnknownFD {
			t.Errorf("%s: warnings %+v, want one %s", c.name, res.Warnings, BlindUnknownFD)
			continue
		}
		if m := res.Warnings[0].Message; !strings.HasPrefix(m, c.want) {
			t.Errorf("%s: message\n%s\nwant it to start\n%s", c.name, m, c.want)
		}
	}
}

// TestMprotectMakesSharedWritable: a file mapped shared and read-only,
// then made writable by mprotect (or pkey_mprotect), can be changed by
// stores no line shows, as one mapped writable at once; a private
// mapping, a mapping of another file and a failed mprotect cannot.
func TestMprotectMakesSharedWritable(t *testing.T) {
	const head = `execve("/usr/bin/app", ["app"], 0x7ffd /* 20 vars */) = 0
openat(AT_FDCWD, "/data/db", O_RDWR) = 3
fstat(3, {st_mode=S_IFREG|0644, st_size=8192, ...}) = 0
`
	const tail = `munmap(0x7f0000000000, 8192) = 0
write(1, "ok\n", 3) = 3
close(3) = 0
exit_group(0) = ?
+++ exited with 0 +++
`
	wantBlind(t, Options{}, []blindCase{
		{"mprotect inside the mapping", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mprotect(0x7f0000001000, 4096, PROT_READ|PROT_WRITE) = 0
` + tail, []string{BlindSharedMmap}},
		{"pkey_mprotect", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
pkey_mprotect(0x7f0000000000, 8192, PROT_READ|PROT_WRITE, 1) = 0
` + tail, []string{BlindSharedMmap}},
		{"a private mapping", head + `mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f0000000000
mprotect(0x7f0000000000, 8192, PROT_READ|PROT_WRITE) = 0
` + tail, nil},
		{"mprotect of other memory", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mprotect(0x7f0000002000, 4096, PROT_READ|PROT_WRITE) = 0
` + tail, nil},
		{"mprotect refused", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mprotect(0x7f0000000000, 8192, PROT_READ|PROT_WRITE) = -1 EACCES (Permission denied)
` + tail, nil},
		{"mprotect to read only", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mprotect(0x7f0000000000, 8192, PROT_READ) = 0
` + tail, nil},
		// The address is another mapping's by then (a public Android
		// log: a font mapped shared, then a library mapped over it with
		// MAP_FIXED and made writable).
		{"unmapped, mapped again, then mprotect", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
munmap(0x7f0000000000, 8192) = 0
mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
mprotect(0x7f0000000000, 8192, PROT_READ|PROT_WRITE) = 0
` + tail, nil},
		{"mapped over, then mprotect", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mmap(0x7f0000001000, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000
mprotect(0x7f0000001000, 4096, PROT_READ|PROT_WRITE) = 0
` + tail, nil},
		{"second page mapped over, first made writable", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mmap(0x7f0000001000, 4096, PROT_READ, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000
mprotect(0x7f0000000000, 4096, PROT_READ|PROT_WRITE) = 0
` + tail, []string{BlindSharedMmap}},
		{"first page mapped over, second made writable", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mmap(0x7f0000000000, 4096, PROT_READ, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
mprotect(0x7f0000001000, 4096, PROT_READ|PROT_WRITE) = 0
` + tail, []string{BlindSharedMmap}},
		{"first page mapped over, first made writable", head + `mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
mmap(0x7f0000000000, 4096, PROT_READ, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
mprotect(0x7f0000000000, 4096, PROT_READ|PROT_WRITE) = 0
` + tail, nil},
	})
}

// TestClassFilterHidesSync: -e trace=%file,%desc,%process keeps every
// call that names a file or takes an fd, the loader's access of
// ld.so.preload among them, and leaves out the calls of no class: glibc's
// set_tid_address and the like, and sync. A program that synced with
// sync() then read as one that never synced, with no word of the filter.
func TestClassFilterHidesSync(t *testing.T) {
	const head = `100 execve("/usr/bin/sh", ["sh", "-c", "printf abc > /d/s; sync"], 0x7ffd /* 20 vars */) = 0
100 access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory)
100 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
100 newfstatat(3, "", {st_mode=S_IFREG|0644, st_size=20000, ...}, AT_EMPTY_PATH) = 0
100 mmap(NULL, 20000, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f0000000000
100 close(3) = 0
100 openat(AT_FDCWD, "/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY|O_CLOEXEC) = 3
100 read(3, "\177ELF\2\1\1\3\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0P\237\2\0\0\0\0\0", 832) = 832
100 close(3) = 0
`
	const body = `100 openat(AT_FDCWD, "/d/s", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3
100 write(3, "abc", 3) = 3
100 close(3) = 0
100 exit_group(0) = ?
100 +++ exited with 0 +++
`
	wantBlind(t, Options{}, []blindCase{
		{"a class filter", head + body, []string{BlindSyscallFilter}},
		{"no filter", head + "100 set_tid_address(0x7f0000001000) = 100\n" + body, nil},
	})
}

// TestRootUnmatchedThroughLink: the program opened a file by a path below
// --root that -y shows reached a file elsewhere (a symlink the check's
// machine does not have). The model and the findings follow the -y name,
// which is out of scope: that is blind-root-unmatched, not a clean run
// that counted the open as in scope.
func TestRootUnmatchedThroughLink(t *testing.T) {
	const trace = `100 openat(AT_FDCWD, "/srv/link/b", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</srv/real/b>
100 write(3</srv/real/b>, "hi\n", 3) = 3
100 close(3</srv/real/b>) = 0
100 exit_group(0) = ?
100 +++ exited with 0 +++
`
	wantBlind(t, Options{Roots: []string{"/srv/link"}}, []blindCase{{"-y names the file elsewhere", trace, []string{BlindRootUnmatched}}})
	wantBlind(t, Options{Roots: []string{"/srv/real"}}, []blindCase{{"the root the file reached", trace, nil}})
}

// TestBlindWindowsAndKills: a window of a running program and a killed
// program are told apart from a syscall filter. A window with syncs and
// nothing else is blind even when its cut is accepted; writes to fds an
// attach never saw open get the attach's fix beside the filter's; and a
// static program killed before it closed its file is no filter's work.
func TestBlindWindowsAndKills(t *testing.T) {
	const (
		attached = "strace: Process 700 attached\n"
		syncs    = "fdatasync(9) = 0\nfdatasync(9) = 0\nfsync(9) = 0\n"
		writes   = "lseek(9, 4096, SEEK_SET) = 4096\nwrite(9, \"abcd\", 4) = 4\nwrite(9, \"efgh\", 4) = 4\n"
		killed   = "execve(\"./logd\", [\"./logd\"], 0x7ffc00000000 /* 4 vars */) = 0\n" +
			"open(\"/w/log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3\nwrite(3, \"one\\n\", 4) = 4\n" +
			"nanosleep({tv_sec=2, tv_nsec=0}, NULL) = 0\n+++ killed by SIGKILL +++\n"
	)
	if diff := cmp.Diff([]string{BlindCutShort, BlindSyscallFilter}, blindOfText(t, "syncs.strace", attached+syncs, Options{})); diff != "" {
		t.Errorf("a window of syncs alone: blind spots (-want +got):\n%s", diff)
	}
	res := checkFile(t, writeTrace(t, attached+writes), Options{})
	var fix string
	for _, w := range res.Warnings {
		if w.ID == BlindSyscallFilter {
			fix = w.Fix
		}
	}
	if !strings.Contains(fix, "attached with -p") || !strings.Contains(fix, "-y") {
		t.Errorf("writes to fds a window never saw open: the filter's fix %q does not tell how to record past an attach", fix)
	}
	blind, notes, findings := blindRun(t, writeTrace(t, killed), Options{Roots: []string{"/w"}})
	if len(blind) != 0 {
		t.Errorf("a static program killed before its close: blind spots %v, want none", blind)
	}
	if diff := cmp.Diff([]string{"data-not-synced /w/log", "name-not-synced /w/log"}, findings); diff != "" {
		t.Errorf("a static program killed before its close: findings (-want +got):\n%s", diff)
	}
	if len(notes) == 0 {
		t.Errorf("a program killed by SIGKILL: no note says so")
	}
}

// TestBlindReadFilterWithLoaderPread: under -e trace=!read the loader's
// pread64 of libc still shows, so "no read at all" is no test of a read
// filter: a source opened for reading, never read, and removed after its
// copy is written is one, when no read or readv shows anywhere. A source
// read at an offset, or a trace that shows read calls, is not.
func TestBlindReadFilterWithLoaderPread(t *testing.T) {
	const (
		start = "9 execve(\"/usr/bin/cpmv\", [\"cpmv\"], 0x7ffd00000000 /* 2 vars */) = 0\n" +
			"9 openat(AT_FDCWD, \"/lib/x86_64-linux-gnu/libc.so.6\", O_RDONLY|O_CLOEXEC) = 3\n" +
			"9 pread64(3, \"\\177ELF\", 832, 64) = 832\n" +
			"9 mmap(NULL, 20115, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f2200000000\n9 close(3) = 0\n"
		source  = "9 openat(AT_FDCWD, \"/w/a/old\", O_RDONLY) = 3\n"
		copyOut = "9 openat(AT_FDCWD, \"/w/b/new\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 4\n" +
			"9 write(4, \"payload\", 7) = 7\n9 fsync(4) = 0\n9 close(4) = 0\n9 close(3) = 0\n" +
			"9 unlink(\"/w/a/old\") = 0\n9 exit_group(0) = ?\n9 +++ exited with 0 +++\n"
	)
	opt := Options{Roots: []string{"/w"}, Existed: func(p string) (bool, bool) { return p != "/w/b/new", true }}
	for _, c := range []struct {
		name, trace string
		want        []string
	}{
		{"the source never read, no read call anywhere", start + source + copyOut, []string{BlindSyscallFilter}},
		{"the source read at an offset", start + source + "9 pread64(3, \"payload\", 4096, 0) = 7\n" + copyOut, nil},
		{"a read call elsewhere", start + "9 read(0, \"y\\n\", 2) = 2\n" + source + copyOut, nil},
	} {
		blind, _, _ := blindRun(t, writeTrace(t, c.trace), opt)
		if diff := cmp.Diff(c.want, blind); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
		}
	}
}
