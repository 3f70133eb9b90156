package model

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/parser"
)

// traceInput is a trace a model test replays, with the listing it is
// checked with (nil: none).
type traceInput struct {
	name    string
	open    func() (parser.Stream, error)
	listing *Listing
}

// options are the model options of the input's replay under p: its
// listing's, when it has one.
func (in traceInput) options(p Persistence) Options {
	opt := Options{Persistence: p}
	if in.listing != nil {
		opt.Existed, opt.Cwd, opt.FDs = in.listing.Existed, in.listing.Cwd, in.listing.FDs
	}
	return opt
}

// fixtureInputs are every fixture trace, once alone and once more with its
// initial.list when it has one.
func fixtureInputs(t *testing.T) []traceInput {
	t.Helper()
	traces := fixtures.Traces(t, "../fixtures/traces")
	var inputs []traceInput
	for _, tr := range traces {
		open := func() (parser.Stream, error) { return parser.Open(tr, parser.Options{}) }
		inputs = append(inputs, traceInput{tr, open, nil})
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(tr), "initial.list")); err == nil {
			l, err := ReadInitial(bytes.NewReader(b), "initial.list")
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, traceInput{tr + " with initial.list", open, l})
		}
	}
	return inputs
}

// testModels are the persistence models the exhaustive tests replay every
// input under: all of them, or under -short posix alone, the model with
// the most states.
func testModels() []Persistence {
	if testing.Short() {
		return []Persistence{Posix}
	}
	return Persistences
}

// traceEvents parses trace, a test's strace text named name, into its
// events; a line that does not parse fails the test.
func traceEvents(tb testing.TB, trace, name string) []*parser.Event {
	tb.Helper()
	r := parser.NewReader(strings.NewReader(trace), name, parser.Options{})
	var evs []*parser.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			tb.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

// TraceEvents is traceEvents for the package's external tests
// (package model_test), which cannot call an unexported helper.
var TraceEvents = traceEvents
