package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// BenchmarkUnsyncedWrites replays n 512-byte writes to one file and one
// fdatasync at the end: every write stays pending until the barrier, so
// this is what a program writing a large file in small pieces costs the
// model. The events are parsed once, outside the timer.
func BenchmarkUnsyncedWrites(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			evs := unsyncedWrites(b, n)
			b.ReportAllocs()
			for b.Loop() {
				m := model.New(model.Options{Persistence: model.Posix})
				for _, ev := range evs {
					m.Apply(ev)
				}
				if ino := m.Inodes()[len(m.Inodes())-1]; ino.DataPending() || ino.DurableSize != int64(n)*512 {
					b.Fatalf("after the fdatasync: pending %v, durable size %d", ino.DataPending(), ino.DurableSize)
				}
			}
		})
	}
}

// unsyncedWrites is a trace that creates a file, writes it n times and
// syncs it once, as crashsim trace records it (no bytes).
func unsyncedWrites(b *testing.B, n int) []*parser.Event {
	var t strings.Builder
	t.WriteString(`100 openat(AT_FDCWD, "/var/tmp/w.bin", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5` + "\n")
	for range n {
		t.WriteString(`100 write(5, ""..., 512) = 512` + "\n")
	}
	t.WriteString("100 fdatasync(5) = 0\n")
	return parseTrace(b, t.String())
}

// parseTrace reads the events of a trace held in a string.
func parseTrace(tb testing.TB, trace string) []*parser.Event {
	return readEvents(tb, trace, "test.strace")
}

// readEvents reads the events of trace, naming it name: data references
// point into a file of that name, if one holds the same text.
func readEvents(tb testing.TB, trace, name string) []*parser.Event {
	return model.TraceEvents(tb, trace, name)
}

// renamedBackAndForth is a trace that writes a new file n times, never
// syncs, and renames it a→b and back r times: r pending entry operations
// give each name the same inode.
func renamedBackAndForth(tb testing.TB, n, r int) []*parser.Event {
	var t strings.Builder
	t.WriteString(`100 openat(AT_FDCWD, "/w/a", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5` + "\n")
	for range n {
		t.WriteString(`100 write(5, ""..., 100) = 100` + "\n")
	}
	for range r {
		t.WriteString(`100 rename("/w/a", "/w/b") = 0` + "\n" + `100 rename("/w/b", "/w/a") = 0` + "\n")
	}
	return parseTrace(tb, t.String())
}

// TestCrashRenamedBackAndForth: however many times a file went back and
// forth, the states a crash can leave at its name are the same; only the
// count of ways to reach them grows.
func TestCrashRenamedBackAndForth(t *testing.T) {
	crash := func(r int) model.PathOutcomes {
		m := model.New(model.Options{Persistence: model.Posix})
		for _, ev := range renamedBackAndForth(t, 40, r) {
			m.Apply(ev)
		}
		return m.Crash("/w/a", 256)
	}
	one, many := crash(1), crash(50)
	key := func(po model.PathOutcomes) []string {
		var k []string
		for _, s := range po.States {
			k = append(k, fmt.Sprintf("%d %s %s", s.Inode, s.Outcome, s.Persisted))
		}
		return k
	}
	if a, b := strings.Join(key(one), "; "), strings.Join(key(many), "; "); a != b {
		t.Errorf("states after 1 round trip:\n%s\nafter 50:\n%s", a, b)
	}
	if many.Total <= one.Total {
		t.Errorf("Total %d after 50 round trips, %d after 1: want more ways", many.Total, one.Total)
	}
}

// BenchmarkCrashRenamedBackAndForth: a crash state at a name that 2000
// pending renames gave the same inode, with 20k pending writes (check asks
// this at every rename).
func BenchmarkCrashRenamedBackAndForth(b *testing.B) {
	m := model.New(model.Options{Persistence: model.Posix})
	for _, ev := range renamedBackAndForth(b, 20000, 1000) {
		m.Apply(ev)
	}
	for b.Loop() {
		if po := m.Crash("/w/a", 256); len(po.States) == 0 {
			b.Fatal("no states")
		}
	}
}

// pendingRenames is the shape of a server that keeps its data in a
// subdirectory it made in a directory it never fsyncs (Redis's
// appendonlydir): the mkdir, r temp files created there and renamed into
// the subdirectory stay pending for the whole run, while a log in the
// subdirectory is appended to and fdatasynced n times. Every crash point
// then enumerates the subsets of those pending ops.
func pendingRenames(tb testing.TB, r, n int) []*parser.Event {
	var t strings.Builder
	t.WriteString(`100 mkdir("/w/d", 0755) = 0` + "\n")
	for i := range r {
		fmt.Fprintf(&t, "100 openat(AT_FDCWD, \"/w/t%d\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 6\n", i)
		t.WriteString(`100 write(6, ""..., 100) = 100` + "\n" + "100 fsync(6) = 0\n100 close(6) = 0\n")
		fmt.Fprintf(&t, "100 rename(\"/w/t%d\", \"/w/d/b%d\") = 0\n", i, i)
	}
	t.WriteString(`100 openat(AT_FDCWD, "/w/d/log", O_WRONLY|O_CREAT|O_APPEND, 0644) = 7` + "\n")
	for range n {
		t.WriteString(`100 write(7, ""..., 300) = 300` + "\n" + "100 fdatasync(7) = 0\n")
	}
	return parseTrace(tb, t.String())
}

// BenchmarkTimelinePendingRenames: the summarized timeline (what states
// prints) of pendingRenames with 4 and 5 renames, whose joint count
// enumerates hundreds of subsets of the pending ops at each of the 2000
// crash points of the log.
func BenchmarkTimelinePendingRenames(b *testing.B) {
	for _, r := range []int{4, 5} {
		b.Run(fmt.Sprintf("renames=%d", r), func(b *testing.B) {
			benchSummary(b, pendingRenames(b, r, 1000), 2000)
		})
	}
}

// BenchmarkTimelineManyPendingWrites: the summarized timeline of a file
// rewritten in place 4,000 times before one fdatasync, as a database
// flushes pages or a server rewrites its log: past 16 pending writes,
// every crash point builds the file's 64 bounded states with their words.
func BenchmarkTimelineManyPendingWrites(b *testing.B) {
	var t strings.Builder
	t.WriteString(`100 openat(AT_FDCWD, "/w/data.db", O_RDWR|O_CREAT, 0644) = 5` + "\n")
	t.WriteString(`100 pwrite64(5, ""..., 65536, 0) = 65536` + "\n" + "100 fdatasync(5) = 0\n")
	for i := range 4000 {
		fmt.Fprintf(&t, "100 pwrite64(5, \"\"..., 8192, %d) = 8192\n", (i%8)*8192)
	}
	t.WriteString("100 fdatasync(5) = 0\n")
	benchSummary(b, parseTrace(b, t.String()), 4000)
}

// benchSummary replays evs through a summarized posix timeline (what
// states prints) per round, and fails unless it gives at least
// minPoints crash points.
func benchSummary(b *testing.B, evs []*parser.Event, minPoints int) {
	b.ReportAllocs()
	for b.Loop() {
		tl := model.NewTimeline(model.Options{Persistence: model.Posix}, func(string) bool { return true }, 256)
		tl.Summarize()
		points := 0
		for _, ev := range evs {
			if _, ok := tl.Step(ev); ok {
				points++
			}
		}
		if points < minPoints {
			b.Fatalf("%d crash points, want at least %d", points, minPoints)
		}
	}
}
