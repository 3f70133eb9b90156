package parser

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readEvents reads a whole trace, with the arguments of every call (when
// decode is nil) or of the calls decode keeps, and the warnings.
func readEvents(r io.Reader, decode func(string) bool) ([]Event, []string, error) {
	var warns []string
	rd := newReaderSize(r, "trace", Options{DecodeArgs: decode, Warn: func(p Pos, m string) { warns = append(warns, p.String()+": "+m) }}, 2*sniffSize)
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
	full = append([]Event(nil), full...)
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

func noCall(string) bool { return false }

// TestDecodeArgsSkipsOnly: on every committed trace, reading without
// arguments gives the same events, warnings and errors, but for Args.
func TestDecodeArgsSkipsOnly(t *testing.T) {
	var files []string
	for _, g := range []string{"../fixtures/traces/*/*.strace", "../fixtures/traces/*/ff-ttt/trace.*", "testdata/forms/*.strace"} {
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
			if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
				t.Errorf("%s: errors %v and %v", name, ferr, serr)
			}
			if diff := cmp.Diff(fw, sw); diff != "" {
				t.Errorf("%s: warnings (-full +skipped):\n%s", name, diff)
			}
			if diff := sameWithoutArgs(full, skipped, keep); diff != "" {
				t.Errorf("%s: events (-full +skipped):\n%s", name, diff)
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
