package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// cutCases are calls strace -f cut in two inside an argument (or right
// after one whose exit value comes with the resumed half), each with the
// trace strace prints when nothing comes between: the same events in the
// same order, the call on one line where its resumed half was.
var cutCases = []struct {
	name, cut, whole string
}{
	{"a struct decoded partly on entry (aarch64 ioctl)",
		"4321  ioctl(10, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=0 <unfinished ...>\n" +
			"4322  futex(0x7f8e2c0009c8, FUTEX_WAKE_PRIVATE, 1) = 1\n" +
			"4321  <... ioctl resumed>, memory=V4L2_MEMORY_MMAP, m.offset=0, length=4096, bytesused=0, flags=V4L2_BUF_FLAG_MAPPED|V4L2_BUF_FLAG_QUEUED, ...}) = 0\n",
		"4322  futex(0x7f8e2c0009c8, FUTEX_WAKE_PRIVATE, 1) = 1\n" +
			"4321  ioctl(10, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=0, memory=V4L2_MEMORY_MMAP, m.offset=0, length=4096, bytesused=0, flags=V4L2_BUF_FLAG_MAPPED|V4L2_BUF_FLAG_QUEUED, ...}) = 0\n"},
	{"nested structs, cut after a comma",
		"5 frob(1, {a={b=1, <unfinished ...>\n6 close(3) = 0\n5 <... frob resumed>c=2}}, 5) = 0\n",
		"6 close(3) = 0\n5 frob(1, {a={b=1, c=2}}, 5) = 0\n"},
	{"the resumed half starts with the closing brackets",
		"5 ioctl(3, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE <unfinished ...>\n6 close(3) = 0\n5 <... ioctl resumed>}) = 0\n",
		"6 close(3) = 0\n5 ioctl(3, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 0\n"},
	{"cut right after an opening bracket",
		"5 ioctl(3, SIOCGIFCONF, {<unfinished ...>\n6 close(3) = 0\n5 <... ioctl resumed>ifc_len=40, ifc_buf=NULL}) = 0\n",
		"6 close(3) = 0\n5 ioctl(3, SIOCGIFCONF, {ifc_len=40, ifc_buf=NULL}) = 0\n"},
	{"an array of structs, with data on both halves",
		"7 writev(3</tmp/f>, [{iov_base=\"ab\\n\", iov_len=3} <unfinished ...>\n8 close(4) = 0\n7 <... writev resumed>, {iov_base=\"cd\", iov_len=2}], 2) = 5\n",
		"8 close(4) = 0\n7 writev(3</tmp/f>, [{iov_base=\"ab\\n\", iov_len=3}, {iov_base=\"cd\", iov_len=2}], 2) = 5\n"},
	{"a set cut between its names",
		"5 rt_sigprocmask(SIG_BLOCK, [INT <unfinished ...>\n6 close(3) = 0\n5 <... rt_sigprocmask resumed> TERM], NULL, 8) = 0\n",
		"6 close(3) = 0\n5 rt_sigprocmask(SIG_BLOCK, [INT TERM], NULL, 8) = 0\n"},
	{"clone3's exit value with the resumed half",
		"111 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f1, parent_tid=0x7f1, exit_signal=0, stack=0x7f0, stack_size=0x7fff80, tls=0x7f2} <unfinished ...>\n" +
			"112 rseq(0x7f3, 0x20, 0, 0x53053053) = 0\n" +
			"111 <... clone3 resumed> => {parent_tid=[112]}, 88) = 112\n",
		"112 rseq(0x7f3, 0x20, 0, 0x53053053) = 0\n" +
			"111 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f1, parent_tid=0x7f1, exit_signal=0, stack=0x7f0, stack_size=0x7fff80, tls=0x7f2} => {parent_tid=[112]}, 88) = 112\n"},
	{"an exit value inside a struct",
		"5 ioctl(3, SIOCGIFCONF, {ifc_len=2 * sizeof(struct ifreq) <unfinished ...>\n6 close(3) = 0\n5 <... ioctl resumed> => 1 * sizeof(struct ifreq), ifc_buf=[{ifr_name=\"lo\", ifr_addr={sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"127.0.0.1\")}}]}) = 0\n",
		"6 close(3) = 0\n5 ioctl(3, SIOCGIFCONF, {ifc_len=2 * sizeof(struct ifreq) => 1 * sizeof(struct ifreq), ifc_buf=[{ifr_name=\"lo\", ifr_addr={sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"127.0.0.1\")}}]}) = 0\n"},
	{"with times, -y paths and -T",
		"4321  1795000000.000100 ioctl(10</dev/video0<char 81:0>>, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=1 <unfinished ...>\n" +
			"4322  1795000000.000200 write(4</tmp/a>, \"x\", 1) = 1 <0.000010>\n" +
			"4321  1795000000.000300 <... ioctl resumed>, memory=V4L2_MEMORY_MMAP}) = 0 <0.000200>\n",
		"4322  1795000000.000200 write(4</tmp/a>, \"x\", 1) = 1 <0.000010>\n" +
			"4321  1795000000.000100 ioctl(10</dev/video0<char 81:0>>, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=1, memory=V4L2_MEMORY_MMAP}) = 0 <0.000200>\n"},
	{"-z: the rest on the next line, with no pid",
		"1 ioctl(3, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=0 <unfinished ...>\n, memory=V4L2_MEMORY_MMAP}) = 0\n2 close(3) = 0\n",
		"1 ioctl(3, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=0, memory=V4L2_MEMORY_MMAP}) = 0\n2 close(3) = 0\n"},
	{"a strace: message inside the first half",
		"5 ioctl(3, FROB, {a=1, strace: Process 6 attached\nb=\"xy\" <unfinished ...>\n6 close(3) = 0\n5 <... ioctl resumed>, c=\"zw\"}) = 0\n",
		"6 close(3) = 0\n5 ioctl(3, FROB, {a=1, b=\"xy\", c=\"zw\"}) = 0\n"},
	{"a strace: message inside the resumed half",
		"5 ioctl(3, FROB, {a=\"xy\" <unfinished ...>\n6 close(3) = 0\n5 <... ioctl resumed>, c=\"zw\"strace: Process 7 attached\n}) = 0\n",
		"6 close(3) = 0\n5 ioctl(3, FROB, {a=\"xy\", c=\"zw\"}) = 0\n"},
	{"two processes cut at once",
		"5 ioctl(3, FROB, {a=[1 <unfinished ...>\n6 ioctl(4, FROB, {b={c=2 <unfinished ...>\n5 <... ioctl resumed>, 2]}) = 0\n6 <... ioctl resumed>}, d=3}) = 0\n",
		"5 ioctl(3, FROB, {a=[1, 2]}) = 0\n6 ioctl(4, FROB, {b={c=2}, d=3}) = 0\n"},
}

// uncutView is an event as a comparison between a cut trace and its
// uncut form sees it: its lines and the file offsets of its strings
// left out (they differ), the bytes at those offsets in their place.
type uncutView struct {
	Ev    Event
	Bytes []string
}

func uncutViews(evs []Event, trace []byte) []uncutView {
	var out []uncutView
	for _, ev := range evs {
		var raw []string
		// Where the halves are, and the calls that completed between
		// them (Overlap), are the cut's own, and so is the call under
		// way that another process's call came during (Spawner).
		ev.Pos.Line, ev.EndLine, ev.Overlap = 0, 0, 0
		if x := ev.Extra; x != nil && x.Spawner != 0 {
			c := *x
			c.Spawner, c.SpawnFlags, c.SpawnAlso = 0, 0, nil
			if cmp.Equal(c, EventExtra{}, cmpopts.EquateEmpty()) {
				ev.Extra = nil
			} else {
				ev.Extra = &c
			}
		}
		ev.Args = rawData(ev.Args, trace, &raw)
		out = append(out, uncutView{ev, raw})
	}
	return out
}

// rawData copies vs with each string's bytes in the trace appended to raw
// and its offset cleared.
func rawData(vs []Value, trace []byte, raw *[]string) []Value {
	if vs == nil {
		return nil
	}
	out := append([]Value{}, vs...)
	for i := range out {
		v := &out[i]
		if v.Kind == ValString {
			end := v.Data.Off + int64(v.Data.Len)
			if v.Data.Off < 0 || end > int64(len(trace)) {
				*raw = append(*raw, fmt.Sprintf("offset %d+%d outside the trace", v.Data.Off, v.Data.Len))
			} else {
				*raw = append(*raw, string(trace[v.Data.Off:end]))
			}
			v.Data.Off = 0
		}
		v.Elems = rawData(v.Elems, trace, raw)
		if x := v.Extra; x != nil && x.Exit != nil {
			c := *x
			e := rawData([]Value{*x.Exit}, trace, raw)
			c.Exit = &e[0]
			v.Extra = &c
		}
	}
	return out
}

// TestCutInsideAnArgumentReadsAsUncut: a call cut inside an argument reads
// into the events its uncut form gives, in every reading (all arguments,
// none, some positions, a recycling Pipeline), with no warning, and is
// counted as Next counts it.
func TestCutInsideAnArgumentReadsAsUncut(t *testing.T) {
	readings := []struct {
		name string
		read func([]byte) ([]Event, []string, error)
	}{
		{"all", func(b []byte) ([]Event, []string, error) { return readEvents(bytes.NewReader(b), nil) }},
		{"none", func(b []byte) ([]Event, []string, error) { return readEvents(bytes.NewReader(b), noCall) }},
		{"positions", func(b []byte) ([]Event, []string, error) { return readPositions(bytes.NewReader(b), evenArgs) }},
		{"recycled", func(b []byte) ([]Event, []string, error) { return recycledEvents(t, b) }},
	}
	for _, tc := range cutCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range readings {
				cut, cw, cerr := rd.read([]byte(tc.cut))
				whole, ww, werr := rd.read([]byte(tc.whole))
				if cerr != nil || werr != nil {
					t.Fatalf("%s: errors: cut %v, whole %v", rd.name, cerr, werr)
				}
				if len(cw) != 0 || len(ww) != 0 {
					t.Errorf("%s: warnings: cut %q, whole %q", rd.name, cw, ww)
				}
				if len(whole) < 2 {
					t.Fatalf("%s: %d events in the whole form", rd.name, len(whole))
				}
				if diff := cmp.Diff(uncutViews(whole, []byte(tc.whole)), uncutViews(cut, []byte(tc.cut))); diff != "" {
					t.Errorf("%s: events (-whole +cut):\n%s", rd.name, diff)
				}
			}
			if d := skipDiff([]byte(tc.cut)); d != "" {
				t.Error(d)
			}
		})
	}
}

// recycledEvents reads trace through a recycling Pipeline, each event
// copied out before the next.
func recycledEvents(t *testing.T, trace []byte) ([]Event, []string, error) {
	name := filepath.Join(t.TempDir(), "trace")
	if err := os.WriteFile(name, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	var warns []string
	opt := Options{DecodePositions: someArgs, Recycle: true, Warn: func(p Pos, m string) { warns = append(warns, m) }}
	s, err := Pipeline(opt, func(opt Options) (Stream, error) { return Open(name, opt) })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var evs []Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return evs, warns, nil
		}
		if err != nil {
			return evs, warns, err
		}
		c := *detach(ev)
		c.Pos.File = "trace" // as readEvents names it
		for i := range c.Args {
			c.Args[i] = renameData(c.Args[i])
		}
		evs = append(evs, c)
	}
}

// renameData names the file of v's strings "trace", as readEvents does.
func renameData(v Value) Value {
	if v.Kind == ValString {
		v.Data.File = "trace"
	}
	for i := range v.Elems {
		v.Elems[i] = renameData(v.Elems[i])
	}
	return v
}

// TestCutInsideAnArgumentData: the bytes of strings on either half of a
// call cut inside an argument are read from where they are in the file.
func TestCutInsideAnArgumentData(t *testing.T) {
	evs, _, _ := parseText(t, "7 writev(3, [{iov_base=\"ab\\n\", iov_len=3} <unfinished ...>\n8 close(4) = 0\n7 <... writev resumed>, {iov_base=\"cd\", iov_len=2}], 2) = 5\n")
	if len(evs) != 2 || len(evs[1].Args) != 3 || len(evs[1].Args[1].Elems) != 2 {
		t.Fatalf("events %v", summarize(evs))
	}
	d := NewDataReader()
	defer d.Close()
	for i, want := range []string{"ab\n", "cd"} {
		got, err := d.Bytes(evs[1].Args[1].Elems[i].Field("iov_base").Data, 10)
		if err != nil || string(got) != want {
			t.Errorf("iovec %d: %q, %v; want %q", i, got, err, want)
		}
	}
}

// TestCutInsideAnArgumentNeverReturns: a call cut inside an argument that
// never comes back keeps what its first half printed, each struct or
// array left open marked as cut short (More), and no result.
func TestCutInsideAnArgumentNeverReturns(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []summary
	}{
		{"resumed only to be cut short again",
			"9 ioctl(10, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=0 <unfinished ...>\n9 <... ioctl resumed> <unfinished ...>) = ?\n9 +++ killed by SIGKILL +++\n",
			[]summary{{Line: 1, End: 2, PID: 9, Name: "ioctl", Args: "10, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=0, ...}", Ret: "?"}, {Line: 3, End: 3, PID: 9, Name: "+++killed SIGKILL"}}},
		{"strace 4.x: the tracee gone inside a struct",
			"9 ioctl(10, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, m={offset=0 <ptrace(SYSCALL):No such process>\n9 <... ioctl resumed>) = ?\n9 +++ killed by SIGKILL +++\n",
			[]summary{{Line: 1, End: 2, PID: 9, Name: "ioctl", Args: "10, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, m={offset=0, ...}, ...}", Ret: "?"}, {Line: 3, End: 3, PID: 9, Name: "+++killed SIGKILL"}}},
		{"the process ends before the resumed half",
			"9 ioctl(10, VIDIOC_QBUF, [{a=1 <unfinished ...>\n8 exit_group(0) = ?\n9 +++ exited with 0 +++\n",
			[]summary{{Line: 2, End: 2, PID: 8, Name: "exit_group", Args: "0", Ret: "?"}, {Line: 1, End: 3, PID: 9, Name: "ioctl", Args: "10, VIDIOC_QBUF, [{a=1, ...}, ...]", Ret: "?"}, {Line: 3, End: 3, PID: 9, Name: "+++exit", Ret: "0"}}},
		{"-p: strace detached inside a struct",
			"9 ioctl(10, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE <detached ...>\n",
			[]summary{{Line: 1, End: 1, PID: 9, Name: "ioctl", Args: "10, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, ...}", Ret: "?"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, warns, _ := parseText(t, tc.in)
			if len(warns) != 0 {
				t.Errorf("warnings %q", warns)
			}
			if diff := cmp.Diff(tc.want, summarize(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if d := skipDiff([]byte(tc.in)); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestCutInsideAnArgumentErrors: a resumed half that does not go on from
// where its first half stopped is an error at its place, in every reading.
func TestCutInsideAnArgumentErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"closes the wrong bracket",
			"5 frob(1, {a={b=1 <unfinished ...>\n6 close(3) = 0\n5 <... frob resumed>]}, 5) = 0\n",
			"trace:3:21: expected '}', found ']': the resumed half of frob does not close what its first half (line 1) left open (\"{{\")"},
		{"closes too few",
			"5 frob(1, {a={b=1 <unfinished ...>\n5 <... frob resumed>}, 5) = 0\n6 close(3) = 0\n",
			"trace:2:25: expected '}', found ')': the resumed half of frob does not close what its first half (line 1) left open (\"{{\")"},
		{"the line ends inside",
			"5 frob(1, {a={b=1 <unfinished ...>\n5 <... frob resumed>, c=2}\n6 close(3) = 0\n",
			"trace:2:27: line ended inside what the first half of frob (line 1) left open (\"{{\"): expected '}'"},
		{"closes too many",
			"5 frob(1, {a=[1 <unfinished ...>\n5 <... frob resumed>]}}, 5) = 0\n6 close(3) = 0\n",
			"trace:2:23: expected ',' or ')' after argument 1 of frob, found \"}, 5) = 0\""},
		{"closes one it opened itself with another",
			"5 frob(1, {a=1 <unfinished ...>\n5 <... frob resumed>, b=[2}}) = 0\n6 close(3) = 0\n",
			"trace:2:27: expected ']', found '}': the resumed half of frob does not close what its first half (line 1) left open (\"{\")"},
		{"ends the call inside the struct with a result",
			"5 ioctl(3, FROB, {a=1 <unfinished ...>\n5 <... ioctl resumed>) = 0\n6 close(3) = 0\n",
			"trace:2:22: expected '}': the resumed half of ioctl ends the call inside what its first half (line 1) left open (\"{\"), with a result"},
		{"cut again without the end of the call",
			"5 ioctl(3, FROB, {a=1 <unfinished ...>\n5 <... ioctl resumed> <unfinished ...>\n6 close(3) = 0\n",
			"trace:2:22: a resumed call cannot be unfinished again without \") = ?\""},
		{"no first half: as for a cut between arguments",
			"6 close(3) = 0\n5 <... ioctl resumed>, b=2}) = 0\n6 close(4) = 0\n",
			"trace:2:27: expected ',' or ')' after argument 1 of ioctl, found \"}) = 0\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []Options{{}, {DecodeArgs: noCall}, {DecodePositions: evenArgs}, {DecodeNone: true}} {
				rd := newReaderSize(strings.NewReader(tc.in), "trace", opt, 2*sniffSize)
				var err error
				for err == nil {
					err = rd.Skip()
				}
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("%+v: got %v, want a *parser.Error", opt, err)
				}
				if got := pe.Error(); got != tc.want {
					t.Errorf("%+v: error\n got: %s\nwant: %s", opt, got, tc.want)
				}
			}
		})
	}
}

// TestOverlapCountsCallsBetweenHalves: a call cut in two is numbered
// where it completes, and Overlap counts the events that completed
// between its halves (those just before it); a call on one line has 0.
func TestOverlapCountsCallsBetweenHalves(t *testing.T) {
	in := "100 write(3, \"a\", 1) = 1\n" +
		"100 fsync(3 <unfinished ...>\n" +
		"101 write(4, \"b\", 1) = 1\n" +
		"102 close(5 <unfinished ...>\n" +
		"101 write(4, \"c\", 1) = 1\n" +
		"100 <... fsync resumed>) = 0\n" +
		"102 <... close resumed>) = 0\n" +
		"100 exit_group(0) = ?\n"
	evs, _, err := readEvents(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"write 1": 0, "write 3": 0, "write 5": 0, "fsync 2": 2, "close 4": 2, "exit_group 8": 0}
	got := map[string]int{}
	for i, ev := range evs {
		if ev.Seq != i {
			t.Errorf("event %d has Seq %d", i, ev.Seq)
		}
		got[fmt.Sprintf("%s %d", ev.Name, ev.Pos.Line)] = ev.Overlap
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Overlap by call and first line (-want +got):\n%s", diff)
	}
}
