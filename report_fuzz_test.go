package crashsim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// reportFuzzMax is the longest trace FuzzReport reads: each input is
// checked under every model and replayed four times.
const reportFuzzMax = 4 << 10

// FuzzReport takes a trace from the check to every view a user reads:
// the report in each format (text, JSON, SARIF), the HTML page of the
// replay, and the crash states as text and as JSON, every path at every
// point. None may fail on a trace the check read, and what is meant for a
// program must be one valid JSON document in UTF-8, whatever bytes the
// trace's paths and strings hold.
//
//	go test . -run '^$' -fuzz '^FuzzReport$' -fuzztime 5m
func FuzzReport(f *testing.F) {
	files, _ := filepath.Glob("fixtures/traces/*/f-ttt-y-xx.strace")
	apps, _ := filepath.Glob("fixtures/apps/*/f-ttt-y-xx.strace")
	files = append(files, apps...)
	if len(files) == 0 {
		f.Fatal("no fixture traces")
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(fixtures.ModelLines(b, reportFuzzMax))
	}
	f.Add([]byte("1 openat(AT_FDCWD, \"/w/\\x00\\xff\\\"<b>\", O_WRONLY|O_CREAT, 0644) = 3</w/\\x00\\xff\\\"<b>>\n1 write(3, \"\\xe2\\x80\\xae\", 3) = 3\n"))
	f.Fuzz(func(t *testing.T, trace []byte) {
		if len(trace) > reportFuzzMax {
			return
		}
		name := filepath.Join(t.TempDir(), "fuzz.strace")
		if err := os.WriteFile(name, trace, 0o644); err != nil {
			t.Fatal(err)
		}
		in := crashsim.Inputs{Traces: []string{name}}
		c := crashsim.Check{Inputs: in, Models: model.Persistences}
		res, err := c.Run()
		if err != nil {
			var ie *crashsim.InputError
			if errors.As(err, &ie) {
				return // a trace check cannot read: its own tests cover the error
			}
			t.Fatalf("check: %v", err)
		}
		defer res.Close()
		for _, format := range []string{"text", "json", "sarif"} {
			var out bytes.Buffer
			if err := report.Render(&out, format, res.Result, report.Options{}); err != nil {
				t.Fatalf("%s report: %v", format, err)
			}
			if format != "text" {
				validJSON(t, format+" report", out.Bytes())
			}
		}
		r := crashsim.Replay{Inputs: in, Persistence: model.Posix}
		if err := r.HTML(io.Discard, report.HTMLMeta{Command: "check", Trace: name, Model: "posix"}, res.Result); err != nil {
			// The page prints every call, so it decodes every argument,
			// where the check passes over those of calls the model never
			// reads with a scan of their brackets and strings: a line
			// whose arguments break strace's grammar otherwise is bad
			// input to the page alone. Its error is then the full
			// reading's, at the same line and column.
			var pe *parser.Error
			if full := fullReadingError(name); full == nil || !errors.As(err, &pe) || pe.Error() != full.Error() {
				t.Fatalf("HTML page: %v (a full reading of the trace: %v)", err, full)
			}
			return
		}
		for _, asJSON := range []bool{false, true} {
			var out, errOut bytes.Buffer
			if _, err := r.WriteTimeline(&out, &errOut, report.StatesOptions{Trace: name, Model: "posix", AllPaths: asJSON}, asJSON); err != nil {
				t.Fatalf("states (JSON %v): %v", asJSON, err)
			}
			if asJSON {
				validJSON(t, "states", out.Bytes())
			}
		}
	})
}

// fullReadingError is the error a reading of every argument of trace name
// ends in, or nil.
func fullReadingError(name string) error {
	s, err := parser.Open(name, parser.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		if _, err := s.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// validJSON fails the test unless b is one JSON document in UTF-8.
func validJSON(t *testing.T, what string, b []byte) {
	t.Helper()
	if !utf8.Valid(b) {
		t.Fatalf("the %s is not UTF-8", what)
	}
	if !json.Valid(b) {
		t.Fatalf("the %s is not valid JSON:\n%s", what, b)
	}
}
