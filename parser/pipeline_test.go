package parser

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/google/go-cmp/cmp"
)

// streamLog reads a whole stream opened by open and writes down, in the
// order the caller sees them, every event, every warning and diagnostic
// and the error that ends it. It also returns the events, copied as they
// came and as they are at the end (a stream that reused an Event would
// make the two differ).
func streamLog(t *testing.T, open func(Options) (Stream, error)) (log []string, got, kept []Event) {
	t.Helper()
	opt := Options{
		Warn: func(p Pos, m string) { log = append(log, "warn "+p.String()+": "+m) },
		Diag: func(p Pos, m string) { log = append(log, "diag "+p.String()+": "+m) },
	}
	s, err := open(opt)
	if err != nil {
		return append(log, "open: "+err.Error()), nil, nil
	}
	defer s.Close()
	var ptrs []*Event
	for {
		ev, err := s.Next()
		if err != nil {
			log = append(log, "end: "+err.Error())
			break
		}
		log = append(log, fmt.Sprintf("event %d %s %s", ev.Seq, ev.Pos, ev.Name))
		got = append(got, *ev)
		ptrs = append(ptrs, ev)
	}
	for _, ev := range ptrs {
		kept = append(kept, *ev)
	}
	return log, got, kept
}

// pipelineTraces are the fixtures plus a trace of several batches whose
// warnings and diagnostics fall among its events, and which ends in a line
// that does not read.
func pipelineTraces(t *testing.T) []string {
	t.Helper()
	files := fixtures.Traces(t, "../fixtures/traces")
	forms, _ := filepath.Glob("testdata/forms/*.strace")
	kstack, _ := filepath.Glob("testdata/kstack/*.strace")
	files = append(append(files, forms...), kstack...)
	var b strings.Builder
	for i := 0; i < 3*pipelineBatch; i++ {
		fmt.Fprintf(&b, "%d close(%d) = 0\n", 100+i%3, i)
		switch i % 97 {
		case 5:
			fmt.Fprintf(&b, "%d <... read resumed>\"x\", 1) = 1\n", 200+i) // a warning
		case 40:
			fmt.Fprintf(&b, "strace: Process %d attached\n", 300+i) // a diagnostic
		}
	}
	b.WriteString("100 close(1 = 0\n101 close(2) = 0\n")
	mixed := filepath.Join(t.TempDir(), "mixed.strace")
	if err := os.WriteFile(mixed, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(files, mixed)
}

// TestPipelineSameAsReader: through Pipeline, every trace gives the same
// events, messages and error, in the same order, as read directly, and no
// event changes after it was handed out.
func TestPipelineSameAsReader(t *testing.T) {
	for _, name := range pipelineTraces(t) {
		open := func(opt Options) (Stream, error) { return Open(name, opt) }
		want, wantEvs, _ := streamLog(t, open)
		got, gotEvs, kept := streamLog(t, func(opt Options) (Stream, error) { return Pipeline(opt, open) })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-reader +pipeline):\n%s", name, diff)
		}
		if diff := cmp.Diff(wantEvs, gotEvs); diff != "" {
			t.Errorf("%s: events (-reader +pipeline):\n%s", name, diff)
		}
		if diff := cmp.Diff(gotEvs, kept); diff != "" {
			t.Errorf("%s: events changed after they were handed out (-then +now):\n%s", name, diff)
		}
		if strings.HasSuffix(name, "mixed.strace") {
			var warns, diags int
			for _, l := range got {
				warns += strings.Count(l[:min(4, len(l))], "warn")
				diags += strings.Count(l[:min(4, len(l))], "diag")
			}
			if warns < 5 || diags < 5 || !strings.Contains(got[len(got)-1], "mixed.strace:") {
				t.Errorf("%s: %d warnings, %d diagnostics, ends %q", name, warns, diags, got[len(got)-1])
			}
		}
	}
}

// TestPipelineOpenError: an error opening the stream comes back from
// Pipeline, and no goroutine is left.
func TestPipelineOpenError(t *testing.T) {
	before := pipelineGoroutines()
	_, err := Pipeline(Options{}, func(opt Options) (Stream, error) { return Open("/nonexistent/trace", opt) })
	if err == nil {
		t.Fatal("no error")
	}
	waitGoroutines(t, before)
}

// TestPipelineCloseStopsGoroutine: Close ends the parsing goroutine,
// whether the caller read nothing, part of the trace or all of it.
func TestPipelineCloseStopsGoroutine(t *testing.T) {
	name := filepath.Join(t.TempDir(), "long.strace")
	line := "1234 close(3) = 0\n"
	if err := os.WriteFile(name, []byte(strings.Repeat(line, 40*pipelineBatch)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, read := range []int{0, 1, pipelineBatch + 3, -1} {
		before := pipelineGoroutines()
		s, err := Pipeline(Options{}, func(opt Options) (Stream, error) { return Open(name, opt) })
		if err != nil {
			t.Fatal(err)
		}
		if pipelineGoroutines() <= before {
			t.Fatalf("read %d: no goroutine started", read)
		}
		for n := 0; read < 0 || n < read; n++ {
			if _, err := s.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		waitGoroutines(t, before)
		if _, err := s.Next(); err == nil {
			t.Errorf("read %d: Next after Close gave no error", read)
		}
	}
}

// pipelineGoroutines counts the goroutines Pipeline started, by their
// stacks: the process's goroutine count also moves with the runtime's own
// (the finalizer goroutine counts while it runs a file's cleanup), which
// made a test that compared counts fail now and then.
func pipelineGoroutines() int {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	// Every goroutine Pipeline starts says so, running or not started yet.
	return strings.Count(string(buf[:n]), "created by github.com/crashsim/crashsim/parser.Pipeline in ")
}

// waitGoroutines fails unless the pipeline goroutines are back to n (the
// runtime may take a moment to retire one that has returned).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for pipelineGoroutines() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d pipeline goroutines, %d before:\n%s", pipelineGoroutines(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}
