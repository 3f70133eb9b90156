package crashsim_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
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
// The traces hold 20,000 files, or $CRASHSIM_BENCH_FILES. With
// $CRASHSIM_BENCH_HEAPPROFILE=PREFIX, the live heap at the end of each
// trace goes to the file PREFIX.SHAPE as a heap profile (one sample
// every 64 bytes allocated: slow): go tool pprof -sample_index=inuse_space
// -lines says what a file keeps and where it was allocated.
func BenchmarkFileSetMemory(b *testing.B) {
	files := 20000
	if v, err := strconv.Atoi(os.Getenv("CRASHSIM_BENCH_FILES")); err == nil && v > 0 {
		files = v
	}
	profile := os.Getenv("CRASHSIM_BENCH_HEAPPROFILE")
	if profile != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 64
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
			var profileErr error
			c := crashsim.Check{Inputs: crashsim.Inputs{
				Traces: []string{trace},
				Open: func(name string, opt parser.Options) (parser.Stream, error) {
					s, err := parser.Open(name, opt)
					if err != nil {
						return nil, err
					}
					h := &heapAtEnd{Stream: s, live: &atEnd, err: &profileErr}
					if profile != "" {
						h.profile = profile + "." + shape
					}
					return h, nil
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
				if profileErr != nil {
					b.Fatal(profileErr)
				}
				if atEnd == 0 {
					b.Fatal("the check never read the trace to its end")
				}
				perFile = (float64(atEnd) - float64(before)) / float64(files)
			}
			b.ReportMetric(perFile, "live-B/file")
		})
	}
}

// heapAtEnd notes the live heap when its stream ends, and writes a heap
// profile to the file profile if named.
type heapAtEnd struct {
	parser.Stream
	live    *uint64
	profile string
	err     *error
}

func (h *heapAtEnd) Next() (*parser.Event, error) {
	ev, err := h.Stream.Next()
	if errors.Is(err, io.EOF) {
		*h.live = max(*h.live, liveHeap())
		if h.profile != "" {
			*h.err = writeHeapProfile(h.profile)
		}
	}
	return ev, err
}

func writeHeapProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
