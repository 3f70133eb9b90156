package crashsim_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/parser"
)

// BenchmarkFileSetMemory is what a check keeps per file: the live heap
// when the last line of a trace of many files has been read (after a
// collection), less the live heap before the check, over the files. A
// settled file (gentrace -shape files-settled) should cost almost
// nothing; an unsynced one keeps its state and its two findings.
//
//	go test . -run '^$' -bench FileSetMemory -benchtime 1x
//
// The traces hold 20,000 files, or $CRASHSIM_BENCH_FILES.
func BenchmarkFileSetMemory(b *testing.B) {
	files := 20000
	if v, err := strconv.Atoi(os.Getenv("CRASHSIM_BENCH_FILES")); err == nil && v > 0 {
		files = v
	}
	for _, shape := range []string{"files-settled", "files-unsynced"} {
		b.Run(shape, func(b *testing.B) {
			trace := filepath.Join(b.TempDir(), shape+".strace")
			f, err := os.Create(trace)
			if err != nil {
				b.Fatal(err)
			}
			_, err = gentrace.WriteFileSet(f, gentrace.FileSetOptions{Files: files, Seed: 1, Settled: shape == "files-settled"})
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				b.Fatal(err)
			}
			fi, err := os.Stat(trace)
			if err != nil {
				b.Fatal(err)
			}
			var atEnd uint64
			c := crashsim.Check{Inputs: crashsim.Inputs{
				Traces: []string{trace},
				Open: func(name string, opt parser.Options) (parser.Stream, error) {
					s, err := parser.Open(name, opt)
					if err != nil {
						return nil, err
					}
					return &heapAtEnd{Stream: s, live: &atEnd}, nil
				},
			}}
			b.SetBytes(fi.Size())
			var perFile float64
			for b.Loop() {
				atEnd = 0
				before := liveHeap()
				res, err := c.Run()
				if err != nil {
					b.Fatal(err)
				}
				if res.Summary.Files != files {
					b.Fatalf("%d files in scope, want %d", res.Summary.Files, files)
				}
				res.Close()
				if atEnd == 0 {
					b.Fatal("the check never read the trace to its end")
				}
				perFile = (float64(atEnd) - float64(before)) / float64(files)
			}
			b.ReportMetric(perFile, "live-B/file")
		})
	}
}

// heapAtEnd notes the live heap when its stream ends.
type heapAtEnd struct {
	parser.Stream
	live *uint64
}

func (h *heapAtEnd) Next() (*parser.Event, error) {
	ev, err := h.Stream.Next()
	if errors.Is(err, io.EOF) {
		*h.live = max(*h.live, liveHeap())
	}
	return ev, err
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
