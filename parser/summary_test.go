package parser

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// summaryCases are summary tables in the shapes strace 6 prints them for
// the columns chosen (-U, --summary-columns) and sorted (-S), written for
// these tests: each is the whole table, its total row last.
var summaryCases = []struct {
	name, flags, table string
}{
	{"the default columns", "-c",
		"% time     seconds  usecs/call     calls    errors syscall\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			" 36.56    0.000159         159         1           execve\n" +
			"  2.22    0.000010           9         1         1 access\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			"100.00    0.000169          84         2         1 total\n"},
	{"wall clock", "-w -c (--summary-wall-clock), -f on sh -c 'true; true'",
		"% time     seconds  usecs/call     calls    errors syscall\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			" 60.12    0.000412          58         7           rt_sigaction\n" +
			" 39.88    0.000273         136         2           wait4\n" +
			"  0.00    0.000000           0         1         1 access\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			"100.00    0.000685          68        10         1 total\n"},
	{"name, calls, errors", "-C -U name,calls,errors",
		"syscall              calls    errors\n" +
			"---------------- --------- ---------\n" +
			"read                     1          \n" +
			"access                   1         1\n" +
			"set_tid_address          1\n" +
			"---------------- --------- ---------\n" +
			"total                    3         1\n"},
	{"name, calls, sorted by calls", "-c -S calls -U name,calls",
		"syscall              calls\n" +
			"---------------- ---------\n" +
			"newfstatat             628\n" +
			"openat                 311\n" +
			"faccessat2               1\n" +
			"---------------- ---------\n" +
			"total                  940\n"},
	{"calls, name", "-c -U calls,name",
		"    calls syscall\n" +
			"--------- ----------------\n" +
			"        8 mmap\n" +
			"        1 execve\n" +
			"--------- ----------------\n" +
			"        9 total\n"},
	{"the name alone", "-c -U name",
		"syscall\n" +
			"----------------\n" +
			"execve\n" +
			"mmap\n" +
			"----------------\n" +
			"total\n"},
	{"errors, name: errors blank", "-c -U errors,name",
		"   errors syscall\n" +
			"--------- ----------------\n" +
			"          getrandom\n" +
			"        1 access\n" +
			"--------- ----------------\n" +
			"        1 total\n"},
	{"every column, the name first", "-c -U name,time-percent,total-time,avg-time,min-time,max-time,calls,errors",
		"syscall          % time     seconds  usecs/call shortest  longest     calls    errors\n" +
			"---------------- ------ ----------- ----------- -------- -------- --------- ---------\n" +
			"read               0.00    0.000000           0 0.000000 0.000000         1          \n" +
			"access            12.50    0.000001           1 0.000001 0.000001         1         1\n" +
			"---------------- ------ ----------- ----------- -------- -------- --------- ---------\n" +
			"total            100.00    0.000008           4 0.000000 0.000007         2         1\n"},
	{"the name amid the columns, errors blank before it", "-w -c -S calls -U calls,errors,name,max-time",
		"    calls    errors syscall           longest\n" +
			"--------- --------- ---------------- --------\n" +
			"        7           rt_sigaction     0.000009\n" +
			"        1         1 access           0.000012\n" +
			"--------- --------- ---------------- --------\n" +
			"        8         1 total            0.000012\n"},
	{"wall-clock columns", "strace after 6.16 -c -U name,calls,wall-total,wall-min,wall-max,wall-avg",
		"syscall              calls  wall-total wall-min wall-max    wall-avg\n" +
			"---------------- --------- ----------- -------- -------- -----------\n" +
			"wait4                    2    0.001024 0.000310 0.000714         512\n" +
			"---------------- --------- ----------- -------- -------- -----------\n" +
			"total                    2    0.001024 0.000310 0.000714         512\n"},
	{"a decimal comma", "-c in a locale that writes one",
		"% time     seconds  usecs/call     calls    errors syscall\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			" 66,75    0,003708           0      3922           read\n" +
			" 33,25    0,001847           0      2685           write\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			"100,00    0,005555           0      6607           total\n"},
	{"a second personality", "-c of a program that runs 64-bit and 32-bit calls",
		"    calls syscall\n" +
			"--------- ----------------\n" +
			"        1 execve\n" +
			"--------- ----------------\n" +
			"        1 total\n" +
			"System call usage summary for 32 bit mode:\n" +
			"    calls syscall\n" +
			"--------- ----------------\n" +
			"        2 _llseek\n" +
			"--------- ----------------\n" +
			"        2 total\n"},
	{"the name alone, a call named as the head", "-c -U name on mips o32, whose call 4000 is syscall",
		"syscall\n" +
			"----------------\n" +
			"syscall\n" +
			"read\n" +
			"----------------\n" +
			"total\n"},
	{"the default columns, the % of the first head lost", "-c, copied from a terminal without its first two bytes",
		"time     seconds  usecs/call     calls    errors   syscall\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			" 59.63    0.001271        1981         1           poll\n" +
			" 40.37    0.000860          12        70        19 futex\n" +
			"------ ----------- ----------- --------- --------- ----------------\n" +
			"100.00    0.002131          29        71        19 total\n"},
}

// summaryRefused is the message for a trace that is only a summary.
const summaryRefused = "this is an strace -c summary: it counts calls but records none; record without -c (e.g. strace -f -ttt -y -xx -o FILE CMD)"

// TestSummaryTables: whatever the columns and their order, a table alone
// (-c) is refused as a summary, a table after the calls (-C) is skipped
// and said so once a table, and a call after a table is still read: the
// table ends at its total row, or at the first line that is none of it.
func TestSummaryTables(t *testing.T) {
	const calls = "1234 close(3) = 0\n"
	const after = "1234 write(1, \"x\", 1) = 1\n"
	for _, tc := range summaryCases {
		t.Run(tc.name, func(t *testing.T) {
			heads := strings.Count(tc.table, "\n-") / 2 // a head and a footer rule a table
			_, _, err := readSummaryTrace(tc.table)
			if want := "trace:1:1: " + summaryRefused; err != want {
				t.Errorf("%s alone: error %q, want %q", tc.flags, err, want)
			}
			// A table cut before its total row (the footer and the
			// total dropped) ends at the call after it too.
			k := strings.LastIndex(tc.table, "\n-")
			cut := tc.table[:k+1]
			for _, in := range []struct{ what, text string }{
				{"after the calls", calls + tc.table},
				{"with a call after it", calls + tc.table + after},
				{"cut short, with a call after it", calls + cut + after},
				{"then blank lines and a call", calls + tc.table + "\n\n" + after},
			} {
				want := []summary{{Line: 1, End: 1, PID: 1234, Name: "close", Args: "3", Ret: "0"}}
				if strings.HasSuffix(in.text, after) {
					n := strings.Count(in.text, "\n")
					want = append(want, summary{Line: n, End: n, PID: 1234, Name: "write", Args: "1, <data>, 1", Ret: "1"})
				}
				evs, warns, err := readSummaryTrace(in.text)
				if err != "" || len(warns) != 0 {
					t.Errorf("%s, %s: error %q, warnings %q", tc.flags, in.what, err, warns)
				}
				if got := summarize(evs); !equalSummaries(got, want) {
					t.Errorf("%s, %s: events\n%+v\nwant\n%+v", tc.flags, in.what, got, want)
				}
				if n := summaryDiags(in.text); n != heads {
					t.Errorf("%s, %s: %d tables said skipped, want %d", tc.flags, in.what, n, heads)
				}
				if d := skipDiff([]byte(in.text)); d != "" {
					t.Errorf("%s, %s: %s", tc.flags, in.what, d)
				}
			}
		})
	}
}

// readSummaryTrace reads text as the trace "trace": its events, warnings,
// and the error that stopped it ("" at its end).
func readSummaryTrace(text string) ([]*Event, []string, string) {
	var warns []string
	r := NewReader(strings.NewReader(text), "trace", Options{Warn: func(p Pos, m string) { warns = append(warns, p.String()+": "+m) }})
	var evs []*Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return evs, warns, ""
		}
		if err != nil {
			return evs, warns, err.Error()
		}
		evs = append(evs, ev)
	}
}

func equalSummaries(a, b []summary) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Line != b[i].Line || a[i].End != b[i].End || a[i].PID != b[i].PID || a[i].Name != b[i].Name || a[i].Args != b[i].Args || a[i].Ret != b[i].Ret {
			return false
		}
	}
	return true
}

// summaryDiags counts the tables the reader says it skipped (Options.Diag).
func summaryDiags(text string) int {
	n := 0
	r := NewReader(strings.NewReader(text), "t", Options{Diag: func(p Pos, text string) {
		if strings.Contains(text, "summary table starts here") {
			n++
		}
	}})
	for {
		if _, err := r.Next(); err != nil {
			return n
		}
	}
}

// TestSummaryRowsAreNoCalls: no line of a trace reads as a row of any
// table, nor as the head of one, and the rows of one table do not read as
// rows of a table of other columns.
func TestSummaryRowsAreNoCalls(t *testing.T) {
	lines := []string{
		`1234 write(1, "x", 1) = 1`,
		`write(1, "x", 1) = 1`,
		`1234 close(3) = 0`,
		`[pid  1234] close(3) = 0`,
		`1234 1700000000.000001 close(3) = 0`,
		`12:00:01.000001 close(3) = 0`,
		`close(3) = 0 <0.000010>`,
		`1234 exit_group(0) = ?`,
		`exit_group(0) = ?`,
		`1234 +++ exited with 0 +++`,
		`+++ exited with 0 +++`,
		`--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=5, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---`,
		`1234 read(3 <unfinished ...>`,
		`1234 <... read resumed>"x", 1) = 1`,
		`1234 getpid() = 1234`,
		`1234 sync() = 0`,
		`strace: Process 1234 attached`,
		` > /usr/lib/x86_64-linux-gnu/libc.so.6(__write+0x14) [0xf1e4]`,
	}
	var tabs []summaryTable
	for _, tc := range summaryCases {
		head, _, _ := strings.Cut(tc.table, "\n")
		tab, ok := summaryHeader([]byte(strings.TrimSpace(head)))
		if !ok {
			t.Fatalf("%s: the head %q is not read as one", tc.flags, head)
		}
		tabs = append(tabs, tab)
	}
	for _, l := range lines {
		b := bytes.TrimSpace([]byte(l))
		if isSummaryHeader(b) || isSummaryTitle(b) || summaryRule(b) > 0 {
			t.Errorf("%q reads as a summary's head, title or rule", l)
		}
		for i, tab := range tabs {
			if row, _ := tab.row(b); row {
				t.Errorf("%q reads as a row of the table of %s", l, summaryCases[i].flags)
			}
		}
	}
	// The rows of "name, calls" are no rows of "calls, name", nor
	// those of "the default columns" rows of "name, calls, errors".
	for _, pair := range [][2]int{{3, 4}, {4, 3}, {0, 2}, {2, 0}, {5, 4}} {
		from, of := summaryCases[pair[0]], tabs[pair[1]]
		for _, l := range strings.Split(strings.TrimSpace(from.table), "\n")[2:] {
			b := bytes.TrimSpace([]byte(l))
			if row, _ := of.row(b); row {
				t.Errorf("%q, a row of %s, reads as a row of %s", l, from.flags, summaryCases[pair[1]].flags)
			}
		}
	}
}

// TestSummaryHeads: a head is strace's column heads, each once, the
// name's among them; a line of heads without the rule under it is an
// error that says so, not "expected '('".
func TestSummaryHeads(t *testing.T) {
	for _, l := range []string{
		"calls errors",          // no name: strace always adds it
		"calls calls syscall",   // a column twice: strace refuses it
		"% syscall",             // "%" is "% time" only ("time" alone is that head with its "%" lost)
		"calls syscall total",   // total heads no column
		"calls syscall min max", // nor min and max (shortest, longest)
		"calls, syscall",
		"Calls syscall",
	} {
		if isSummaryHeader([]byte(l)) {
			t.Errorf("%q reads as a head", l)
		}
	}
	const cutHead = "trace:2:1: this line is the column heads of an strace -c/-C summary table, but the line under it is not the row of dashes strace prints there: the table was cut or edited; cut it off the trace"
	for _, tc := range []struct{ name, in, want string }{
		{"no rule", "close(3) = 0\nsyscall              calls\nclose(4) = 0\n", cutHead},
		{"a rule of other columns", "close(3) = 0\nsyscall              calls\n---------------- --------- ---------\n", cutHead},
		{"a blank line under it", "close(3) = 0\n    calls syscall\n\n", cutHead},
		{"the head last: skipped", "close(3) = 0\n    calls syscall\n", ""},
		{"the head last, without its newline", "close(3) = 0\n    calls syscall", ""},
		{"the rule last, without its newline", "close(3) = 0\n    calls syscall\n--------- ----------------", ""},
		{"-c: the head alone", "    calls syscall\n", "trace:1:1: " + summaryRefused},
		{"-c: after a personality's title", "System call usage summary for 32 bit mode:\nsyscall\n----------------\n", "trace:2:1: " + summaryRefused},
		{"a title and no table after it", "close(3) = 0\nSystem call usage summary for 32 bit mode:\nclose(4) = 0\n", ""},
	} {
		_, _, err := readSummaryTrace(tc.in)
		if err != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
	}
}
