package parser

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// BenchmarkParseRealShaped reads the committed -f -tt -T -y fixture
// traces (python, go, sed, sh, cp, rsync; about 120 bytes a line, mostly
// newfstatat, rt_sigaction, openat, mmap, close and read, as in real
// recordings) concatenated and repeated to 32 MiB. It is the headline
// figure: `go test -bench ParseRealShaped -count 5 ./parser`.
func BenchmarkParseRealShaped(b *testing.B) {
	files, _ := filepath.Glob("../fixtures/traces/*/f-tt-T-y.strace")
	if len(files) == 0 {
		b.Fatal("no fixture traces")
	}
	var one bytes.Buffer
	for _, f := range files {
		t, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		one.Write(t)
	}
	name := filepath.Join(b.TempDir(), "real.strace")
	var all bytes.Buffer
	for all.Len() < 32<<20 {
		all.Write(one.Bytes())
	}
	if err := os.WriteFile(name, all.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	benchParse(b, name)
}

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
	benchParse(b, name)
}

func benchParse(b *testing.B, name string) {
	fi, _ := os.Stat(name)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	events := 0
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
			events++
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
