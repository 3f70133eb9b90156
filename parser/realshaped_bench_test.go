package parser_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// BenchmarkParseRealShaped reads the committed -f -tt -T -y fixture
// traces (python, go, sed, sh, cp, rsync; about 120 bytes a line, mostly
// newfstatat, rt_sigaction, openat, mmap, close and read, as in real
// recordings) concatenated and repeated to 32 MiB. It is the headline
// figure: `go test -bench ParseRealShaped -count 5 ./parser`.
//
//   - all-args: every argument decoded (events, stats, explore);
//   - model-calls: every argument of the calls model.ReadsArgs names, none
//     of the others (check and states before positions were narrowed);
//   - model-positions: the positions model.ArgPositions names (check and
//     states now);
//   - no-args: no call decoded, every event built (events --format
//     count before Skip);
//   - count: Skip with Options.DecodeNone (events --format count);
//   - pipeline: model-positions through parser.Pipeline, with a consumer
//     that does nothing: the cost of handing events over;
//   - pipeline-recycle: the same with Options.Recycle (check), events
//     built in the memory of those the consumer has passed;
//   - floor: the floor scanner (floor_test.go), which reads what the
//     model needs of each line into one fixed record, building no Value
//     and checking nothing else: the parser's floor in this design.
func BenchmarkParseRealShaped(b *testing.B) {
	var one bytes.Buffer
	for _, f := range realShapedFixtures(b) {
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
	b.Run("all-args", func(b *testing.B) { parser.BenchParse(b, name, parser.Options{}) })
	b.Run("model-calls", func(b *testing.B) {
		parser.BenchParse(b, name, parser.Options{DecodeArgs: model.ReadsArgs})
	})
	b.Run("model-positions", func(b *testing.B) {
		parser.BenchParse(b, name, parser.Options{DecodePositions: model.ArgPositions})
	})
	b.Run("no-args", func(b *testing.B) {
		parser.BenchParse(b, name, parser.Options{DecodeArgs: func(string) bool { return false }})
	})
	b.Run("count", func(b *testing.B) { parser.BenchSkip(b, name, parser.Options{DecodeNone: true}) })
	b.Run("pipeline", func(b *testing.B) {
		parser.BenchParse(b, name, parser.Options{DecodePositions: model.ArgPositions}, true)
	})
	b.Run("pipeline-recycle", func(b *testing.B) {
		parser.BenchParse(b, name, parser.Options{DecodePositions: model.ArgPositions, Recycle: true}, true)
	})
	b.Run("floor", func(b *testing.B) { benchFloor(b, name) })
}

// benchFloor reads trace name with the floor scanner b.N times.
func benchFloor(b *testing.B, name string) {
	fi, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	fl := newFloorScanner()
	events, sum := 0, int64(0)
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		err = fl.scan(f, func(ev *floorEvent) { events++; sum += ev.ret })
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	if sum == 0 {
		b.Fatal("the floor scanner read no return value")
	}
}

// realShapedFixtures are the committed -f -tt -T -y recordings the
// real-shaped benchmark is made of.
func realShapedFixtures(tb testing.TB) []string {
	files, _ := filepath.Glob("../fixtures/traces/*/f-tt-T-y.strace")
	if len(files) == 0 {
		tb.Fatal("no fixture traces")
	}
	return files
}

// BenchmarkParseTrace reads the trace CRASHSIM_BENCH_TRACE names two
// ways: as check parses it (check: the model's positions, events
// recycled, on a goroutine of their own), and with the floor scanner
// (floor). Beside a check of the same trace it says what the parsing costs
// alone and how far that is from the least a reader of its lines can do:
//
//	CRASHSIM_BENCH_TRACE=big.strace go test ./parser -run '^$' -bench ParseTrace -benchtime 2x
//
// Skipped without the variable.
func BenchmarkParseTrace(b *testing.B) {
	name := os.Getenv("CRASHSIM_BENCH_TRACE")
	if name == "" {
		b.Skip("CRASHSIM_BENCH_TRACE names no trace")
	}
	b.Run("check", func(b *testing.B) {
		parser.BenchParse(b, name, parser.Options{DecodePositions: model.ArgPositions, Recycle: true}, true)
	})
	b.Run("floor", func(b *testing.B) { benchFloor(b, name) })
}
