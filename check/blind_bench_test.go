package check

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// blindBenchTrace writes a trace of n small writes to two files, with -y
// annotations, the shape of a logging or database workload.
func blindBenchTrace(b *testing.B, n int) string {
	name := filepath.Join(b.TempDir(), "bench.strace")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, `100 openat(AT_FDCWD</d>, "/d/a.log", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3</d/a.log>`)
	fmt.Fprintln(w, `100 openat(AT_FDCWD</d>, "/d/b.db", O_RDWR|O_CREAT, 0644) = 4</d/b.db>`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "100 write(%d</d/%s>, \"0123456789abcdef\", 16) = 16\n", 3+i%2, []string{"a.log", "b.db"}[i%2])
		if i%100 == 99 {
			fmt.Fprintln(w, `100 fdatasync(4</d/b.db>) = 0`)
		}
	}
	fmt.Fprintln(w, `100 close(3</d/a.log>) = 0`)
	fmt.Fprintln(w, `100 close(4</d/b.db>) = 0`)
	fmt.Fprintln(w, `100 exit_group(0) = ?`)
	fmt.Fprintln(w, `100 +++ exited with 0 +++`)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return name
}

// BenchmarkWatcher is what working out the blind spots costs per event:
// compare it with BenchmarkRunWithWatcher, the whole check of the same
// trace (parse, two models, rules and the watcher).
func BenchmarkWatcher(b *testing.B) {
	evs := readAll(b, blindBenchTrace(b, 100_000))
	opt := &Options{Roots: []string{"/d"}, LikelyVolatile: LikelyVolatile}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := NewWatcher(opt)
		// The paths a model would resolve, as its Resolved hands them over.
		procs := model.NewProcsIn("")
		for _, ev := range evs {
			paths := procs.Paths(ev)
			w.ObserveResolved(ev, paths)
			procs.Apply(ev, paths)
		}
		if ws, _ := w.Finish(); len(ws) != 0 {
			b.Fatalf("blind spots %v in a good trace", ws)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

func BenchmarkRunWithWatcher(b *testing.B) {
	name := blindBenchTrace(b, 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	events := 0
	for i := 0; i < b.N; i++ {
		s, err := parser.Open(name, parser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := Run(s, Options{Roots: []string{"/d"}, LikelyVolatile: LikelyVolatile})
		s.Close()
		if err != nil {
			b.Fatal(err)
		}
		events = res.Summary.Events
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}
