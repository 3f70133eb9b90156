package parser

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// BenchmarkParse reads a generated 64 MiB -f -ttt -y -xx trace; b.SetBytes
// makes `go test -bench Parse ./parser` report MB/s. scripts/parse-bench.sh
// compares the same path with grep on a 1 GB trace.
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
	fi, _ := os.Stat(name)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(name, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
	}
}
