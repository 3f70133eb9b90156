package crashsim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

// writeDeepTrace writes a trace that saves a file depth directories deep
// (a temp file written in writes pieces, fsynced, renamed over the real
// name), the shape of an adversarial trace: no kernel takes a path this
// long in one call, but a trace is only text.
func writeDeepTrace(tb testing.TB, depth, writes int) (trace, dir string) {
	tb.Helper()
	dir = "/data" + strings.Repeat("/a", depth-1)
	trace = filepath.Join(tb.TempDir(), "deep.strace")
	f, err := os.Create(trace)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "openat(AT_FDCWD, \"%s/f.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n", dir)
	for i := 0; i < writes; i++ {
		fmt.Fprintf(w, "write(3, \"record %d\\n\", 9) = 9\n", i%10)
	}
	fmt.Fprintf(w, "fsync(3) = 0\nclose(3) = 0\nrename(\"%s/f.tmp\", \"%s/f\") = 0\n", dir, dir)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return trace, dir
}

func renderDeep(tb testing.TB, trace string, out *bytes.Buffer) {
	tb.Helper()
	rp := Replay{Inputs: Inputs{Traces: []string{trace}}, Persistence: model.Posix}
	meta := report.HTMLMeta{Command: "states", Trace: trace, Model: "posix", Models: []string{"posix"}}
	if err := rp.HTML(out, meta, &check.Result{}); err != nil {
		tb.Fatal(err)
	}
}

// TestAdversarialHTMLDeepPath: the page of a trace whose file is 4,096
// directories deep is drawn with a lane for each of its names and every
// crash point (open, 200 writes, fsync, rename; close changes nothing).
// Walking up the path cleaned it again at every element, at every crash
// point: this trace took minutes. BenchmarkHTMLDeepPath gives the cost
// per depth.
func TestAdversarialHTMLDeepPath(t *testing.T) {
	const writes = 200
	trace, dir := writeDeepTrace(t, 4096, writes)
	var page bytes.Buffer
	renderDeep(t, trace, &page)
	for _, want := range []string{`"path":"` + dir + `/f"`, `"path":"` + dir + `/f.tmp"`, `"points":` + fmt.Sprint(writes+3)} {
		if !bytes.Contains(page.Bytes(), []byte(want)) {
			t.Errorf("the page lacks %.60s...", want)
		}
	}
}

// BenchmarkHTMLDeepPath renders the page of the same save at growing
// depths: the cost per crash point should follow the path's length, not
// its square.
func BenchmarkHTMLDeepPath(b *testing.B) {
	for _, depth := range []int{1024, 2048, 4096} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			trace, _ := writeDeepTrace(b, depth, 200)
			var page bytes.Buffer
			for b.Loop() {
				page.Reset()
				renderDeep(b, trace, &page)
			}
		})
	}
}
