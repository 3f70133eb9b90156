package check

import (
	"bytes"
	"errors"
	"io"
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
	var buf bytes.Buffer
	if _, err := gentrace.WriteFileSet(&buf, gentrace.FileSetOptions{Files: files, Seed: 1, Settled: true}); err != nil {
		b.Fatal(err)
	}
	r := parser.NewReader(&buf, "settled.strace", parser.Options{DecodePositions: model.ArgPositions})
	var evs []*parser.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, ev)
	}
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
