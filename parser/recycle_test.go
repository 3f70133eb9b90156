package parser

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withBatch sets the pipeline's batch size for the test.
func withBatch(t *testing.T, n int) {
	old := pipelineBatch
	pipelineBatch = n
	t.Cleanup(func() { pipelineBatch = old })
}

// recycledLog is streamLog for a recycling Pipeline: each event is copied
// out (detach: its Values, Extras and frames too) before the next call to
// Next, which is as long as it is valid.
func recycledLog(t *testing.T, opt Options, open func(Options) (Stream, error)) (log []string, evs []Event) {
	t.Helper()
	opt.Warn = func(p Pos, m string) { log = append(log, "warn "+p.String()+": "+m) }
	opt.Diag = func(p Pos, m string) { log = append(log, "diag "+p.String()+": "+m) }
	s, err := Pipeline(opt, open)
	if err != nil {
		return append(log, "open: "+err.Error()), nil
	}
	defer s.Close()
	for {
		ev, err := s.Next()
		if err != nil {
			log = append(log, "end: "+err.Error())
			return log, evs
		}
		log = append(log, fmt.Sprintf("event %d %s %s", ev.Seq, ev.Pos, ev.Name))
		evs = append(evs, *detach(ev))
	}
}

// someArgs decodes the first two positions of calls whose names start
// with a letter before 'n', none of the others: a reading that skips
// values and whole calls, as check's does.
func someArgs(name string) ArgSet {
	if name < "n" {
		return ArgPositions(0, 1)
	}
	return 0
}

// TestRecycleSameEvents: a recycling Pipeline gives every trace's events,
// messages and error as one that does not recycle, each event as it is
// when Next returns it, with every event handed over (and recycled) alone
// or in small batches, and -ff sets read with their members parked.
func TestRecycleSameEvents(t *testing.T) {
	names := append(pipelineTraces(t), ffFixtures(t)...)
	batches := []int{1, 3, 256}
	if testing.Short() {
		batches = batches[:1] // the strictest: each event recycled alone
	}
	for _, batch := range batches {
		for _, decode := range []struct {
			name string
			pos  func(string) ArgSet
		}{{"all", nil}, {"some", someArgs}} {
			t.Run(fmt.Sprintf("batch=%d/%s", batch, decode.name), func(t *testing.T) {
				withBatch(t, batch)
				withMaxOpen(t, 2)
				for _, name := range names {
					open := func(opt Options) (Stream, error) { return Open(name, opt) }
					opt := Options{DecodePositions: decode.pos}
					want, wantEvs := recycledLog(t, opt, open)
					opt.Recycle = true
					got, gotEvs := recycledLog(t, opt, open)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s: (-kept +recycled):\n%s", name, diff)
					}
					if diff := cmp.Diff(wantEvs, gotEvs); diff != "" {
						t.Errorf("%s: events (-kept +recycled):\n%s", name, diff)
					}
				}
			})
		}
	}
}

// TestRecycleReusesEvents shows the contract of Options.Recycle: an event
// kept past the next batch is built over by a later one. (A caller must
// not do this; the test only shows that the memory is in fact reused.)
func TestRecycleReusesEvents(t *testing.T) {
	name := filepath.Join(t.TempDir(), "many.strace")
	var b strings.Builder
	for i := range 20 * pipelineBatch {
		fmt.Fprintf(&b, "%d openat(AT_FDCWD, \"/tmp/f%d\", O_RDONLY) = 3\n", 100+i%7, i)
	}
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, recycle := range []bool{false, true} {
		s, err := Pipeline(Options{Recycle: recycle}, func(opt Options) (Stream, error) { return Open(name, opt) })
		if err != nil {
			t.Fatal(err)
		}
		first, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		was := *detach(first)
		again := false
		for {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			again = again || ev == first
		}
		s.Close()
		changed := cmp.Diff(was, *first) != ""
		if recycle && (!again || !changed) {
			t.Errorf("recycling: the first event was handed out again: %v; its contents changed: %v", again, changed)
		}
		if !recycle && (again || changed) {
			t.Errorf("without recycling: the first event was handed out again: %v; its contents changed: %v", again, changed)
		}
	}
}

// TestRecycleNoAllocs: once a recycling Pipeline's memory has grown to
// what the trace's lines need, reading plain lines (paths, flags, a stat
// struct, iovecs, written data, calls split in two, -k stacks) allocates
// nothing per line; without recycling each line's Event and Values take
// slab room.
func TestRecycleNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes values escape: allocations are not counted under it")
	}
	lines := []string{
		`100 1795000000.000081 openat(AT_FDCWD</tmp/d>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache> <0.000010>`,
		`100 1795000000.000107 newfstatat(3</etc/ld.so.cache>, "", {st_mode=S_IFREG|0644, st_size=34327, ...}, AT_EMPTY_PATH) = 0`,
		`100 1795000000.000108 read(3</etc/ld.so.cache>, "\x7fELF\x02\x01"..., 832) = 832`,
		`101 1795000000.000109 writev(4</tmp/d/log>, [{iov_base="abc", iov_len=3}, {iov_base="de", iov_len=2}], 2 <unfinished ...>`,
		`100 1795000000.000110 mmap(NULL, 34327, PROT_READ, MAP_PRIVATE, 3</etc/ld.so.cache>, 0) = 0x7fd94367b000`,
		`101 1795000000.000111 <... writev resumed>) = 5`,
		`100 1795000000.000112 rt_sigaction(SIGINT, {sa_handler=0x5611, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x7f3}, NULL, 8) = 0`,
		`100 1795000000.000113 access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory)`,
		`100 1795000000.000114 fsync(4</tmp/d/log>) = 0`,
		` > /lib/x86_64-linux-gnu/libc.so.6(fsync+0x14) [0x10f1e4]`,
		`100 1795000000.000115 close(3</etc/ld.so.cache>) = 0`,
	}
	text := strings.Join(lines, "\n") + "\n"
	name := filepath.Join(t.TempDir(), "plain.strace")
	if err := os.WriteFile(name, []byte(strings.Repeat(text, 40000)), 0o644); err != nil {
		t.Fatal(err)
	}
	perLine := func(recycle bool) float64 {
		s, err := Pipeline(Options{Recycle: recycle}, func(opt Options) (Stream, error) { return Open(name, opt) })
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		read := func(n int) {
			for range n {
				if _, err := s.Next(); err != nil {
					t.Fatal(err)
				}
			}
		}
		// The pool grows to the events of the batches under way, and each
		// event's memory to the lines it serves. AllocsPerRun runs on one
		// processor, where the parsing goroutine runs further ahead and
		// takes events the pool had not handed out yet: it is run once
		// to let those grow too.
		const n = 4 * 256
		read(200 * pipelineBatch)
		testing.AllocsPerRun(50, func() { read(n) })
		return testing.AllocsPerRun(50, func() { read(n) }) / n
	}
	if got := perLine(true); got > 0.01 {
		t.Errorf("recycling: %.3f allocations a line, want none", got)
	}
	// The measure can fail: without recycling the same lines allocate.
	if got := perLine(false); got < 0.05 {
		t.Errorf("without recycling: %.3f allocations a line: the measure sees nothing", got)
	}
}

// TestPoolResetsUsedMemory: an event whose memory handed something out
// (Values, a ValueExtra, a joined half, its EventExtra) gets it back
// reset when the pool hands the event out again, and an event whose
// memory handed nothing out is handed out cleared all the same.
func TestPoolResetsUsedMemory(t *testing.T) {
	var p eventPool
	lp := lineParser{pool: &p}
	uses := map[string]func(ev *Event, m *eventMem){
		"carve":      func(ev *Event, m *eventMem) { ev.Args = m.carve(make([]Value, 3)) },
		"valueExtra": func(ev *Event, m *eventMem) { m.valueExtra().Comment = "x" },
		"join": func(ev *Event, m *eventMem) {
			half, _ := p.get()
			ev.Args = m.join(make([]Value, 1), make([]Value, 2))
			m.joined = half
		},
		"extra": func(ev *Event, m *eventMem) {
			lp.ev, lp.mem = ev, m
			lp.extra(ev).Comm = "x"
		},
		"nothing": func(ev *Event, m *eventMem) { ev.Name, ev.PID = "brk", 7 },
	}
	for name, use := range uses {
		ev, m := p.get()
		use(ev, m)
		joined := m.joined
		p.put(ev)
		again, m2 := p.get()
		if again != ev || m2 != m {
			t.Fatalf("%s: the pool handed out another event", name)
		}
		if m.used != 0 || m.eused != 0 || m.vxUsed != 0 || m.joined != nil || m.extra.Comm != "" {
			t.Errorf("%s: memory not reset: used %d, eused %d, vxUsed %d, joined %p, comm %q", name, m.used, m.eused, m.vxUsed, m.joined, m.extra.Comm)
		}
		if !reflect.DeepEqual(*again, Event{}) {
			t.Errorf("%s: event not cleared: %+v", name, *again)
		}
		if joined != nil {
			if half, _ := p.get(); half != joined {
				t.Errorf("%s: the joined half did not come back to the pool", name)
			}
		}
		p.put(again)
	}
}
