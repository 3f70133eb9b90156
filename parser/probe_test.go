package parser

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestProbeTrace: the probe says how committed traces were recorded, and
// reads no more than the head of a long one.
func TestProbeTrace(t *testing.T) {
	for _, tc := range []struct {
		trace string
		want  Probe
	}{
		{"testdata/forms/f-k.strace", Probe{Stacks: true, PIDs: true, FirstPID: 9132}},
		{"../fixtures/traces/cp/nof.strace", Probe{}},
		{"testdata/forms/f-ttt-n-i.strace", Probe{PIDs: true, Times: true, FirstPID: 17120}},
	} {
		got, err := ProbeTrace(tc.trace)
		if err != nil {
			t.Fatal(err)
		}
		if got.Events == 0 {
			t.Errorf("%s: no event read", tc.trace)
		}
		got.Events = 0
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: probe (-want +got):\n%s", tc.trace, diff)
		}
	}

	// A stack past the head is not seen: the probe costs the same on any
	// size of trace.
	long := "7 write(1, \"a\", 1) = 1\n"
	text := strings.Repeat(long, 2*probeBytes/len(long)) + "7 close(1) = 0\n > /lib/libc.so.6(close+0x1) [0x1]\n"
	name := filepath.Join(t.TempDir(), "late-stack")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ProbeTrace(name)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stacks || got.Events == 0 || got.Events > probeBytes/len(long) {
		t.Errorf("probe of a long trace = %+v", got)
	}

	// A bad line ends the probe with what came before it.
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("5 1.5 close(3) = 0\n5 1.6 close(\n"), 0o644)
	if got, err := ProbeTrace(bad); err != nil || got.FirstPID != 5 || !got.Times {
		t.Errorf("probe of a trace with a bad line = %+v, %v", got, err)
	}
	if _, err := ProbeTrace(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("no error for a trace that is not there")
	}
}

// TestProbeLongFirstLine: a first line longer than the head (an execve
// whose arguments, escaped by -xx, pass 256 KiB) is read whole, with the
// stack under it, and the head goes on past it no further than it would
// from the start. Cut at 256 KiB, the probe saw no event, and the tracer
// took a traced program for one strace never started.
func TestProbeLongFirstLine(t *testing.T) {
	execve := "41 1700000000.000001 execve(\"/bin/sh\", [\"sh\", \"" + strings.Repeat(`\x61`, probeBytes) + "\"], 0x1 /* 1 var */) = 0\n" +
		" > /lib/libc.so.6(execve+0x1) [0x1]\n"
	long := "41 1700000000.000002 write(1, \"a\", 1) = 1\n"
	text := execve + strings.Repeat(long, 2*probeBytes/len(long))
	name := filepath.Join(t.TempDir(), "long-execve")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ProbeTrace(name)
	if err != nil {
		t.Fatal(err)
	}
	if got.FirstPID != 41 || !got.Stacks || !got.PIDs || !got.Times {
		t.Errorf("probe of a trace with a long first line = %+v", got)
	}
	if got.Events < 2 || got.Events > 1+probeBytes/len(long) {
		t.Errorf("probe read %d events, want the execve and at most %d past it", got.Events, probeBytes/len(long))
	}
}

// TestHeadReader: the head is probeBytes, or a longer first line and
// probeBytes past it, whatever sizes the reads come in.
func TestHeadReader(t *testing.T) {
	short := strings.Repeat("x", 100) + "\n"
	long := strings.Repeat("y", probeBytes+100) + "\n"
	rest := strings.Repeat("z\n", probeBytes)
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"short first line", short + rest, probeBytes},
		{"long first line", long + rest, len(long) + probeBytes},
		{"first line ends at the limit", strings.Repeat("y", probeBytes-1) + "\n" + rest, probeBytes},
		{"first line ends just past it", strings.Repeat("y", probeBytes) + "\n" + rest, probeBytes + 1 + probeBytes},
		{"no newline", strings.Repeat("y", 2*probeBytes), 2 * probeBytes},
		{"shorter than the head", short, len(short)},
	} {
		for _, rd := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"bytewise", iotest.OneByteReader},
			{"halves", iotest.HalfReader},
		} {
			got, err := io.ReadAll(&headReader{r: rd.wrap(strings.NewReader(tc.text)), limit: probeBytes, first: true})
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.text[:tc.want]; string(got) != want {
				t.Errorf("%s, %s reads: read %d bytes, want %d", tc.name, rd.name, len(got), len(want))
			}
		}
	}
}

// TestProbeFF: an -ff set's members carry their pid in the file name.
func TestProbeFF(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.41"), []byte("1700000000.000001 execve(\"/bin/sh\", [], 0x1 /* 1 var */) = 0\n1700000000.000003 exit_group(0) = ?\n1700000000.000004 +++ exited with 0 +++\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.42"), []byte("1700000000.000002 close(3) = 0\n"), 0o644)
	got, err := ProbeTrace(filepath.Join(dir, "t"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Probe{PIDs: true, Times: true, FirstPID: 41, Events: 4}); got != want {
		t.Errorf("probe = %+v, want %+v", got, want)
	}
}

func TestExitOf(t *testing.T) {
	long := "100 1.0 write(3<\\x2f>, \"" + strings.Repeat(`\x61`, 100_000) + "\", 100000) = 100000\n"
	for _, tc := range []struct {
		name, trace string
		pid         int
		want        Exit
	}{
		{"exited", "100 1.0 execve(\"x\", [], 0x1 /* 1 var */) = 0\n100 1.1 +++ exited with 7 +++\n", 100,
			Exit{Found: true, Code: 7}},
		{"another pid's exit comes last", "100 1.0 execve() = 0\n100 1.1 +++ exited with 0 +++\n101 1.2 +++ exited with 9 +++\n", 100,
			Exit{Found: true, Code: 0}},
		{"killed with core", "100 1.0 execve() = 0\n100 1.1 +++ killed by SIGSEGV (core dumped) +++\n", 100,
			Exit{Found: true, Code: -1, Signal: "SIGSEGV", CoreDumped: true}},
		{"after a long line", "100 1.0 execve() = 0\n" + long + "100 1.1 +++ killed by SIGKILL +++\n", 100,
			Exit{Found: true, Code: -1, Signal: "SIGKILL"}},
		{"pid brackets and -Y", "[pid 100<sh>] 1.1 +++ exited with 2 +++\n", 100,
			Exit{Found: true, Code: 2}},
		{"no pid column", "execve() = 0\n+++ exited with 4 +++\n", 0,
			Exit{Found: true, Code: 4}},
		{"pid prefix not confused", "10 1.0 execve() = 0\n100 1.1 +++ exited with 5 +++\n", 10,
			Exit{}},
		{"not an exit line", "100 1.0 write(1, \"+++ exited with 3 +++\", 21) = 21\n", 100,
			Exit{}},
		{"cut short", "100 1.0 execve() = 0\n100 1.1 write(1, \"a\", 1", 100,
			Exit{}},
		{"empty", "", 100, Exit{}},
		{"far from the end", "100 execve() = 0\n100 +++ exited with 3 +++\n" + strings.Repeat("101 write(1, \"\"..., 9) = 9\n", 20_000), 100,
			Exit{Found: true, Code: 3}},
	} {
		p := filepath.Join(t.TempDir(), "t")
		if err := os.WriteFile(p, []byte(tc.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ExitOf(p, tc.pid)
		if err != nil || got != tc.want {
			t.Errorf("%s: ExitOf = %+v, %v, want %+v", tc.name, got, err, tc.want)
		}
	}
}

// TestExitOfBlocks puts the exit line at every offset around the edges
// of the blocks ExitOf reads backwards.
func TestExitOfBlocks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t")
	first := "100 execve() = 0\n"
	status := "100 +++ exited with 4 +++\n"
	for _, total := range []int{exitBlock, 2 * exitBlock} {
		for d := -40; d <= 40; d++ {
			fill := total + d - len(first) - len(status)
			pad := strings.Repeat("x", fill-1) + "\n"
			for _, trace := range []string{first + pad + status, first + status + pad} {
				if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := ExitOf(p, 100)
				if err != nil || got != (Exit{Found: true, Code: 4}) {
					t.Fatalf("size %d, status at %d: ExitOf = %+v, %v", len(trace), strings.Index(trace, "+++"), got, err)
				}
			}
		}
	}
}
