package parser

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxTrace and maxLine bound the inputs of FuzzTrace and FuzzLine (and the
// seeds are cut to fit). The fuzzer minimises every new input it finds,
// and its minimiser runs an input of n bytes up to n²/2 times: on the 64
// KiB seeds FuzzTrace once had, that took the 60 s limit per input, with
// no executions counted meanwhile, and a run that ended during it failed
// with "context deadline exceeded". Nothing the parser does needs a long
// input to reach: the line limit has its own tests.
const (
	maxTrace = 512
	maxLine  = 1024
)

// seedTraces returns the committed fixture traces and the recorded strace
// forms.
func seedTraces(f *testing.F) [][]byte { return loadSeedTraces(f.Fatal) }

// loadSeedTraces is seedTraces, failing through fatal.
func loadSeedTraces(fatal func(...any)) [][]byte {
	var files []string
	for _, g := range []string{"../fixtures/traces/*/*.strace", "../fixtures/arch/*.strace", "../fixtures/arch/i386/*.strace", "testdata/forms/*.strace"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	var out [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// seedLines adds lines of every committed trace and every form of the
// table tests: whole pieces of up to maxTrace bytes, cut at line ends, from
// the start and the middle of each trace (whole), or single lines.
func seedLines(f *testing.F, whole bool) {
	var forms [][2]string
	for _, tc := range formCases {
		forms = append(forms, [2]string{tc.old, tc.new})
	}
	for _, tc := range cutCases {
		forms = append(forms, [2]string{tc.cut, tc.whole})
	}
	for _, tc := range forms {
		for _, in := range tc {
			if whole {
				f.Add(piece([]byte(in), 0, maxTrace))
				continue
			}
			for _, line := range strings.Split(in, "\n") {
				f.Add([]byte(line))
			}
		}
	}
	for _, b := range seedTraces(f) {
		if whole {
			for _, at := range []int{0, len(b) / 2} {
				f.Add(piece(b, at, maxTrace))
			}
			continue
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			if i%7 == 0 && len(line) <= maxLine {
				f.Add(line)
			}
		}
	}
}

// piece returns about n bytes of b from the line that starts at or after
// at, ending at a line end.
func piece(b []byte, at, n int) []byte {
	if at > 0 {
		k := bytes.IndexByte(b[at:], '\n')
		if k < 0 {
			return nil
		}
		at += k + 1
	}
	end := min(len(b), at+n)
	if k := bytes.LastIndexByte(b[at:end], '\n'); k >= 0 && end < len(b) {
		end = at + k + 1
	}
	return b[at:end]
}

// FuzzLine feeds one line at a time to the line parser: it may reject a
// line, never panic, and an error must carry a position inside the line.
func FuzzLine(f *testing.F) {
	seedLines(f, false)
	lp := lineParser{file: "fuzz", line: 1, names: map[string]string{}}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 || len(line) > maxLine {
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
// every data reference it returns. The trace is parsed from memory: a file
// per input cost more than parsing it. A second reading that skips every
// call's arguments (Options.DecodeArgs) must give the same events but for
// Args, whenever the full reading succeeds; so must a third that decodes
// only some positions (Options.DecodePositions), but for the positions it
// left out.
func FuzzTrace(f *testing.F) {
	seedLines(f, true)
	f.Fuzz(func(t *testing.T, trace []byte) {
		if len(trace) > maxTrace {
			return
		}
		full, fw, ferr := readEvents(bytes.NewReader(trace), nil)
		var pe *Error
		if ferr != nil && !errors.As(ferr, &pe) {
			t.Fatalf("error is not a *parser.Error: %v", ferr)
		}
		d := NewDataReader()
		d.setSource("trace", bytes.NewReader(trace))
		for _, ev := range full {
			for i := range ev.Args {
				if a := &ev.Args[i]; a.Kind == ValString {
					if a.Data.Off < 0 || a.Data.Off+int64(a.Data.Len) > int64(len(trace)) {
						t.Fatalf("data reference %+v outside the %d-byte trace", a.Data, len(trace))
					}
					d.Bytes(a.Data, 1<<20)
				}
			}
		}
		if ferr != nil {
			return
		}
		skipped, sw, serr := readEvents(bytes.NewReader(trace), noCall)
		if serr != nil {
			t.Fatalf("the full reading succeeds, the one without arguments fails: %v", serr)
		}
		if diff := cmp.Diff(fw, sw); diff != "" {
			t.Fatalf("warnings (-full +skipped):\n%s", diff)
		}
		if diff := sameWithoutArgs(full, skipped, noCall); diff != "" {
			t.Fatalf("events (-full +skipped):\n%s", diff)
		}
		part, pw, perr := readPositions(bytes.NewReader(trace), evenArgs)
		if perr != nil {
			t.Fatalf("the full reading succeeds, the one of some positions fails: %v", perr)
		}
		if diff := cmp.Diff(fw, pw); diff != "" {
			t.Fatalf("warnings (-full +positions):\n%s", diff)
		}
		if diff := samePositions(full, part, evenArgs); diff != "" {
			t.Fatal(diff)
		}
	})
}
