// Package phases times the phases of one run of a command, for the
// maintainers who ask what bounds it: with CRASHSIM_PHASES set, crashsim
// prints on stderr, as each phase ends (the trace read, each rule's end
// under each model, the findings merged, grouped, reported), its wall
// time and the CPU time the whole process spent in it. A CPU time near
// twice the wall time says both CPUs were busy; near the wall time, one
// goroutine bounded the phase; and the peak resident memory of the
// process so far, which says in which phase a peak was reached; and the
// heap the last collection found live, which tells memory the program
// holds from memory the collector has not yet reclaimed or returned.
// Off, a mark costs one atomic load.
package phases

import (
	"fmt"
	"io"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Env is the variable that turns the marks on.
const Env = "CRASHSIM_PHASES"

var (
	on    atomic.Bool
	mu    sync.Mutex
	out   io.Writer
	since time.Time
	cpu   time.Duration
	least time.Duration
	// The clocks, variables for the tests.
	clock = processCPU
	peak  = peakRSS
	live  = liveHeap
	now   = time.Now
)

// Start prints the marks that follow on w, each phase timed from the
// mark before it (the first from Start); a phase shorter than shortest is
// not printed, and its time counts in no other.
func Start(w io.Writer, shortest time.Duration) {
	mu.Lock()
	defer mu.Unlock()
	out, since, cpu, least = w, now(), clock(), shortest
	on.Store(true)
}

// Stop turns the marks off.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	on.Store(false)
	out = nil
}

// On reports whether marks are printed.
func On() bool { return on.Load() }

// Mark ends the phase called name: one line on the writer Start was
// given, unless the marks are off or the phase was shorter than Start's
// least (a rule with nothing to do at the end).
func Mark(name string) {
	if !on.Load() {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if out == nil {
		return
	}
	t, c := now(), clock()
	defer func() { since, cpu = t, c }()
	if t.Sub(since) < least {
		return
	}
	fmt.Fprintf(out, "crashsim: phase %-40s %8.3f s wall %8.3f s CPU %6d MB peak %6d MB live\n", name, t.Sub(since).Seconds(), (c - cpu).Seconds(), peak()/1e6, live()/1e6)
}

// liveHeap is the heap, in bytes, that the last collection found
// reachable (0 before the first).
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
