package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// BenchmarkRunReal is the model side of check alone: both persistence
// models, the rules and the blind-spot watcher over the events of a
// real-shaped trace (gentrace -shape real) parsed beforehand, so that its
// time is what the modelling goroutine of `crashsim check` costs. MB/s
// is of trace text.
func BenchmarkRunReal(b *testing.B) {
	ts, err := gentrace.LoadTemplates("../fixtures/traces", 32)
	if err != nil {
		b.Fatal(err)
	}
	name := filepath.Join(b.TempDir(), "real.strace")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gentrace.WriteReal(f, ts, gentrace.RealOptions{Bytes: 8 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	evs := readAll(b, name)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(&sliceStream{evs: evs}, Options{LikelyVolatile: LikelyVolatile})
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary.Events != len(evs) {
			b.Fatalf("%d events checked of %d", res.Summary.Events, len(evs))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}
