package check

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// BenchmarkRunSettled is check's modelling goroutine alone on a
// files-settled trace (each file created, written, fsynced and its
// directory fsynced: no findings): both models, the rules and the
// watcher, over events parsed beforehand as crashsim check parses them.
func BenchmarkRunSettled(b *testing.B) {
	const files = 20000
	evs := settledEvents(b, files)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Run(&sliceStream{evs: evs}, Options{LikelyVolatile: LikelyVolatile})
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary.Files != files || res.Summary.Errors+res.Summary.Warnings != 0 {
			b.Fatalf("%+v, want %d files and no findings", res.Summary, files)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/files, "ns/file")
}

// BenchmarkApplySettled is the models alone on the trace of
// BenchmarkRunSettled, as Run makes them but with no rule or watcher
// observing: posix alone, then posix and ext4 (what Run applies). The
// difference is what a second model costs over one parse, the most one
// page-cache model under both could save.
func BenchmarkApplySettled(b *testing.B) {
	const files = 20000
	evs := settledEvents(b, files)
	for _, models := range [][]model.Persistence{{model.Posix}, {model.Posix, model.Ext4}} {
		b.Run(fmt.Sprint(models), func(b *testing.B) {
			for b.Loop() {
				shared := new(model.Shared)
				var ms []*model.Model
				for _, p := range models {
					ms = append(ms, model.New(model.Options{Persistence: p, Retire: retireModels, RetireBatch: retireBatch, Shared: shared, PinsOnly: true}))
				}
				for _, ev := range evs {
					for _, m := range ms {
						m.Apply(ev)
					}
				}
				shared.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/files, "ns/file")
		})
	}
}

// BenchmarkRunUnsynced is check's modelling goroutine on a
// files-unsynced trace (each file created and written, nothing synced:
// two findings a file), findings spilled as a command spills them: the
// rules' Finish is most of it. With its model asked ahead on the other
// CPUs (as Run does), and alone.
func BenchmarkRunUnsynced(b *testing.B) {
	const files = 20000
	evs := fileSetEvents(b, files, false)
	for _, mode := range []struct {
		name string
		from int
	}{{"ahead", aheadMin}, {"alone", math.MaxInt}} {
		b.Run(mode.name, func(b *testing.B) {
			defer func(n int) { aheadMin = n }(aheadMin)
			aheadMin = mode.from
			for b.Loop() {
				res, err := Run(&sliceStream{evs: evs}, Options{LikelyVolatile: LikelyVolatile, SpillAt: DefaultSpillAt})
				if err != nil {
					b.Fatal(err)
				}
				if res.Summary.Errors < files {
					b.Fatalf("%+v, want a finding for each of %d files", res.Summary, files)
				}
				res.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/files, "ns/file")
		})
	}
}

// settledEvents are the events of a files-settled trace of n files,
// parsed beforehand as crashsim check parses them.
func settledEvents(b *testing.B, n int) []*parser.Event {
	return fileSetEvents(b, n, true)
}

// fileSetEvents are the events of a file-set trace of n files, settled
// or not, parsed beforehand as crashsim check parses them.
func fileSetEvents(b *testing.B, n int, settled bool) []*parser.Event {
	var buf bytes.Buffer
	if _, err := gentrace.WriteFileSet(&buf, gentrace.FileSetOptions{Files: n, Seed: 1, Settled: settled}); err != nil {
		b.Fatal(err)
	}
	evs, err := eventsOf(parser.NewReader(&buf, "fileset.strace", parser.Options{DecodePositions: model.ArgPositions}))
	if err != nil {
		b.Fatal(err)
	}
	return evs
}
