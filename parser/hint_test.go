package parser

import "testing"

const (
	mixedFix    = "strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"
	stdoutHint  = "this write to the program's stdout or stderr is cut by its own output: " + mixedFix
	anyFDHint   = "this write is cut by the program's own output, printed right after its byte count: " + mixedFix
	oldHintLine = "; this looks like strace before 5.x (line 1 has a \"Process N attached\" line without \"strace: \"): crashsim reads strace 4.x, but not this line; a recording with strace 5 or 6 avoids it"
)

const typedFix = "strace wrote its trace to the terminal the program reads from (without -o), so what is typed there is mixed into the trace; record with strace -o FILE"

func typedHint(typed string) string {
	return "this read of stdin (fd 0) is cut by the input typed for it (\"" + typed + "\"), which the terminal echoed as it was typed; the read's result follows on the next line: " + typedFix
}

// Refusals whose message said nothing of the cause, or blamed the wrong
// one, on shapes seen in public logs (written anew here): each gets the
// hint its line shows the evidence for.
func TestHintsForWhatTheLineShows(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// The bytes written land right after the count; what they hold
		// reads as a -y name, a bracket, a string or the call's end.
		{"output with a CR and '<' after the count",
			"close(3) = 0\nwrite(1, \"\\r<in | cat\"..., 40\r<in | cat | cat | cat) = 40\nclose(4) = 0\n",
			"trace:2:31: unterminated fd annotation: expected '>'; " + stdoutHint},
		{"a bracket and a newline written to stderr",
			"close(3) = 0\nwrite(2, \"[\\n\", 2[\n) = 2\nclose(4) = 0\n",
			"trace:2:19: line ended inside brackets: expected a closing bracket; " + stdoutHint},
		{"a quote written to stderr",
			"close(3) = 0\nwrite(2, \"\\\"\", 1\")  = 1\nclose(4) = 0\n",
			"trace:2:17: unterminated string: expected '\"'; " + stdoutHint},
		{"a ')' written to stderr",
			"close(3) = 0\nwrite(2, \")\", 1))  = 1\nclose(4) = 0\n",
			"trace:2:17: expected '=' and the return value of write, found \")  = 1\"; " + stdoutHint},
		{"a ')' written to a copy of stdout, -y",
			"close(3) = 0\nwrite(7</dev/pts/1>, \")\", 1))  = 1\nclose(4) = 0\n",
			"trace:2:29: expected '=' and the return value of write, found \")  = 1\"; " + anyFDHint},
		// A program's log line, strace 4.x seen before it: the date in
		// brackets is what the line shows, not an old strace's shape.
		{"a log message in a trace of strace 4.x",
			"Process 5 attached\n[pid 5] close(3) = 0\n[2018-01-26 13:43:25 +0000] [5] [INFO] Starting app 1.2\nclose(4) = 0\n",
			"trace:3:1: expected a syscall name, a signal (---) or an exit (+++), found \"[2018-01-26 13:43:25...\"; this line starts with a date in brackets (\"[2018-01-26 13:43:25 +0000]\"), which strace never prints: a log message of the program's, not strace output; " + mixedFix},
		// Another tool's prefix in brackets: a line of strace's after it.
		{"a date in brackets before each line",
			"[2024-05-01 10:00:00] close(3) = 0\n",
			"trace:1:1: expected a syscall name, a signal (---) or an exit (+++), found \"[2024-05-01 10:00:00...\"; the lines start with a date, which strace never prints: a prefix added by another tool (a CI or journal log?); cut it off, or record with strace -o FILE"},
		// Input typed at the terminal, echoed inside the read that takes
		// it; the read's result on the next line confirms it.
		{"typed input echoed inside a read of stdin",
			"close(3) = 0\nread(0, notes.txt\n\"notes.txt\\n\", 4096) = 10\nclose(4) = 0\n",
			"trace:2:18: line ended inside the arguments of read: expected ',' or ')'; " + typedHint("notes.txt")},
		{"typed words, -y and a pid",
			"[pid 7] close(3) = 0\n[pid 7] read(0</dev/pts/2>, run 2 now\n\"run 2 now\\n\", 1024) = 10\n[pid 7] close(4) = 0\n",
			"trace:2:38: line ended inside the arguments of read: expected ',' or ')'; " + typedHint("run 2 now")},
		{"one typed letter",
			"close(3) = 0\nread(0, y\n\"y\\n\", 1024) = 2\nclose(4) = 0\n",
			"trace:2:10: line ended inside the arguments of read: expected ',' or ')'; " + typedHint("y")},
		// Bare text where the buffer goes, the next line not its result:
		// what is seen, the cause left open.
		{"bare text in a read of stdin, not confirmed",
			"close(3) = 0\nread(0, hello\nclose(4) = 0\n",
			"trace:2:14: line ended inside the arguments of read: expected ',' or ')'; this read of stdin (fd 0) has text where strace prints the bytes read (\"hello\"), which strace never prints so (input typed at the terminal, or other output there?): " + typedFix},
		// An excerpt cut by hand inside a call, notes after it: no old
		// strace's shape is on the line, and no strace line follows.
		{"an excerpt cut inside a call, notes after it",
			"Process 9 attached with 2 threads\n[pid 10] nanosleep({1, 0}, NULL) = 0\n[pid 10] nanosleep({1, 0}\n\nThe sleep above loops forever:\n\n  while getppid() == 1: sleep(1)\n\nProcess 9 attached\n[pid 9] nanosleep({1, 0}, NULL) = 0\n",
			"trace:3:26: line ended inside the arguments of nanosleep: expected ',' or ')'; the line stops inside the call, and what follows it is not strace output (line 5: \"The sleep above loop...\") and does not end the call: the trace looks cut here, with other text after it (an excerpt with notes, or a recording stopped?); crashsim cannot tell how the call ended: check the whole recording"},
		// A call cut by a line of output and ended after it is no
		// excerpt: the old strace's hint stays as it was.
		{"a call ended after a line of output",
			"Process 9 attached\n[pid 9] nanosleep({1, 0}\nsome words\n) = 0\nclose(3) = 0\n",
			"trace:2:25: line ended inside the arguments of nanosleep: expected ',' or ')'" + oldHintLine},
		// Output run into the last argument is no cut at a whole one,
		// nor is a call whose end comes after strace's padding.
		{"output run into the last argument",
			"Process 9 attached\n[pid 9] poll([{fd=4, events=POLLIN}], 1, -1waiting 2\nwaiting 3\n",
			"trace:2:53: line ended inside the arguments of poll: expected ',' or ')'" + oldHintLine},
		{"a call's end after padding",
			"Process 9 attached\n[pid 9] nanosleep({1, 0}\nsome words\n)         = 0\n",
			"trace:2:25: line ended inside the arguments of nanosleep: expected ',' or ')'" + oldHintLine},
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
