package model_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// BenchmarkSettledFiles replays a files-settled trace (each file created,
// written, fsynced and its directory fsynced) through two models that
// share one model.Shared and retire files, as check's do, with no rule
// observing: what the models alone cost a settled file. The events are
// parsed once, outside the timer.
func BenchmarkSettledFiles(b *testing.B) {
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
		shared := new(model.Shared)
		ms := []*model.Model{
			model.New(model.Options{Persistence: model.Posix, Retire: true, Shared: shared, PinsOnly: true}),
			model.New(model.Options{Persistence: model.Ext4, Retire: true, Shared: shared, PinsOnly: true}),
		}
		for _, ev := range evs {
			for _, m := range ms {
				m.Apply(ev)
			}
		}
		if n := ms[1].Retired(); n < files-1000 {
			b.Fatalf("%d inodes retired, want at least %d", n, files-1000)
		}
		shared.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/files, "ns/file")
}
