package crashsim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

// checkReport is the JSON report and the source marks of a check of trace
// read through a parsing goroutine (Reading.Pipeline, as the command line
// reads), with or without recycling its events.
func checkReport(t *testing.T, trace, listing string, needData, recycle bool) []byte {
	t.Helper()
	old := recycleCheck
	recycleCheck = recycle
	defer func() { recycleCheck = old }()
	c := Check{Inputs: Inputs{Traces: []string{trace}, Listing: listing, Open: Reading{Pipeline: true}.Open}, NeedData: needData}
	var out bytes.Buffer
	res, err := c.Run()
	if err != nil {
		// The same error either way is the same result.
		fmt.Fprintf(&out, "error: %v\n", err)
		return out.Bytes()
	}
	defer res.Close()
	var opt report.Options
	if err := res.Identify(&opt, "", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := report.JSON(&out, res.Result, opt); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "\nmarks %+v\nstarts %q roots %q\n", res.marks, res.Starts, res.Roots)
	return out.Bytes()
}

// TestCheckRecycledSame: check reads its traces with parser.Options.Recycle,
// which builds each event in the memory of one passed before; the report
// of every fixture trace, every -ff set and a generated real-shaped trace
// of many batches is byte for byte the one a reading that keeps every
// event gives, with and without the written bytes' blind spot (NeedData
// decodes every argument).
// recycleTraces lists every fixture trace, every -ff set and a generated
// real-shaped trace of many batches.
func recycleTraces(t *testing.T) []string {
	t.Helper()
	traces := fixtures.Traces(t, "fixtures/traces")
	sets, _ := filepath.Glob("fixtures/traces/*/ff-ttt/trace.*")
	seen := map[string]bool{}
	for _, m := range sets {
		if p := m[:len(m)-len(filepath.Ext(m))]; !seen[p] {
			seen[p] = true
			traces = append(traces, p)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no -ff set among the fixtures")
	}
	ts, err := gentrace.LoadTemplates("fixtures/traces", 32)
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(t.TempDir(), "real.strace")
	f, err := os.Create(real)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(4 << 20)
	if testing.Short() {
		size = 1 << 20
	}
	if _, err := gentrace.WriteReal(f, ts, gentrace.RealOptions{Bytes: size, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	traces = append(traces, real)
	return traces
}

func TestCheckRecycledSame(t *testing.T) {
	traces := recycleTraces(t)
	for _, trace := range traces {
		dir := filepath.Dir(trace)
		if filepath.Base(dir) == "ff-ttt" {
			dir = filepath.Dir(dir)
		}
		listing := filepath.Join(dir, "initial.list")
		if _, err := os.Stat(listing); err != nil {
			listing = ""
		}
		for _, needData := range []bool{false, true} {
			want := checkReport(t, trace, listing, needData, false)
			got := checkReport(t, trace, listing, needData, true)
			if !bytes.Equal(want, got) {
				t.Errorf("%s (need data %v): the report differs when events are recycled:\n--- kept\n%s\n--- recycled\n%s", trace, needData, want, got)
			}
		}
	}
}

// statesOutput is what crashsim states writes for trace under model p, as
// text or JSON, with or without recycling the events it reads.
func statesOutput(t *testing.T, trace string, p model.Persistence, json, recycle bool) []byte {
	t.Helper()
	old := recycleStates
	recycleStates = recycle
	defer func() { recycleStates = old }()
	rp := Replay{Inputs: Inputs{Traces: []string{trace}, Open: Reading{Pipeline: true}.Open}, Persistence: p}
	var out, errs bytes.Buffer
	done, err := rp.WriteTimeline(&out, &errs, report.StatesOptions{Trace: trace, Model: p.String()}, json)
	fmt.Fprintf(&out, "\nstderr %q\nerror %v\n", errs.String(), err)
	if done != nil {
		fmt.Fprintf(&out, "done %+v\n", *done)
	}
	return out.Bytes()
}

// TestStatesRecycledSame: the timeline reads with parser.Options.Recycle
// too; for the same traces, under posix and ext4, as text and as JSON, it
// writes what a reading that keeps every event writes.
func TestStatesRecycledSame(t *testing.T) {
	for _, trace := range recycleTraces(t) {
		for _, p := range []model.Persistence{model.Posix, model.Ext4} {
			for _, json := range []bool{false, true} {
				want := statesOutput(t, trace, p, json, false)
				got := statesOutput(t, trace, p, json, true)
				if !bytes.Equal(want, got) {
					t.Errorf("%s (%s, json %v): the timeline differs when events are recycled:\n--- kept\n%s\n--- recycled\n%s", trace, p, json, want, got)
				}
			}
		}
	}
}
