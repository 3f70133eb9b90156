package parser

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// BenchmarkParse reads a generated 64 MiB -f -ttt -y -xx trace whose lines
// carry long write data (about 1.3 KB a line, where parsing is cheap per
// byte). scripts/parse-bench.sh compares the same path with grep on a 1 GB
// trace.
func BenchmarkParse(b *testing.B) {
	name := filepath.Join(b.TempDir(), "big.strace")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gentrace.Write(f, gentrace.Options{Bytes: 64 << 20, Seed: 1, MaxData: 4096}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	benchParse(b, name, Options{})
}

// BenchParse is benchParse, for the benchmarks in package parser_test.
var BenchParse = benchParse

// AnnotationEnd is annotationEnd, for the floor scanner of package
// parser_test (floor_test.go), which finds a -y annotation's end as the
// parser's own scan does.
var AnnotationEnd = annotationEnd

// StringEnd is scanString, for the floor scanner of package parser_test:
// the end of the quoted string that opens at b[i], or -1.
var StringEnd = scanString

// benchParse reads trace name with opt (through Pipeline when pipe) b.N
// times.
func benchParse(b *testing.B, name string, opt Options, pipe ...bool) {
	benchRead(b, name, func() (Stream, error) {
		open := func(opt Options) (Stream, error) { return Open(name, opt) }
		if len(pipe) > 0 && pipe[0] {
			return Pipeline(opt, open)
		}
		return open(opt)
	}, func(s Stream) error { _, err := s.Next(); return err })
}

// BenchSkip is benchParse counting the events with Skip, as events
// --format count does, for the benchmarks in package parser_test.
func BenchSkip(b *testing.B, name string, opt Options) {
	benchRead(b, name, func() (Stream, error) { return Open(name, opt) }, Skip)
}

// benchRead opens trace name with open b.N times and takes events from it
// with next until the end, reporting bytes and time per event.
func benchRead(b *testing.B, name string, open func() (Stream, error), next func(Stream) error) {
	fi, _ := os.Stat(name)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	events := 0
	for i := 0; i < b.N; i++ {
		s, err := open()
		if err != nil {
			b.Fatal(err)
		}
		for {
			err := next(s)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	// On a shared machine the wall time moves with the load; the CPU time
	// the process spent (every goroutine, the collector's too) much less.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(events), "cpu-ns/event")
}
