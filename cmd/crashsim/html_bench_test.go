package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

// writeBigTrace writes a trace of n events: a program that saves 16 files
// over and over (create a temp file, write it in pieces, fsync, rename
// over the real name, fsync the directory every tenth save), every event
// in scope.
func writeBigTrace(tb testing.TB, n int) string {
	tb.Helper()
	name := filepath.Join(tb.TempDir(), "big.strace")
	f, err := os.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	events := 0
	for i := 0; events < n; i++ {
		p := fmt.Sprintf("/data/app/f%d", i%16)
		fmt.Fprintf(w, "openat(AT_FDCWD, \"%s.tmp\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3\n", p)
		for j := 0; j < 6; j++ {
			fmt.Fprintf(w, "write(3, \"record %d of save %d\\n\", 20) = 20\n", j, i%10)
		}
		fmt.Fprintf(w, "fsync(3) = 0\nclose(3) = 0\nrename(\"%s.tmp\", \"%s\") = 0\n", p, p)
		events += 10
		if i%10 == 9 {
			fmt.Fprintf(w, "openat(AT_FDCWD, \"/data/app\", O_RDONLY|O_DIRECTORY) = 4\nfsync(4) = 0\nclose(4) = 0\n")
			events += 3
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
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
		rp := crashsim.Replay{Inputs: crashsim.Inputs{Traces: []string{trace}}, Persistence: model.Posix}
		err := renderHTML(io.Writer(cw), rp, report.HTMLMeta{Command: "check", Trace: trace, Model: "posix", Models: []string{"posix"}}, res)
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
