package wire

import (
	"bytes"
	"strconv"
	"testing"
)

// A report written with its findings in batches is the report written
// one finding at a time, whatever the batches' sizes, with a problem
// before or not, and large enough that the writer flushes between.
func TestFindingBatch(t *testing.T) {
	tool := Tool{Name: "crashsim", Version: "(devel)", SemVer: "0.0.0-devel"}
	var fs []*Finding
	for n := range 300 {
		s := strconv.Itoa(n)
		fs = append(fs, fuzzFinding("rule-"+s, "/srv/app/dir "+s+"/\"f\".json", "trace<"+s+">", n, uint16(n*37)))
	}
	sum := &Summary{Models: []string{"posix"}}
	for _, problem := range []bool{false, true} {
		write := func(batch int) string {
			var buf bytes.Buffer
			w := NewReportWriter(&buf, Version, tool)
			if problem {
				if err := w.Problem(fuzzProblem("a", "b", "c", 1, 3)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Finding(fs[0]); err != nil {
				t.Fatal(err)
			}
			if batch == 0 {
				for _, f := range fs[1:] {
					if err := w.Finding(f); err != nil {
						t.Fatal(err)
					}
				}
			} else {
				b := w.NewBatch()
				for i := 1; i < len(fs); i += batch {
					b.Reset()
					for _, f := range fs[i:min(i+batch, len(fs))] {
						b.Finding(f)
					}
					if err := w.Findings(b.Bytes()); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Close(sum); err != nil {
				t.Fatal(err)
			}
			return buf.String()
		}
		want := write(0)
		if len(want) < 2*flushAt {
			t.Fatalf("the report is %d bytes: too small to flush between findings", len(want))
		}
		for _, batch := range []int{1, 7, 64, 1000} {
			if got := write(batch); got != want {
				t.Errorf("problem %v, batches of %d: the report differs from the one written a finding at a time", problem, batch)
			}
		}
	}
}

func TestBatchBeforeFirst(t *testing.T) {
	var buf bytes.Buffer
	w := NewReportWriter(&buf, Version, Tool{Name: "crashsim"})
	if err := w.Findings([]byte("{}")); err == nil {
		t.Fatal("a batch before the first finding was written")
	}
}
