package parser

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// seedLines adds the first lines of every committed fixture trace.
func seedLines(f *testing.F, whole bool) {
	files, _ := filepath.Glob("../fixtures/traces/*/*.strace")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if whole {
			if len(b) > 64<<10 {
				b = b[:64<<10]
			}
			f.Add(b)
			continue
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			if i%7 == 0 && len(line) < 4096 {
				f.Add(line)
			}
		}
	}
}

// FuzzLine feeds one line at a time to the line parser: it may reject a
// line, never panic, and an error must carry a position inside the line.
func FuzzLine(f *testing.F) {
	seedLines(f, false)
	lp := lineParser{file: "fuzz", line: 1, names: map[string]string{}}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		lp.text, lp.ev, lp.splitAt = line, &Event{}, len(line)+1
		_, _, err := lp.parse()
		if err != nil && (err.Pos.Col < 1 || err.Pos.Col > len(line)+1) {
			t.Fatalf("error column %d outside a %d-byte line: %v", err.Pos.Col, len(line), err)
		}
	})
}

// FuzzTrace feeds whole traces to the reader, joining and all, and decodes
// every data reference it returns.
func FuzzTrace(f *testing.F) {
	seedLines(f, true)
	f.Fuzz(func(t *testing.T, trace []byte) {
		name := filepath.Join(t.TempDir(), "trace")
		if err := os.WriteFile(name, trace, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		d := NewDataReader()
		defer d.Close()
		for n := 0; n < 100000; n++ {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var pe *Error
			if err != nil {
				if !errors.As(err, &pe) {
					t.Fatalf("error is not a *parser.Error: %v", err)
				}
				return
			}
			for i := range ev.Args {
				if a := &ev.Args[i]; a.Kind == ValString {
					if a.Data.Off < 0 || a.Data.Off+int64(a.Data.Len) > int64(len(trace)) {
						t.Fatalf("data reference %+v outside the %d-byte trace", a.Data, len(trace))
					}
					d.Bytes(a.Data, 1<<20)
				}
			}
		}
	})
}
