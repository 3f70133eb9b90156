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

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// readEvents reads a whole trace, with the arguments of every call (when
// decode is nil) or of the calls decode keeps, and the warnings.
func readEvents(r io.Reader, decode func(string) bool) ([]Event, []string, error) {
	return readEventsOpt(r, Options{DecodeArgs: decode})
}

// readPositions is readEvents decoding the argument positions set keeps.
func readPositions(r io.Reader, set func(string) ArgSet) ([]Event, []string, error) {
	return readEventsOpt(r, Options{DecodePositions: set})
}

func readEventsOpt(r io.Reader, opt Options) ([]Event, []string, error) {
	var warns []string
	rd := newReaderSize(r, "trace", Options{DecodeArgs: opt.DecodeArgs, DecodePositions: opt.DecodePositions, Warn: func(p Pos, m string) { warns = append(warns, p.String()+": "+m) }}, 2*sniffSize)
	var evs []Event
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return evs, warns, nil
		}
		if err != nil {
			return evs, warns, err
		}
		evs = append(evs, *ev)
	}
}

// sameWithoutArgs reports how a reading that skipped arguments differs
// from a full one, other than in the Args of the calls keep does not keep
// (the reader may still decode some: the last line without a newline).
func sameWithoutArgs(full, skipped []Event, keep func(string) bool) string {
	full = unreadSpawners(full, skipped)
	skipped = append([]Event(nil), skipped...)
	for _, evs := range [][]Event{full, skipped} {
		for i := range evs {
			if evs[i].Kind == KindSyscall && !keep(evs[i].Name) || len(evs[i].Args) == 0 {
				evs[i].Args = nil
			}
		}
	}
	return cmp.Diff(full, skipped)
}

// unreadSpawners clears, in a copy of full, the Spawner stamps a partial
// reading did not give: a stamp comes from the flags of a call that makes
// a process, which that reading may not have decoded (Reader.noteForking).
// A stamp the partial reading gave must be the full reading's.
func unreadSpawners(full, part []Event) []Event {
	out := append([]Event(nil), full...)
	for i := range out {
		if i >= len(part) || out[i].Extra == nil || out[i].Extra.Spawner == 0 {
			continue
		}
		if pid, _, _ := part[i].Spawner(); pid != 0 {
			continue
		}
		x := *out[i].Extra
		x.Spawner, x.SpawnFlags, x.SpawnAlso = 0, 0, nil
		out[i].Extra = &x
		if cmp.Equal(x, EventExtra{}, cmpopts.EquateEmpty()) {
			out[i].Extra = nil
		}
	}
	return out
}

func noCall(string) bool { return false }

// evenArgs keeps arguments 0, 2 and 4 of every call.
func evenArgs(string) ArgSet { return ArgPositions(0, 2, 4) }

// firstArg keeps argument 0 of every call.
func firstArg(string) ArgSet { return ArgPositions(0) }

// samePositions reports how a reading that decoded only the positions set
// keeps differs from a full one: outside Args not at all; in Args, every
// position kept must equal the full reading's, every other one must be
// ValSkipped (or, where the reader decoded it anyway, equal), and only
// positions not kept may be missing at the end.
func samePositions(full, part []Event, set func(string) ArgSet) string {
	if len(full) != len(part) {
		return fmt.Sprintf("%d events, %d with some positions", len(full), len(part))
	}
	full = unreadSpawners(full, part)
	for i := range full {
		f, p := full[i], part[i]
		if len(p.Args) > len(f.Args) {
			return fmt.Sprintf("event %d (%s): %d arguments, %d in full", i, f.Name, len(p.Args), len(f.Args))
		}
		keep := set(f.Name)
		for k := range f.Args {
			switch {
			case k >= len(p.Args):
				if keep.Has(k) {
					return fmt.Sprintf("event %d (%s): argument %d kept but missing", i, f.Name, k)
				}
			case p.Args[k].Kind == ValSkipped && !keep.Has(k):
			default:
				if d := cmp.Diff(f.Args[k], p.Args[k]); d != "" {
					return fmt.Sprintf("event %d (%s) argument %d (-full +part):\n%s", i, f.Name, k, d)
				}
			}
		}
		f.Args, p.Args = nil, nil
		if d := cmp.Diff(f, p); d != "" {
			return fmt.Sprintf("event %d (-full +part):\n%s", i, d)
		}
	}
	return ""
}

// sameEnds fails t unless a partial reading of trace name (what) ended
// with the error and gave the warnings the full reading did.
func sameEnds[W any](t *testing.T, name, what string, ferr, err error, fw, w W) {
	t.Helper()
	if (ferr == nil) != (err == nil) || ferr != nil && ferr.Error() != err.Error() {
		t.Errorf("%s: errors %v and %v", name, ferr, err)
	}
	if diff := cmp.Diff(fw, w); diff != "" {
		t.Errorf("%s: warnings (-full +%s):\n%s", name, what, diff)
	}
}

// TestDecodeArgsSkipsOnly: on every committed trace, reading without
// arguments gives the same events, warnings and errors, but for Args.
func TestDecodeArgsSkipsOnly(t *testing.T) {
	files := fixtures.Traces(t, "../fixtures/traces")
	for _, g := range []string{"../fixtures/traces/*/ff-ttt/trace.*", "testdata/forms/*.strace", "testdata/kstack/*.strace"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d traces", len(files))
	}
	keepSome := func(name string) bool { return name == "openat" || name == "write" || name == "clone" }
	for _, name := range files {
		b := mustRead(t, name)
		full, fw, ferr := readEvents(bytes.NewReader(b), nil)
		for _, keep := range []func(string) bool{noCall, keepSome} {
			skipped, sw, serr := readEvents(bytes.NewReader(b), keep)
			sameEnds(t, name, "skipped", ferr, serr, fw, sw)
			if diff := sameWithoutArgs(full, skipped, keep); diff != "" {
				t.Errorf("%s: events (-full +skipped):\n%s", name, diff)
			}
		}
		// evenArgs, and firstArg, which passes every call's arguments
		// after the first whole (argsAndReturnInto's scanRest).
		for _, set := range []func(string) ArgSet{evenArgs, firstArg} {
			part, pw, perr := readPositions(bytes.NewReader(b), set)
			sameEnds(t, name, "positions", ferr, perr, fw, pw)
			if diff := samePositions(full, part, set); diff != "" {
				t.Errorf("%s: %s", name, diff)
			}
		}
		if len(full) == 0 {
			t.Errorf("%s: no events", name)
		}
	}
}

func TestDecodeArgsTable(t *testing.T) {
	for _, tc := range formCases {
		for _, in := range []string{tc.old, tc.new} {
			full, fw, ferr := readEvents(bytes.NewReader([]byte(in)), nil)
			skipped, sw, serr := readEvents(bytes.NewReader([]byte(in)), noCall)
			if (ferr == nil) != (serr == nil) || cmp.Diff(fw, sw) != "" {
				t.Errorf("%s: %v %v %q %q", tc.name, ferr, serr, fw, sw)
			}
			if diff := sameWithoutArgs(full, skipped, noCall); diff != "" {
				t.Errorf("%s: %q: (-full +skipped):\n%s", tc.name, in, diff)
			}
			part, pw, perr := readPositions(bytes.NewReader([]byte(in)), evenArgs)
			if (ferr == nil) != (perr == nil) || cmp.Diff(fw, pw) != "" {
				t.Errorf("%s: %v %v %q %q", tc.name, ferr, perr, fw, pw)
			}
			if diff := samePositions(full, part, evenArgs); diff != "" {
				t.Errorf("%s: %q: %s", tc.name, in, diff)
			}
		}
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A comment where a value belongs is a strace 4.x shape the reader keeps
// for the hint of a later unreadable line: skipping a call's arguments
// must not lose it (it did in events --format count, which skips every
// call: a third-party perl trace lost "line 1 has [/* 44 vars */]").
func TestSkippedCallsKeepOldShapeHint(t *testing.T) {
	for _, first := range []string{
		`execve("/usr/bin/perl", ["perl", "t.pl"], [/* 44 vars */]) = 0`,
		`writev(3, [/* 2 entries */], 2) = 4`,
		`ioctl(1, /* 22 entries */) = 0`,
		`writev(3, [{"a", 1}, /* 2 entries */], 2) = 4`,
	} {
		// Any line the reader cannot read; not a write cut by the
		// program's output, which has a hint of its own.
		trace := "1 " + first + "\n1 getpid() = 1\n1 close(6) 0\n1 close(7) = 0\n"
		_, _, ferr := readEvents(strings.NewReader(trace), nil)
		_, _, serr := readEvents(strings.NewReader(trace), noCall)
		if ferr == nil || serr == nil {
			t.Fatalf("%s: no error for the cut line: %v, %v", first, ferr, serr)
		}
		var fe, se *Error
		if !errors.As(ferr, &fe) || !errors.As(serr, &se) {
			t.Fatalf("%s: errors are not *Error: %T %T", first, ferr, serr)
		}
		if !strings.Contains(fe.Detail(), "before 5.x") {
			t.Errorf("%s: the full reading gives no hint: %s", first, fe.Detail())
		}
		if fe.Detail() != se.Detail() {
			t.Errorf("%s: skipping changes the error:\nfull:    %s\nskipped: %s", first, fe.Detail(), se.Detail())
		}
	}
}
