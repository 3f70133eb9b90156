package parser

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExitStatusMark: strace 4.x printed "<unfinished ... exit status N>"
// where it would print "<unfinished ...>" when the process exited inside
// the call (and printed no "+++ exited" line). The line reads as the call
// cut short and never resumed, then the process's exit with status N, at
// the same line: in the middle of a trace, as its last line (with and
// without a newline), with or without a space before "exit", in a trace
// without pids. The shapes are from public strace 4.x logs.
func TestExitStatusMark(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []summary
	}{
		{"in the middle, another thread goes on",
			"1234 clone(child_stack=0x7f0, flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND) = 1235\n" +
				"1235 futex(0x7f0000, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ... exit status 0>\n" +
				"1234 close(3) = 0\n",
			[]summary{
				{Line: 1, End: 1, PID: 1234, Name: "clone", Args: "child_stack=0x7f0, flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND", Ret: "1235"},
				{Line: 2, End: 2, PID: 1235, Name: "futex", Args: "0x7f0000, FUTEX_WAIT_PRIVATE, 0, NULL", Ret: "?"},
				{Line: 2, End: 2, PID: 1235, Name: "+++exit", Ret: "0"},
				{Line: 3, End: 3, PID: 1234, Name: "close", Args: "3", Ret: "0"},
			}},
		{"the last line, no space, a status",
			"77 close(3) = 0\n77 io_submit(0x7f, 1, [{data=0, pwrite, fildes=3, buf=\"x\", nbytes=1, offset=0}] <unfinished ...exit status 1>\n",
			[]summary{
				{Line: 1, End: 1, PID: 77, Name: "close", Args: "3", Ret: "0"},
				{Line: 2, End: 2, PID: 77, Name: "io_submit", Args: `0x7f, 1, [{data=0, pwrite, fildes=3, buf="x", nbytes=1, offset=0}]`, Ret: "?"},
				{Line: 2, End: 2, PID: 77, Name: "+++exit", Ret: "1"},
			}},
		{"the last line without its newline, no pids",
			"close(3) = 0\nexit_group(3 <unfinished ... exit status 3>",
			[]summary{
				{Line: 1, End: 1, Name: "close", Args: "3", Ret: "0"},
				{Line: 2, End: 2, Name: "exit_group", Args: "3", Ret: "?"},
				{Line: 2, End: 2, Name: "+++exit", Ret: "3"},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, warns, _ := parseText(t, tc.text)
			if diff := cmp.Diff(tc.want, summarize(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %q", warns)
			}
		})
	}
}

// TestExitStatusMarkIsNoOther: only a whole mark at the end of the line
// is an exit: the same words inside a string are the string's.
func TestExitStatusMarkIsNoOther(t *testing.T) {
	evs, _, _ := parseText(t, "5 openat(AT_FDCWD, \"<unfinished ... exit status 0>\", O_RDONLY <unfinished ...>\n5 <... openat resumed>) = 3\n")
	want := []summary{{Line: 1, End: 2, PID: 5, Name: "openat", Args: `AT_FDCWD, "<unfinished ... exit status 0>", O_RDONLY`, Ret: "3"}}
	if diff := cmp.Diff(want, summarize(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
