package crashsim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

// writeBigTrace writes a trace of at least n events (gentrace's saves
// shape), every event in scope.
func writeBigTrace(tb testing.TB, n int) string {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "big.strace")
	f, err := os.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := gentrace.WriteSaves(f, n); err != nil {
		tb.Fatal(err)
	}
	return name
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkHTMLReport1M renders the HTML report of a 1M-event trace
// (replay, crash states and page) and reports the CPU time and the size
// of the page.
func BenchmarkHTMLReport1M(b *testing.B) {
	trace := writeBigTrace(b, benchEvents)
	res := &check.Result{}
	var size int64
	start := cpuTime()
	for b.Loop() {
		cw := &countWriter{}
		rp := Replay{Inputs: Inputs{Traces: []string{trace}}, Persistence: model.Posix}
		err := rp.HTML(io.Writer(cw), report.HTMLMeta{Command: "check", Trace: trace, Model: "posix", Models: []string{"posix"}}, res)
		if err != nil {
			b.Fatal(err)
		}
		size = cw.n
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e9, "cpu-s/op")
	b.ReportMetric(float64(size)/(1<<20), "MiB")
}

// benchEvents is the size of the benchmark's trace.
var benchEvents = envInt("CRASHSIM_BENCH_EVENTS", 1_000_000)

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err == nil && n > 0 {
		return n
	}
	return def
}
