package check

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// fuzzCheckMax is the longest trace FuzzCheck runs: the model's work
// grows with the pending operations, and short traces keep the fuzzer
// quick.
const fuzzCheckMax = 4 << 10

// fuzzCheckSeeds are the lines of each fixture recording that change what
// the model holds (opens, writes, syncs, names), up to a few dozen: the
// loader's reads and maps around them would only slow the fuzzer.
func fuzzCheckSeeds(tb testing.TB) [][]byte {
	var files []string
	for _, g := range []string{"../fixtures/traces/*/f-ttt-y-xx.strace", "../fixtures/traces/*/trace.strace", "../fixtures/apps/*/f-ttt-y-xx.strace"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Fatal("no fixture traces")
	}
	var seeds [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, fixtures.ModelLines(b, fuzzCheckMax))
	}
	return seeds
}

// FuzzCheck runs whatever trace parses through every persistence model
// and every rule, groups the findings into problems, and steps a timeline
// of crash states through it under each model, as check and states do:
// none of them may panic, whatever the trace holds (names reused, fds
// never opened, renames of a directory into itself, calls that failed).
// go test ./check -fuzz FuzzCheck.
func FuzzCheck(f *testing.F) {
	for _, s := range fuzzCheckSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, trace []byte) {
		if len(trace) > fuzzCheckMax {
			return
		}
		evs, err := eventsOf(parser.NewReader(bytes.NewReader(trace), "fuzz.strace", parser.Options{DecodePositions: model.ArgPositions}))
		if err != nil {
			return // check stops at a line it cannot read
		}
		res, err := Run(&sliceStream{evs: evs}, Options{Models: model.Persistences})
		if err != nil {
			t.Fatalf("check of a trace that parses failed: %v", err)
		}
		if _, err := Group(res); err != nil {
			t.Fatalf("grouping: %v", err)
		}
		res.Close()
		var scope Options
		for _, p := range model.Persistences {
			tl := model.NewTimeline(model.Options{Persistence: p}, scope.InScope, 64)
			for _, ev := range evs {
				tl.Step(ev)
			}
		}
	})
}
