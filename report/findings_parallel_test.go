package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/parser"
)

// checkFileSet checks a trace of n files created and never synced,
// spilling the findings past spillAt (none when 0).
func checkFileSet(t *testing.T, n, spillAt int) *check.Result {
	t.Helper()
	name := filepath.Join(t.TempDir(), "files.strace")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gentrace.WriteFileSet(f, gentrace.FileSetOptions{Files: n, PerDir: 50, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := parser.Open(name, parser.Options{Recycle: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := check.Run(s, check.Options{SpillAt: spillAt})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Close() })
	return res
}

// withBatches makes writeFindings encode in batches of size on two
// goroutines from the first finding on, or (size 0) never.
func withBatches(t *testing.T, size int) {
	t.Helper()
	oldSize, oldFrom, oldProcs := batchFindings, parallelFrom, runtime.GOMAXPROCS(2)
	t.Cleanup(func() { batchFindings, parallelFrom = oldSize, oldFrom; runtime.GOMAXPROCS(oldProcs) })
	if size == 0 {
		parallelFrom = 1 << 62
		return
	}
	batchFindings, parallelFrom = size, 1
}

// A report's findings made in batches on several goroutines are the
// ones made one after the other, byte for byte: JSON, and text in color
// and not, whether the check kept its findings in memory or spilled
// them, and whatever the batches' size (one finding, a few, more than a
// problem holds).
func TestParallelFindingsSameBytes(t *testing.T) {
	formats := []struct {
		name   string
		render func(io.Writer, *check.Result, Options) error
		color  bool
	}{{"json", JSON, false}, {"text", Text, false}, {"text in color", Text, true}}
	for _, spill := range []int{0, 300} {
		res := checkFileSet(t, 1500, spill)
		if res.Len() < 2000 || res.Spilled() != (spill > 0) {
			t.Fatalf("spill at %d: %d findings, spilled %v", spill, res.Len(), res.Spilled())
		}
		for _, format := range formats {
			opt := Options{Roots: []string{gentrace.FileSetRoot}, Models: []string{"posix"}, Color: format.color}
			render := func(size int) []byte {
				withBatches(t, size)
				var buf bytes.Buffer
				if err := format.render(&buf, res, opt); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes()
			}
			want := render(0)
			for _, size := range []int{1, 7, 256, 5000} {
				if got := render(size); !bytes.Equal(got, want) {
					t.Errorf("%s, spill at %d, batches of %d: the report differs:\n%s", format.name, spill, size, firstLineDiff(string(want), string(got)))
				}
			}
		}
	}
}

// A writer that fails partway stops the batches: the report returns its
// error and no goroutine making batches is left waiting.
func TestParallelFindingsWriteError(t *testing.T) {
	res := checkFileSet(t, 600, 200)
	withBatches(t, 5)
	before := runtime.NumGoroutine()
	for _, render := range []func(io.Writer, *check.Result, Options) error{JSON, Text} {
		var whole bytes.Buffer
		if err := render(&whole, res, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, after := range []int{1 << 10, whole.Len() / 4, whole.Len() * 3 / 4} {
			err := render(&cutWriter{left: after}, res, Options{})
			if !errors.Is(err, errCut) {
				t.Errorf("cut after %d bytes: %v, want the writer's error", after, err)
			}
		}
	}
	// A goroutine the report waited for has called wg.Done but may not
	// have returned yet: let the scheduler run it out. One blocked for
	// good (the leak this test is about) never does.
	n := runtime.NumGoroutine()
	for i := 0; i < 10000 && n > before; i++ {
		runtime.Gosched()
		n = runtime.NumGoroutine()
	}
	if n > before {
		t.Errorf("%d goroutines after the failed reports, %d before", n, before)
	}
}

var errCut = errors.New("device full")

// cutWriter takes left bytes, then fails.
type cutWriter struct{ left int }

func (w *cutWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errCut
	}
	w.left -= len(p)
	return len(p), nil
}

// BenchmarkReportManyFindings writes the reports of a check of 20,000
// unsynced files (spilled, as a command's would be): JSON with the
// findings encoded one after the other and in batches, text and SARIF.
func BenchmarkReportManyFindings(b *testing.B) {
	name := filepath.Join(b.TempDir(), "files.strace")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gentrace.WriteFileSet(f, gentrace.FileSetOptions{Files: 20000, Seed: 7}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	s, err := parser.Open(name, parser.Options{Recycle: true})
	if err != nil {
		b.Fatal(err)
	}
	res, err := check.Run(s, check.Options{SpillAt: check.DefaultSpillAt})
	s.Close()
	if err != nil {
		b.Fatal(err)
	}
	defer res.Close()
	opt := Options{Roots: []string{gentrace.FileSetRoot}, Models: []string{"posix"}}
	for _, mode := range []string{"json-serial", "json-batches", "text", "sarif"} {
		b.Run(mode, func(b *testing.B) {
			oldFrom := parallelFrom
			defer func() { parallelFrom = oldFrom }()
			if mode == "json-serial" {
				parallelFrom = 1 << 62
			}
			render := JSON
			switch mode {
			case "text":
				render = Text
			case "sarif":
				render = SARIF
			}
			var size int64
			for b.Loop() {
				cw := &countingWriter{}
				if err := render(cw, res, opt); err != nil {
					b.Fatal(err)
				}
				size = cw.n
			}
			b.SetBytes(size)
		})
	}
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
