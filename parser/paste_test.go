package parser

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// readErr reads trace in full and returns the error that stopped it, as
// Error gives it, with the warnings; "" when it read to the end.
func readErr(t *testing.T, trace string) (string, []string) {
	t.Helper()
	_, warns, err := readEvents(strings.NewReader(trace), nil)
	if err == nil {
		return "", warns
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a *parser.Error", err)
	}
	return pe.Error(), warns
}

const (
	fenceHint  = "this line is a markdown code fence (``` or ~~~), left from a trace copied out of an issue or a chat: remove the fence lines"
	elideHint  = "this line marks lines left out: the trace is an excerpt, and crashsim cannot tell what the calls left out did to the files; check the whole recording"
	cmdHint    = "this looks like the command line that ran strace (a prompt, then the command), pasted with its output: remove it"
	cmdNoOHint = cmdHint + "; without -o, strace wrote where the program writes, and the program's own output may be mixed in: record with strace -o FILE"
	shellHint  = "this looks like a shell command line (a prompt, then a command), pasted with the trace: remove it"
	grepHint   = "as grep -r or grep -n prints the lines it found in trace files: this is grep's output, a few lines of the traces; check the trace files themselves"
	noteHint   = "this line is a note or a separator written by hand, which strace never prints: remove it, and check the recording as strace wrote it"
	notName    = "expected a syscall name, a signal (---) or an exit (+++), found "
)

// Lines copied along with a trace out of an issue, a terminal or grep's
// output: each is refused with a hint that says what it is and what to do,
// wherever it stands (at the end too, where a line that fails is
// otherwise passed over as cut short).
func TestPastedLineHints(t *testing.T) {
	save := "openat(AT_FDCWD, \"db.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\nwrite(3, \"v2\", 2) = 2\n"
	tests := []struct{ name, in, want string }{
		{"opening fence", "```\n" + save, "trace:1:1: " + notName + "\"```\"; " + fenceHint},
		{"fence naming a language", "```text\n" + save, "trace:1:1: " + notName + "\"```text\"; " + fenceHint},
		{"closing tildes", save + "~~~\nclose(3) = 0\n", "trace:3:1: " + notName + "\"~~~\"; " + fenceHint},
		{"closing fence, the last line", save + "```\n", "trace:3:1: " + notName + "\"```\"; " + fenceHint},
		{"closing fence without a newline", save + "```", "trace:3:1: " + notName + "\"```\"; " + fenceHint},
		{"dots", save + "...\nfsync(3) = 0\n", "trace:3:1: " + notName + "\"...\"; " + elideHint},
		{"indented dots", save + "    ...\nfsync(3) = 0\n", "trace:3:5: " + notName + "\"...\"; " + elideHint},
		{"dots in brackets", save + "[...]\nfsync(3) = 0\n", "trace:3:1: " + notName + "\"[...]\"; " + elideHint},
		{"dots in brackets, the last line", save + "  [...]\n", "trace:3:3: " + notName + "\"[...]\"; " + elideHint},
		{"snip in angle brackets", save + "<snip>\nfsync(3) = 0\n", "trace:3:1: " + notName + "\"<snip>\"; " + elideHint},
		{"snip in brackets", save + "[snip]\nfsync(3) = 0\n", "trace:3:1: " + notName + "\"[snip]\"; " + elideHint},
		{"lines counted", save + "[... 120 lines ...]\nfsync(3) = 0\n", "trace:3:1: " + notName + "\"[... 120 lines ...]\"; " + elideHint},
		{"dollar prompt, strace -o", "$ strace -f -o save.strace ./save\n" + save, "trace:1:1: " + notName + "\"$ strace -f -o save....\"; " + cmdHint},
		{"root prompt, strace to the terminal", "# strace -f ./save\n" + save, "trace:1:1: " + notName + "\"# strace -f ./save\"; " + cmdNoOHint},
		{"percent prompt", "% strace -ttt ./save\n" + save, "trace:1:1: " + notName + "\"% strace -ttt ./save\"; " + cmdNoOHint},
		{"sudo after a named prompt", "dev@box:~/src$ sudo strace -f ./save\n" + save, "trace:1:4: expected '(' after syscall name \"dev\"; " + cmdNoOHint},
		{"another command", "$ ./save --sync\n" + save, "trace:1:1: " + notName + "\"$ ./save --sync\"; " + shellHint},
		{"prompt and strace with no space", "$strace -o out.txt -fe openat ./save\n" + save, "trace:1:1: " + notName + "\"$strace -o out.txt -...\"; " + cmdHint},
		{"a rule of dashes", save + "---------------\nclose(3) = 0\n", "trace:3:1: " + notName + "\"---------------\"; " + noteHint},
		{"marks under a line", save + "^^^^ write ^^^^^\nclose(3) = 0\n", "trace:3:1: " + notName + "\"^^^^ write ^^^^^\"; " + noteHint},
		{"a comment", save + "# only the save, below\nclose(3) = 0\n", "trace:3:1: " + notName + "\"# only the save, bel...\"; " + noteHint},
		{"a comment mark alone, the first line", "#\n# save.strace\n#\n" + save, "trace:1:1: " + notName + "\"#\"; " + noteHint},
		{"a Unicode prompt", "❯ strace ./save\n" + save, "trace:1:1: " + notName + "\"❯ strace ./save\"; " + cmdNoOHint},
		{"a Unicode prompt after a path", "~/src ➜ strace -o out ./save\n" + save, "trace:1:1: " + notName + "\"~/src ➜ strace -o ...\"; " + cmdHint},
		{"a comment that names strace", save + "# 上面是strace日志\nclose(3) = 0\n", "trace:3:1: " + notName + "\"# 上面是strace日...\"; " + noteHint},
		{"grep -r over an -ff set", "out/save.strace.5120:openat(AT_FDCWD, \"db\", O_RDWR) = 3\n", "trace:1:4: expected '(' after syscall name \"out\"; the line starts with a file name (\"out/save.strace.5120\"), " + grepHint},
		{"grep -n", "save.log:42:fsync(3) = 0\n", "trace:1:5: expected '(' after syscall name \"save\"; the line starts with a file name (\"save.log\"), " + grepHint},
		{"grep -n, timestamps", "save.log:7:1700000000.123456 fsync(3) = 0\n", "trace:1:5: expected '(' after syscall name \"save\"; the line starts with a file name (\"save.log\"), " + grepHint},
		{"grep -n, clock times", "save.log:7:10:20:30 fsync(3) = 0\n", "trace:1:5: expected '(' after syscall name \"save\"; the line starts with a file name (\"save.log\"), " + grepHint},
		{"grep -C, a line of context", "save-2.log-41-write(3, \"v2\", 2) = 2\n", "trace:1:5: expected '(' after syscall name \"save\"; the line starts with a file name (\"save-2.log\"), " + grepHint},
		{"grep with pids", "trace:5120 rename(\"db.tmp\", \"db\") = 0\n", "trace:1:6: expected '(' after syscall name \"trace\"; the line starts with a file name (\"trace\"), " + grepHint},
		{"grep, the last line without a newline", save + "save.log:9:fsync(3) = 0", "trace:3:5: expected '(' after syscall name \"save\"; the line starts with a file name (\"save.log\"), " + grepHint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warns := readErr(t, tc.in)
			if got != tc.want {
				t.Errorf("error\n got: %s\nwant: %s\nwarnings: %q", got, tc.want, warns)
			}
		})
	}
}

// Lines that look a little like pasted ones but are not get no such hint.
func TestPastedLineHintsHoldBack(t *testing.T) {
	for _, in := range []string{
		"#!/bin/sh\n",                     // a script, not a prompt
		"--- SIGCHLD {si_signo=SIGCHLD\n", // a signal line of strace's, cut
		"close(3) = 0\n..x\n",
		"close(3) = 0\n[pid 12]\n",
		"close(3) = 0\n[...] fsync(3) = 0 [...]\n", // a call in the line
		"12:34:56 clos(3\nclose(3) = 0\n",          // no file name before a colon
		"save.log:hello world\nclose(3) = 0\n",     // no strace line after it
		"``` close(3) = 0 ```\nclose(3) = 0\n",     // an inline span, not a fence
		"user@box:~$ ./save\nclose(3) = 0\n",       // mixed output's hint
		"open(\"a\", O_RDONLY) = 3 (0x4)\n",        // two values: strace's error, no truss hint
		"… strace ./save\n",                        // "…" marks lines left out, no prompt
		"#!\n",                                     // no comment left empty
	} {
		got, _ := readErr(t, in)
		for _, h := range []string{fenceHint, elideHint, cmdHint, shellHint, grepHint, noteHint, "line marks", "truss", "u-root"} {
			if strings.Contains(got, h) {
				t.Errorf("%q: %s", in, got)
			}
		}
	}
}

const (
	trussHintText = "this looks like FreeBSD truss output, which crashsim does not read; record on Linux with strace -f -o FILE CMD"
	uRootHintText = "this looks like the output of u-root's strace (an E or X before each call, for its entry and its exit), another tool's format, which crashsim does not read; record with strace -f -ttt -y -xx -o FILE CMD"
)

// FreeBSD truss prints calls much as strace does, and its lines read as
// strace's (with warnings for its escapes): its return value, followed by
// the same in hex, gives it away. Every reading refuses it alike.
func TestTrussRefused(t *testing.T) {
	trace := "open(\"/var/db/app.tmp\",O_WRONLY|O_CREAT|O_TRUNC,0644) = 3 (0x3)\n" +
		"pwrite(3,\"\\M^Xq\\M-s\\^A\",4,0x0) = 4 (0x4)\n" +
		"fsync(3) = 0 (0x0)\n" +
		"rename(\"/var/db/app.tmp\",\"/var/db/app\") = 0 (0x0)\n"
	want := "trace:1:59: the return value is followed by the same value in hex (\"= 3 (0x3)\"), which strace never prints; " + trussHintText
	got, warns := readErr(t, trace)
	if got != want {
		t.Errorf("error\n got: %s\nwant: %s\nwarnings: %q", got, want, warns)
	}
	// The same error from the reading without arguments, the one of
	// some positions, and Skip.
	for _, rd := range []func() error{
		func() error { _, _, err := readEvents(strings.NewReader(trace), noCall); return err },
		func() error { _, _, err := readPositions(strings.NewReader(trace), evenArgs); return err },
	} {
		var pe *Error
		if err := rd(); !errors.As(err, &pe) || pe.Error() != got {
			t.Errorf("another reading: %v", err)
		}
	}
	if c := readCount([]byte(trace), true, 0); !strings.HasPrefix(c.Err, got) {
		t.Errorf("Skip: %q", c.Err)
	}
	// Lines of truss with a pid before the call (truss -f), tabs
	// before the '=', a failed call, a negative value.
	for _, tc := range []struct{ in, want string }{
		{"5120: fsync(3) = 0 (0x0)\n", "trace:1:20: the return value is followed by the same value in hex (\"= 0 (0x0)\"), which strace never prints; " + trussHintText},
		{"fsync(3)\t\t\t\t = 0 (0x0)\n", "trace:1:18: the return value is followed by the same value in hex (\"= 0 (0x0)\"), which strace never prints; " + trussHintText},
		{"close(3) = 0\nopen(\"/nope\",O_RDONLY,00)\t\t ERR#2 'No such file or directory'\n", "trace:2:26: expected '=' and the return value of open, found \"\\t\\t ERR#2 'No such fi...\"; " + trussHintText},
		{"lseek(3,0x0,SEEK_END) = -1 (0xffffffffffffffff)\n", "trace:1:28: the return value is followed by the same value in hex (\"= -1 (0xffffffffffff...\"), which strace never prints; " + trussHintText},
	} {
		if got, _ := readErr(t, tc.in); got != tc.want {
			t.Errorf("%q:\n got: %s\nwant: %s", tc.in, got, tc.want)
		}
	}
}

// strace's own returns with text in parentheses after them are no truss.
func TestTrussNotStrace(t *testing.T) {
	trace := "fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)\n" +
		"personality(0xffffffff) = 0 (PER_LINUX)\n" +
		"write(1, \"= 3 (0x3)\", 9) = 9\n" +
		"openat(AT_FDCWD, \"x\", O_RDONLY) = -1 ENOENT (No such file or directory)\n" +
		"lseek(3, 0, SEEK_END) = 16384\n" +
		"fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)\n"
	if got, _ := readErr(t, trace); got != "" {
		t.Error(got)
	}
	for _, line := range strings.Split(trace, "\n") {
		if k := trussReturn([]byte(line)); k >= 0 {
			t.Errorf("%q read as truss", line)
		}
	}
	// No committed trace has a truss line in its head.
	for _, b := range seedTracesT(t) {
		for i, line := range bytes.Split(b, []byte("\n")) {
			if trussReturn(line) >= 0 {
				t.Errorf("line %d %q read as truss", i+1, line)
			}
		}
	}
}

// u-root's strace marks each call's entry and exit with an E or an X.
func TestURootRefused(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[pid 3850] E newfstatat(AT_FDCWD, \"/etc/app.conf\", 0xc000123456, 0)\n[pid 3850] X newfstatat(AT_FDCWD, \"/etc/app.conf\", 0xc000123456, 0) = 0 (0x0)\n",
			"trace:1:13: expected '(' after syscall name \"E\"; " + uRootHintText},
		{"X fsync(3) = 0 (0x0)\n", "trace:1:2: expected '(' after syscall name \"X\"; " + uRootHintText},
	} {
		if got, _ := readErr(t, tc.in); got != tc.want {
			t.Errorf("%q:\n got: %s\nwant: %s", tc.in, got, tc.want)
		}
	}
}
