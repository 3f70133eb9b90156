package parser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestThreadExec records a Go program whose execve runs on a thread
// other than the leader (testdata/threadexec) and reads the trace: the
// call strace starts under the thread's pid and resumes under the
// leader's is one event, under the leader's pid, that succeeded. It does
// so with the "+++ superseded by execve in pid N +++" line between the
// halves, and without it (strace -f -qqq, strace -f -e
// quiet=thread-execve).
func TestThreadExec(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("needs strace: apt-get install -y strace")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to build the program")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "threadexec")
	build := exec.Command(goBin, "build", "-o", bin, "testdata/threadexec/main.go")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, flags := range [][]string{{"-f"}, {"-f", "-qqq"}, {"-f", "-e", "quiet=thread-execve"}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			threadExec(t, strace, bin, flags)
		})
	}
}

// threadExec records bin under strace with flags and checks its trace
// (see TestThreadExec).
func threadExec(t *testing.T, strace, bin string, flags []string) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.strace")
	args := append(append([]string{}, flags...), "-o", trace, bin, filepath.Join(dir, "out.txt"))
	run := exec.Command(strace, args...)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("strace: %v\n%s", err, out)
	}
	text, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !execOnThread(string(text)) {
		t.Skipf("the execve ran on the main thread this time:\n%s", tail(string(text)))
	}
	evs, warnings, _ := parseText(t, string(text))
	var execs []*Event
	leader, killed := 0, 0
	for _, ev := range evs {
		if leader == 0 {
			leader = ev.PID
		}
		if ev.Kind == KindSuperseded && (ev.FormerPID() == 0 || ev.FormerPID() == ev.PID) {
			t.Errorf("line %d: superseded names the thread %d", ev.Pos.Line, ev.FormerPID())
		}
		if ev.Kind == KindSyscall && ev.Name == "execve" {
			if !ev.RetKnown && ev.PID != leader {
				// On a loaded machine a second thread can be inside
				// execve (same arguments) when the first one's
				// succeeds: the kernel kills it, and strace shows its
				// call cut short and its thread exiting. A call that
				// never returned, under its own pid.
				killed++
				continue
			}
			execs = append(execs, ev)
		}
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %s", strings.Join(warnings, "; "))
	}
	if len(execs) != 2 {
		var at []string
		for _, ev := range execs {
			at = append(at, fmt.Sprintf("line %d-%d pid %d", ev.Pos.Line, ev.EndLine, ev.PID))
		}
		t.Fatalf("%d execve events that returned (%s; %d more never returned), want 2 (the program's start and its exec); the trace's execve, exit and superseded lines:\n%s",
			len(execs), strings.Join(at, ", "), killed, linesWith(string(text), "execve", "+++", "exit"))
	}
	x := execs[1]
	if x.PID != leader || !x.OK() || x.EndLine == x.Pos.Line || len(x.Args) != 3 {
		t.Errorf("the thread's execve: pid %d (leader %d), ok %v, lines %d-%d, %d args; want the leader's pid, a success over two lines, 3 args", x.PID, leader, x.OK(), x.Pos.Line, x.EndLine, len(x.Args))
	}
}

// TestThreadExecShapes reads what strace prints when a thread other than
// the leader calls execve, in the shapes a busy machine can give:
//   - the leader inside a call strace had printed the start of: that call
//     never ends in the trace (execve killed the leader thread, which gets
//     no exit line), so it ends at the superseded line, and the thread's
//     execve still resumes under the leader's pid: one execve event, not a
//     call with no end and a resumed half with no start;
//   - two threads inside execve at once (TestThreadExec saw it under
//     load): the first one's succeeds and takes the leader's pid; the
//     kernel kills the other, whose call never returns;
//   - the superseded line left out (strace -f -qqq, or -e
//     quiet=thread-execve): the thread's execve still resumes under the
//     leader's pid, and reads as with the line there. strace 6.1 -f -qqq
//     of a C program whose second thread calls execl (the leader in
//     pause) printed "100 pause( <unfinished ...>", "101 execve(...
//     <unfinished ...>", "100 <... pause resumed>) = ?" and "100 <...
//     execve resumed>) = 0".
func TestThreadExecShapes(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        []string
	}{
		{"leader inside a call", `100 execve("./prog", ["./prog"], 0x7ffd0000 /* 1 var */) = 0
101 futex(0x1, FUTEX_WAKE_PRIVATE, 1) = 0
100 futex(0x1, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>
101 execve("/bin/true", ["true"], 0x0 /* 0 vars */ <unfinished ...>
100 +++ superseded by execve in pid 101 +++
100 <... execve resumed>) = 0
100 exit_group(0) = ?
100 +++ exited with 0 +++
`, []string{
			"1-1 100 execve args=3 returned=true ok=true",
			"2-2 101 futex args=3 returned=true ok=true",
			"3-5 100 futex args=4 returned=false ok=false",
			"4-6 100 execve args=3 returned=true ok=true",
			"7-7 100 exit_group args=1 returned=false ok=false",
		}},
		{"two threads inside execve", `100 execve("./prog", ["./prog"], 0x7ffd0000 /* 1 var */) = 0
102 execve("/bin/true", ["true"], 0x10 /* 0 vars */ <unfinished ...>
101 execve("/bin/true", ["true"], 0x10 /* 0 vars */ <unfinished ...>
101 +++ exited with 0 +++
100 +++ superseded by execve in pid 102 +++
100 <... execve resumed>) = 0
100 exit_group(0) = ?
100 +++ exited with 0 +++
`, []string{
			"1-1 100 execve args=3 returned=true ok=true",
			"3-4 101 execve args=3 returned=false ok=false",
			"2-6 100 execve args=3 returned=true ok=true",
			"7-7 100 exit_group args=1 returned=false ok=false",
		}},
		{"superseded line left out, as strace -qqq prints it", `100 execve("./prog", ["./prog"], 0x7ffd0000 /* 1 var */) = 0
100 pause( <unfinished ...>
101 execve("/bin/true", ["true"], 0x0 /* 0 vars */ <unfinished ...>
100 <... pause resumed>) = ?
100 <... execve resumed>) = 0
100 exit_group(0) = ?
`, []string{
			"1-1 100 execve args=3 returned=true ok=true",
			"2-4 100 pause args=0 returned=false ok=false",
			"3-5 100 execve args=3 returned=true ok=true",
			"6-6 100 exit_group args=1 returned=false ok=false",
		}},
		{"superseded line left out, the leader inside a call", `100 execve("./prog", ["./prog"], 0x7ffd0000 /* 1 var */) = 0
100 futex(0x1, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>
101 execve("/bin/true", ["true"], 0x0 /* 0 vars */ <unfinished ...>
100 <... execve resumed>) = 0
100 exit_group(0) = ?
100 +++ exited with 0 +++
`, []string{
			"1-1 100 execve args=3 returned=true ok=true",
			"2-4 100 futex args=4 returned=false ok=false",
			"3-4 100 execve args=3 returned=true ok=true",
			"5-5 100 exit_group args=1 returned=false ok=false",
		}},
	} {
		evs, warnings, _ := parseText(t, tc.trace)
		if len(warnings) > 0 {
			t.Errorf("%s: warnings: %s", tc.name, strings.Join(warnings, "; "))
		}
		var got []string
		for _, ev := range evs {
			if ev.Kind == KindSyscall {
				got = append(got, fmt.Sprintf("%d-%d %d %s args=%d returned=%v ok=%v", ev.Pos.Line, ev.EndLine, ev.PID, ev.Name, len(ev.Args), ev.RetKnown, ev.OK()))
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: syscall events (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestThreadExecQuietTwoThreads: with the superseded line left out and
// two threads inside execve at once, neither shown to have ended, which
// one the kernel let through cannot be told: the resumed half is left
// alone, with its warning, and neither start is taken for it.
func TestThreadExecQuietTwoThreads(t *testing.T) {
	evs, warnings, _ := parseText(t, `100 execve("./prog", ["./prog"], 0x7ffd0000 /* 1 var */) = 0
102 execve("/bin/true", ["true"], 0x10 /* 0 vars */ <unfinished ...>
101 execve("/bin/true", ["true"], 0x10 /* 0 vars */ <unfinished ...>
100 <... execve resumed>) = 0
100 exit_group(0) = ?
`)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "its start is not in the trace") {
		t.Errorf("warnings %q, want the one of a resumed half without its start", warnings)
	}
	for _, ev := range evs {
		if ev.Name == "execve" && ev.PID != 100 && ev.RetKnown {
			t.Errorf("line %d: pid %d's execve returned", ev.Pos.Line, ev.PID)
		}
	}
}

// execOnThread reports whether the trace's execve of /bin/true started
// on a pid other than that of the trace's first line, the leader's.
func execOnThread(text string) bool {
	first, _, _ := strings.Cut(text, " ")
	for _, l := range strings.Split(text, "\n") {
		if pid, rest, ok := strings.Cut(l, " "); ok && strings.HasPrefix(rest, `execve("/bin/true"`) {
			return pid != first
		}
	}
	return false
}

// linesWith returns the lines of s that contain any of words, each with
// its line number.
func linesWith(s string, words ...string) string {
	var out []string
	for i, l := range strings.Split(s, "\n") {
		for _, w := range words {
			if strings.Contains(l, w) {
				out = append(out, fmt.Sprintf("%d: %s", i+1, l))
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-8):], "\n")
}

// TestThreadExecFormerPID: the execve a thread started and its leader's
// pid ended names that thread (Event.FormerPID), whose pid is gone: with
// the superseded line, without it (strace -qqq), and across the files of
// an -ff set ("<pid changed to 100 ...>").
func TestThreadExecFormerPID(t *testing.T) {
	const start = "100 execve(\"./prog\", [\"./prog\"], 0x7ffd0000 /* 1 var */) = 0\n"
	for _, tc := range []struct{ name, trace string }{
		{"superseded line", start + "101 execve(\"/bin/true\", [\"true\"], 0x0 /* 0 vars */ <unfinished ...>\n100 +++ superseded by execve in pid 101 +++\n100 <... execve resumed>) = 0\n"},
		{"no superseded line", start + "101 execve(\"/bin/true\", [\"true\"], 0x0 /* 0 vars */ <unfinished ...>\n100 <... execve resumed>) = 0\n"},
	} {
		evs, _, _ := parseText(t, tc.trace)
		var got []string
		for _, ev := range evs {
			if ev.Name == "execve" {
				got = append(got, fmt.Sprintf("%d former %d", ev.PID, ev.FormerPID()))
			}
		}
		if diff := cmp.Diff([]string{"100 former 0", "100 former 101"}, got); diff != "" {
			t.Errorf("%s: execve events (-want +got):\n%s", tc.name, diff)
		}
	}
	dir := t.TempDir()
	files := map[string]string{
		"t.100": "1796550482.000001 execve(\"./prog\", [\"./prog\"], 0x7ffd0000 /* 1 var */) = 0\n1796550482.000003 +++ superseded by execve in pid 101 +++\n1796550482.000004 <... execve resumed>) = 0\n",
		"t.101": "1796550482.000002 execve(\"/bin/true\", [\"true\"], 0x0 /* 0 vars */ <pid changed to 100 ...>\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, ev := range readSet(t, filepath.Join(dir, "t"), Options{}, nil) {
		if ev.Name == "execve" {
			got = append(got, fmt.Sprintf("%d former %d", ev.PID, ev.FormerPID()))
		}
	}
	if diff := cmp.Diff([]string{"100 former 0", "100 former 101"}, got); diff != "" {
		t.Errorf("-ff: execve events (-want +got):\n%s", diff)
	}
}
