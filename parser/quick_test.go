package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countReading is what a caller that counts events sees of a trace: how
// many, every message in order with its position, and the error that
// stopped it (as a person reads it, line and caret included).
type countReading struct {
	Events int
	Notes  []string
	Err    string
}

// readCount reads trace as events --format count did before Skip (Next,
// no argument decoded) or as it does now (Skip with Options.DecodeNone).
//
// pid is the process of a trace without a pid column (an -ff member's).
func readCount(trace []byte, skip bool, pid int) countReading {
	var c countReading
	opt := Options{
		Warn: func(p Pos, m string) { c.Notes = append(c.Notes, p.String()+": warning: "+m) },
		Diag: func(p Pos, m string) { c.Notes = append(c.Notes, p.String()+": "+m) },
	}
	if skip {
		opt.DecodeNone = true
	} else {
		opt.DecodeArgs = noCall
	}
	rd := newReaderSize(bytes.NewReader(trace), "trace", opt, 2*sniffSize)
	rd.pid = pid
	for {
		var err error
		if skip {
			err = rd.Skip()
		} else {
			_, err = rd.Next()
		}
		if errors.Is(err, io.EOF) {
			return c
		}
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				c.Err = pe.Detail()
			} else {
				c.Err = err.Error()
			}
			return c
		}
		c.Events++
	}
}

// skipDiff says how counting trace with Skip differs from counting it
// with Next, and checks every line quickCall passes against the full
// reading of that line.
func skipDiff(trace []byte) string {
	for _, pid := range []int{0, 7} {
		if d := cmp.Diff(readCount(trace, false, pid), readCount(trace, true, pid)); d != "" {
			return fmt.Sprintf("count in process %d (-Next +Skip):\n%s", pid, d)
		}
	}
	for i, line := range bytes.Split(trace, []byte("\n")) {
		if d := quickAgrees(line); d != "" {
			return fmt.Sprintf("line %d %q: %s", i+1, line, d)
		}
	}
	return ""
}

// quickAgrees checks one line: when quickCall passes it, the full reading
// with no argument decoded, as the reader reads a line that follows no
// call cut short, must complete it as one call with a known return value
// and nothing to note.
func quickAgrees(line []byte) string {
	var q lineParser
	q.ev = &Event{}
	ok, resumed, _, _ := q.quickCall(line)
	if !ok {
		return ""
	}
	lp := lineParser{file: "trace", line: 1, names: map[string]string{}, mayskip: true, scan: true}
	lp.decode = func(string) ArgSet { return 0 }
	lp.text, lp.ev, lp.splitAt = line, &Event{Dur: -1}, len(line)+1
	kind, _, err := lp.parse()
	switch {
	case err != nil:
		return "quickCall passes it, the full reading fails: " + err.Error()
	case resumed && kind != lineResumed, !resumed && kind != lineCall:
		return fmt.Sprintf("quickCall passes it (resumed %v), the full reading says line kind %d", resumed, kind)
	case !lp.ev.RetKnown:
		return "quickCall passes it, the full reading has no return value"
	case lp.old != "":
		return "quickCall passes it, the full reading notes an old strace: " + lp.old
	}
	return ""
}

// skipCases are lines at the edges of what quickCall passes: each must
// be counted as Next counts it, with the same messages and errors.
var skipCases = []string{
	"1 2.5 read(3, \"x\", 1) = 1\n",
	"123 1700000000.000001 openat(AT_FDCWD</h>, \"a\", O_RDONLY) = 3</h/a> <0.000010>\n",
	"123 1700000000.000001 openat(AT_FDCWD</h>, \"a\", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000010>\n",
	"12:00:01.5 close(3) = 0\n",
	"12:00:01 close(3) = 0\n",
	"close(3) = 0\n",
	"close(3) = 0", // no newline at the end: read in full
	" close(3) = 0\n",
	"123  close(3) = 0\n",
	"123<sh> close(3) = 0\n",
	"[pid 5] close(3) = 0\n",
	"1700000000 close(3) = 0\n",
	"1700000000. close(3) = 0\n",
	"1234567890123456789.5 close(3) = 0\n",
	"1.5close(3) = 0\n",
	"1.5 [00007f4d33743ad7] close(3) = 0\n",
	"12:00:01.5 (+     0.000123) close(3) = 0\n",
	"1.5 futex(0x7f, FUTEX_WAIT, 0, NULL <unfinished ... exit status 0>\n1.6 close(3) = 0\n",
	"1.5 close(3 <unfinished ...exit status 2>\n",
	"1.5 old_mmap(NULL, 4096) = 0x7f00\n",
	"1.5 exit_group(0) = ?\n+++ exited with 0 +++\n",
	"1.5 close(3) = 0x\n",
	"1.5 close(3) = \n",
	"1.5 close(3) =\n",
	"1.5 close(3) 0\n",
	"1.5 close(3\n",
	"1.5 close(3) = 0 <unavailable>\n",
	"1.5 close(3) = 0 <0.5x>\n",
	"1.5 dup(3) = 4<\n",
	"1.5 dup(3) = 4</a\\x3eb> <0.1>\n",
	"1.5 dup(3) = 4<pipe:[1]>(deleted)\n",
	"1.5 dup(3) = 4</x (deleted)>\n",
	"1.5 dup(3</a<b>>) = 4\n",
	"1.5 write(1, \"a\\\"b\", 3) = 3\n",
	"1.5 write(1, \"abc\n",
	"1.5 ioctl(1, TCGETS, {c_iflag=ICRNL /* x */}) = 0\n",
	"1.5 execve(\"/bin/sh\", [\"sh\"], [/* 44 vars */]) = 0\n1.6 foo(\n",
	"1.5 getdents64(3, 0x55 /* 7 entries */, 32768) = 200\n",
	"1.5 read(3 <unfinished ...>\n1.6 <... read resumed>\"\", 1) = 0\n",
	"1 1.5 read(3 <unfinished ...>\n2 1.6 close(4) = 0\n1 1.7 <... read resumed>\"\", 1) = 0\n",
	"1.5 read(3 <unfinished ...>) = ?\n",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <... write resumed>) = 0\n",
	"1 1.6 <... write resumed>) = 0\n",
	"1 1.5 read(3 <unfinished ...>\n2 1.6 <... read resumed>) = 0\n",
	"0 1.5 read(3 <unfinished ...>\n0 1.6 <... read resumed>) = 0\n",
	"1.5 read(3 <unfinished ...>\n0 1.6 <... read resumed>) = 0\n7 1.7 <... read resumed>) = 0\n",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <... read resumed> <unfinished ...>\n",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <... read resumed>) = ?\n1 1.7 +++ exited with 0 +++\n",
	"1 1.5 clone(child_stack=NULL <unfinished ...>\n1 1.6 <... clone resumed>, flags=CLONE_VM) = 2\n",
	"1 1.5 clone(child_stack=NULL <unfinished ...>\n1 1.6 <... clone resumed> , , flags=CLONE_VM) = 2\n",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <... read resumed>\"x\", 1) = 1\n > /lib/libc.so.6(read+0x1) [0x1]\n",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <... read resumed>\"x\", 1) = 1",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <...  read resumed>\"x\", 1) = 1\n",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <... read  resumed>\"x\", 1) = 1\n",
	"1 1.5 read(3 <unfinished ...>\n1 1.6 <... read resumed>/* 4 entries */, 1) = 1\n1.7 f(\n",
	"1.5 epoll_wait(3 <detached ...>\n",
	"1.5 close(3) = 0\n > /lib/libc.so.6(close+0x1) [0x1]\n > /bin/x(main+0x2) [0x2]\n",
	" > /lib/libc.so.6(close+0x1) [0x1]\n",
	"1.5 clo\x00se(3) = 0\n",
	"1.5 close(3) = 0\n\n\n1.6 close(4) = 0\n",
	"Process 5 attached\n1.5 close(3) = 0\n",
	"strace: Process 5 attached\n1.5 close(3) = 0\n",
	"1.5 clone(child_stack=NULL, flags=CLONE_VM strace: Process 9 attached\n, child_tidptr=0x1) = 9\n",
	"1.5 --- SIGCHLD {si_signo=SIGCHLD} ---\n1.6 +++ exited with 0 +++\n",
	"1.5 close(3) = 0\n% time     seconds  usecs/call     calls    errors syscall\n------ ----------- ----------- --------- --------- ----------------\n100.00    0.000010          10         1           close\n1.6 close(4) = 0\n",
	"% time     seconds  usecs/call     calls    errors syscall\n",
	"1.5 close(3) = 0 (INJECTED)\n",
	"1.5 close(3) = -1 (errno 512) <0.1>\n",
	"1.5 ???(3) = 0\n",
	"1.5 close(a=)) = 0\n",
	"1.5 close(3)) = 0\n",
	"1.5 close(3] = 0\n",
	"1.5 f(x<y) = 0\n",
	"1.5 f(x=<y>) = 0\n",
	// Another tool's lines, and lines pasted with a trace: refused alike.
	"fsync(3) = 0 (0x0)\n",
	"1.5 close(3) = 0\nrename(\"a\",\"b\") = 0 (0x0)\n",
	"1.5 close(3) = 0\n[...]\n",
	"1.5 close(3) = 0\n```",
	"1.5 close(3) = 0\nt.log:9:1.6 close(4) = 0",
	"",
	"\n\n",
}

// TestSkipCountsAsNext counts every committed trace, every recorded form
// and the edge cases above with Skip and with Next: the same events, the
// same messages at the same places, the same error.
func TestSkipCountsAsNext(t *testing.T) {
	var in [][]byte
	for _, s := range skipCases {
		in = append(in, []byte(s))
	}
	for _, tc := range formCases {
		in = append(in, []byte(tc.old), []byte(tc.new))
	}
	in = append(in, seedTracesT(t)...)
	for _, trace := range in {
		if d := skipDiff(trace); d != "" {
			t.Errorf("%q:\n%s", snippet(trace), d)
		}
	}
}

// TestQuickCallTakesTheUsualLines keeps the quick lane in use: the plain
// lines of a real recording pass it; the others are read in full.
func TestQuickCallTakesTheUsualLines(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`10006 1795000000.020311 newfstatat(3</usr/lib/python3/dist-packages>, "", {st_mode=S_IFDIR|0755, st_size=4096, ...}, AT_EMPTY_PATH) = 0`, true},
		{`10006 1795000000.020424 ioctl(3</a.pth>, TCGETS, 0x7fffef4abbd0) = -1 ENOTTY (Inappropriate ioctl for device)`, true},
		{`10006 1795000000.020393 openat(AT_FDCWD</tmp>, "/usr/lib/x.pth", O_RDONLY|O_CLOEXEC) = 3</usr/lib/x.pth> <0.000012>`, true},
		{`10006 1795000000.020342 getdents64(3</usr/lib>, 0x33e38b60 /* 70 entries */, 32768) = 2816`, true},
		{`12:00:01.123456 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f2b1c000000`, true},
		{`brk(NULL) = 0x55d0c6b4e000`, true},
		{`10006 1795000000.020342 exit_group(0) = ?`, false},
		{`10006 1795000000.020342 read(3 <unfinished ...>`, false},
		{`10006 1795000000.020342 <... read resumed>"", 1) = 0`, true},
		{`10006 1795000000.020342 <... clone resumed>, child_tidptr=0x7f) = 10007`, true},
		{`10006 1795000000.020342 <... read resumed> <unfinished ...>) = ?`, false},
		{`10006 1795000000.020342 <... clone3 resumed> => {parent_tid=[10007]}, 88) = 10007`, false},
		{`10006 1795000000.020342 <... ??? resumed>) = 0`, false},
		{`[pid 10006] close(3) = 0`, false},
		{`10006<python3> close(3) = 0`, false},
		{`10006 1795000000.020342 --- SIGCHLD {si_signo=SIGCHLD} ---`, false},
		{`10006 1795000000.020342 +++ exited with 0 +++`, false},
		{`10006 1795000000.020342 old_mmap(NULL) = 0`, false},
		{`10006 1795000000.020342 execve("/bin/sh", ["sh"], [/* 44 vars */]) = 0`, false},
	} {
		var q lineParser
		q.ev = &Event{}
		if got, _, _, _ := q.quickCall([]byte(tc.line)); got != tc.want {
			t.Errorf("quickCall(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// TestSkipBuildsNoEvents checks that counting a plain trace with Skip
// allocates next to nothing per line: the quick lane is what runs.
func TestSkipBuildsNoEvents(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "%d 1795000000.%06d newfstatat(AT_FDCWD</tmp/w>, \"/usr/lib/f%d\", {st_mode=S_IFREG|0644, st_size=%d, ...}, 0) = 0 <0.000003>\n", 100+i%3, i, i, i)
	}
	trace := []byte(b.String())
	allocs := testing.AllocsPerRun(5, func() {
		rd := newReaderSize(bytes.NewReader(trace), "trace", Options{DecodeNone: true}, 2*sniffSize)
		n := 0
		for rd.Skip() == nil {
			n++
		}
		if n != 2000 {
			t.Fatalf("%d events, want 2000", n)
		}
	})
	if allocs > 50 {
		t.Errorf("%.0f allocations to count 2000 lines: the quick lane is not taken", allocs)
	}
}

// seedTracesT is seedTraces for a test.
func seedTracesT(t *testing.T) [][]byte { return loadSeedTraces(t.Fatal) }

// FuzzSkip reads fuzzed traces with Skip and with Next: the counts, the
// messages and the errors (position, text and caret) must be the same,
// and every line quickCall passes must read in full as one plain call.
func FuzzSkip(f *testing.F) {
	seedLines(f, true)
	for _, s := range skipCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, trace []byte) {
		if len(trace) > maxTrace {
			return
		}
		if d := skipDiff(trace); d != "" {
			t.Fatal(d)
		}
	})
}

// TestBlankAndSummaryHeadChecks compares isBlank and maybeSummaryHeader
// with the bytes.TrimSpace readings they stand for, on every fixture line
// and on lines of spaces, Unicode spaces, summary heads of every column
// set and personalities' titles.
func TestBlankAndSummaryHeadChecks(t *testing.T) {
	lines := []string{"", " ", "\t\r\v\f ", "\u00a0", " \u0085 ", "\u00a0% time     seconds  usecs/call     calls    errors syscall",
		"% time     seconds  usecs/call     calls    errors syscall", "  calls syscall  ", "calls syscall\u00a0", "syscal", "x\u00a0", "\xff", " \xc2", "%", "l",
		"syscall", "syscall\r", "syscall              calls    errors", "\u00a0syscall          calls", "    calls    errors syscall           longest",
		"syscall              calls  wall-total wall-min wall-max    wall-avg", "System call usage summary for 32 bit mode:", "System call usage summary for x32 mode:\u00a0"}
	for _, tc := range summaryCases {
		lines = append(lines, strings.Split(tc.table, "\n")...)
	}
	for _, trace := range seedTracesT(t) {
		for _, l := range strings.Split(string(trace), "\n") {
			lines = append(lines, l)
		}
	}
	for _, l := range lines {
		b := []byte(l)
		if got, want := isBlank(b), len(bytes.TrimSpace(b)) == 0; got != want {
			t.Errorf("isBlank(%q) = %v, want %v", l, got, want)
		}
		tb := bytes.TrimSpace(b)
		if head := isSummaryHeader(tb) || isSummaryTitle(tb); head && !maybeSummaryHeader(b) {
			t.Errorf("maybeSummaryHeader(%q) = false for a summary head or title", l)
		}
	}
}
