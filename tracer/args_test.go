package tracer

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	const tail = "\nCopyright (c) 1991-2022 The strace developers <https://strace.io>.\n" +
		"This is free software; see the source for copying conditions.  There is NO\n" +
		"warranty; not even for MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.\n\n" +
		"Optional features enabled: stack-trace=libunwind stack-demangle m32-mpers mx32-mpers\n"
	for _, tc := range []struct {
		out  string
		want Version
		err  string
	}{
		{out: "strace -- version 4.26" + tail, want: Version{4, 26}},
		{out: "strace -- version 5.10" + tail, want: Version{5, 10}},
		{out: "strace -- version 6.1" + tail, want: Version{6, 1}},
		{out: "strace -- version 4.5.20\n", want: Version{4, 5}},
		{out: "strace -- version 5.10.0.12-abcdef\n", want: Version{5, 10}},
		{out: "strace: invalid option -- 'V'\n", err: `parse strace -V output "strace: invalid option -- 'V'": no "strace -- version N.N" line`},
		{out: "", err: `parse strace -V output "": no "strace -- version N.N" line`},
	} {
		got, err := ParseVersion(tc.out)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseVersion(%q) error = %v, want %q", firstLine(tc.out), err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseVersion(%q) = %v, %v, want %v", firstLine(tc.out), got, err, tc.want)
		}
	}
}

func TestVersionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v, w Version
		want bool
	}{
		{Version{6, 1}, Version{5, 3}, true},
		{Version{5, 3}, Version{5, 3}, true},
		{Version{5, 2}, Version{5, 3}, false},
		{Version{4, 26}, Version{5, 3}, false},
		{Version{5, 10}, Version{5, 3}, true},
		{Version{}, Version{6, 6}, true}, // unknown: assume new
	} {
		if got := tc.v.AtLeast(tc.w); got != tc.want {
			t.Errorf("%v.AtLeast(%v) = %v", tc.v, tc.w, got)
		}
	}
}

// The flags follow the strace version: new strace gets everything, old
// strace loses what it would reject, and each loss is said.
func TestPlanByVersion(t *testing.T) {
	cmd := []string{"prog", "arg"}
	for _, tc := range []struct {
		v         Version
		has, lack []string
		notes     []string // substrings, one per note, in order
	}{
		{
			v:    Version{6, 6},
			has:  []string{"--seccomp-bpf", "--kill-on-exit", "abbrev=execve,?execveat", "?openat2"},
			lack: nil,
		},
		{
			v:     Version{6, 1},
			has:   []string{"-f", "--seccomp-bpf", "-ttt", "-y", "-xx", "-s", "?openat2", "raw=read,readv,?preadv2"},
			lack:  []string{"--kill-on-exit"},
			notes: []string{"dropping --kill-on-exit: strace 6.1 lacks it (since 6.6)"},
		},
		{
			v:    Version{4, 26},
			lack: []string{"--seccomp-bpf", "--kill-on-exit"},
			notes: []string{
				"dropping --seccomp-bpf: strace 4.26 lacks it (since 5.3)",
				"dropping --kill-on-exit",
			},
		},
		{
			v:    Version{4, 16},
			has:  []string{"abbrev=execve", "raw=read,readv"},
			lack: []string{"--seccomp-bpf", "abbrev=execve,?execveat"},
			notes: []string{
				"dropping --seccomp-bpf",
				"dropping --kill-on-exit",
				"using -e abbrev=execve instead of -e abbrev=execve,?execveat: strace 4.16 lacks it (since 4.17)",
				`not tracing open,openat2,creat,`,
			},
		},
	} {
		args, notes := plan(tc.v, "out.strace", cmd, nil, false, false)
		for _, a := range tc.has {
			if !slices.ContainsFunc(args, func(s string) bool { return s == a || strings.Contains(s, ","+a+",") }) {
				t.Errorf("%v: args lack %q: %q", tc.v, a, args)
			}
		}
		for _, a := range tc.lack {
			if slices.Contains(args, a) {
				t.Errorf("%v: args have %q: %q", tc.v, a, args)
			}
		}
		if len(notes) != len(tc.notes) {
			t.Errorf("%v: notes = %q, want %d", tc.v, notes, len(tc.notes))
			continue
		}
		for i, n := range tc.notes {
			if !strings.Contains(notes[i], n) {
				t.Errorf("%v: note %d = %q, want it to contain %q", tc.v, i, notes[i], n)
			}
		}
		if tail := args[len(args)-5:]; !slices.Equal(tail, []string{"-o", "out.strace", "--", "prog", "arg"}) {
			t.Errorf("%v: args end %q", tc.v, tail)
		}
		if tc.v.AtLeast(questionMark) {
			continue
		}
		for _, a := range args {
			if strings.Contains(a, "?") {
				t.Errorf("%v: %q has a ? that strace %v rejects", tc.v, a, tc.v)
			}
		}
	}
}

func TestPlanSyscallsOverride(t *testing.T) {
	args, _ := plan(Version{6, 1}, "o", []string{"p"}, []string{"openat", "write"}, false, false)
	if !slices.Contains(args, "trace=openat,write") || slices.ContainsFunc(args, func(s string) bool { return strings.HasPrefix(s, "raw=") }) {
		t.Errorf("args = %q", args)
	}
}

func TestDefaultSyscallsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range defaultSyscalls {
		if seen[s.Name] || s.Why == "" {
			t.Errorf("%q: duplicate or without a reason", s.Name)
		}
		seen[s.Name] = true
	}
}

// TestTraceStatus: the command's status is the "+++" line of the trace's
// first pid (parser.ExitOf reads it; its own tests cover the line forms).
func TestTraceStatus(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        exitStatus
	}{
		{"exited", "100 1.0 execve(\"x\", [], 0x1 /* 1 var */) = 0\n100 1.1 +++ exited with 7 +++\n",
			exitStatus{found: true, code: 7}},
		{"child outlives the command", "100 1.0 execve() = 0\n101 1.05 close(1) = 0\n100 1.1 +++ exited with 0 +++\n101 1.2 +++ exited with 9 +++\n",
			exitStatus{found: true, code: 0}},
		{"killed with core", "100 1.0 execve() = 0\n100 1.1 +++ killed by SIGSEGV (core dumped) +++\n",
			exitStatus{found: true, code: -1, signal: "SIGSEGV", coreDumped: true}},
		{"pid prefix not confused", "10 1.0 execve() = 0\n100 1.1 +++ exited with 5 +++\n",
			exitStatus{}},
		{"no pid column", "execve() = 0\n+++ exited with 5 +++\n",
			exitStatus{}},
		{"empty", "", exitStatus{}},
	} {
		p := filepath.Join(t.TempDir(), "t")
		if err := os.WriteFile(p, []byte(tc.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := traceStatus(p)
		if err != nil || got != tc.want {
			t.Errorf("%s: traceStatus = %+v, %v, want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	got := shellQuote([]string{"strace", "-e", "trace=?open,read", "--", "sh", "-c", "echo 'hi' > x", ""})
	want := `strace -e 'trace=?open,read' -- sh -c 'echo '\''hi'\'' > x' ''`
	if got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}

// TestPlanNoData: a recording for checks prints no bytes, no timestamps and
// no fd paths; a recording for explore prints them all.
func TestPlanNoData(t *testing.T) {
	lean, _ := plan(Version{6, 1}, "o", []string{"p"}, nil, true, false)
	full, _ := plan(Version{6, 1}, "o", []string{"p"}, nil, false, false)
	has := func(args []string, want ...string) bool {
		for i := range args {
			if i+len(want) <= len(args) && strings.Join(args[i:i+len(want)], " ") == strings.Join(want, " ") {
				return true
			}
		}
		return false
	}
	for _, w := range [][]string{{"-ttt"}, {"-y"}, {"-xx"}, {"-s", strconv.Itoa(StringLimit)}} {
		if has(lean, w...) {
			t.Errorf("no-data plan has %q: %q", w, lean)
		}
		if !has(full, w...) {
			t.Errorf("full plan lacks %q: %q", w, full)
		}
	}
	// Without data, written buffers are not even read from the tracee.
	if !has(lean, "-e", "raw=read,readv,?preadv2,write,writev,pwrite64,pwritev") || !has(full, "-e", "raw=read,readv,?preadv2") {
		t.Errorf("raw lists: lean %q, full %q", lean, full)
	}
	if !has(lean, "-s", "0") || has(full, "-s", "0") || has(lean, "--seccomp-bpf") || !has(full, "--seccomp-bpf") || !has(lean, "-f") {
		t.Errorf("plans: lean %q, full %q", lean, full)
	}
	// recvmsg brings fds from another process (SCM_RIGHTS), which a write
	// printed raw does not name: only a recording without data needs it.
	if calls := traceList(lean); !slices.Contains(calls, "recvmsg") {
		t.Errorf("no-data plan does not trace recvmsg: %q", calls)
	}
	if calls := traceList(full); slices.Contains(calls, "recvmsg") {
		t.Errorf("full plan traces recvmsg, whose every byte received it would copy: %q", calls)
	}
	// Asked for, -y names every fd, and nothing else of the recording
	// with data comes with it.
	named, _ := plan(Version{6, 1}, "o", []string{"p"}, nil, true, true)
	if !has(named, "-y") || has(named, "-ttt") || has(named, "-xx") || !has(named, "-s", "0") {
		t.Errorf("no-data plan with fd paths: %q", named)
	}
	if old, _ := plan(Version{4, 6}, "o", []string{"p"}, nil, true, true); has(old, "-y") {
		t.Errorf("no-data plan with fd paths for strace 4.6, which lacks -y: %q", old)
	}
}

// traceList is the -e trace= list of a plan.
func traceList(args []string) []string {
	for i := range args {
		if i > 0 && args[i-1] == "-e" && strings.HasPrefix(args[i], "trace=") {
			return strings.Split(strings.TrimPrefix(args[i], "trace="), ",")
		}
	}
	return nil
}

func TestWithStack(t *testing.T) {
	args := withStack(Args(Version{6, 1}, "o", []string{"p"}))
	if args[0] != "-k" {
		t.Errorf("withStack: args start %q, want -k first", args[0])
	}
	if n := len(args); args[n-2] != "--" || args[n-1] != "p" {
		t.Errorf("withStack: args end %q, want the command after --", args[n-2:])
	}
}
