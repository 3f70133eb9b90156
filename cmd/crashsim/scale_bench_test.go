package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// genTrace writes a generated trace of one shape into dir.
func genTrace(b *testing.B, dir, shape string) string {
	b.Helper()
	name := filepath.Join(dir, shape+".strace")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	switch shape {
	case "real":
		ts, err := gentrace.LoadTemplates("../../fixtures/traces", 32)
		if err == nil {
			_, err = gentrace.WriteReal(f, ts, gentrace.RealOptions{Bytes: 32 << 20, Seed: 1})
		}
		if err != nil {
			b.Fatal(err)
		}
	case "files":
		if _, err := gentrace.WriteFiles(f, gentrace.FilesOptions{Files: benchFiles(), Seed: 1}); err != nil {
			b.Fatal(err)
		}
	case "files-unsynced", "files-settled":
		opt := gentrace.FileSetOptions{Files: benchFiles(), Seed: 1, Settled: shape == "files-settled"}
		if _, err := gentrace.WriteFileSet(f, opt); err != nil {
			b.Fatal(err)
		}
	case "long":
		if _, err := gentrace.Write(f, gentrace.Options{Bytes: 32 << 20, Seed: 1, MaxData: 4096}); err != nil {
			b.Fatal(err)
		}
	}
	return name
}

// benchFiles is how many files the file shapes save: 1000, or
// $CRASHSIM_BENCH_FILES.
func benchFiles() int {
	if v, err := strconv.Atoi(os.Getenv("CRASHSIM_BENCH_FILES")); err == nil && v > 0 {
		return v
	}
	return 1000
}

// BenchmarkScale runs whole commands in process on generated traces, so
// that a profile shows where a command's time goes (scripts/parse-bench.sh
// times the built binary against grep):
//
//	go test ./cmd/crashsim -run '^$' -bench 'Scale/real/check' -cpuprofile cpu.out
//	go tool pprof -top cpu.out
//
// The file shapes (files, files-unsynced, files-settled: see package
// gentrace) save 1000 files, or $CRASHSIM_BENCH_FILES:
//
//	CRASHSIM_BENCH_FILES=100000 go test ./cmd/crashsim -run '^$' -bench 'Scale/files-settled/check' -benchmem
func BenchmarkScale(b *testing.B) {
	commands := []struct {
		name string
		args []string
	}{
		{"events", []string{"events", "--format", "count"}},
		// The real shape maps a file shared and writable (a blind spot,
		// exit 6 otherwise): accepted by check and states, since the
		// benchmark times the work.
		{"check", []string{"check", "--fail-on", "never", "--accept-blind", "blind-shared-mmap", "--format", "json"}},
		{"states", []string{"states", "--accept-blind", "blind-shared-mmap"}},
	}
	for _, shape := range []string{"real", "files", "files-unsynced", "files-settled", "long"} {
		b.Run(shape, func(b *testing.B) {
			trace := genTrace(b, b.TempDir(), shape)
			fi, err := os.Stat(trace)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range commands {
				b.Run(c.name, func(b *testing.B) {
					b.SetBytes(fi.Size())
					for b.Loop() {
						if code := run(append(c.args, trace), io.Discard, io.Discard); code != 0 {
							b.Fatalf("crashsim %v: exit status %d", c.args, code)
						}
					}
				})
			}
		})
	}
}
