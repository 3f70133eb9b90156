package parser

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// mergeAllOpen is the merge of an -ff set as it was done with every member
// open at once: each member read to its end on its own, then the events of
// all of them ordered by time and, at equal times, by member (pid order).
func mergeAllOpen(t *testing.T, prefix string) []*Event {
	t.Helper()
	members, err := ffMembers(prefix)
	if err != nil || len(members) == 0 {
		t.Fatalf("members of %s: %v %v", prefix, members, err)
	}
	type item struct {
		ev     *Event
		member int
	}
	var all []item
	for k, m := range members {
		r, err := OpenFile(m.path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r.pid = m.pid
		first := len(all)
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", m.path, err)
			}
			all = append(all, item{ev, k})
		}
		r.Close()
		if len(members) > 1 {
			// Each call ended by its thread's next one, or by Time+Dur
			// (-T) when sooner (see Event.Began).
			for i := first; i < len(all); i++ {
				ev := all[i].ev
				ev.Done = math.MaxInt64
				if i+1 < len(all) {
					ev.Done = all[i+1].ev.Time
				}
				if ev.Dur >= 0 {
					ev.Done = min(ev.Done, ev.Time+int64(ev.Dur))
				}
				ev.Done = max(ev.Done, ev.Time, 1)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.ev.Time != b.ev.Time {
			return a.ev.Time < b.ev.Time
		}
		return a.member < b.member
	})
	evs := make([]*Event, len(all))
	for i, it := range all {
		it.ev.Seq = i
		evs[i] = it.ev
	}
	return evs
}

func readSet(t *testing.T, prefix string, opt Options, each func(n int)) []*Event {
	t.Helper()
	s, err := Open(prefix, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var evs []*Event
	for {
		ev, err := s.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
		if each != nil {
			each(len(evs))
		}
	}
}

func withMaxOpen(t *testing.T, n int) {
	old := maxOpenMembers
	maxOpenMembers = n
	t.Cleanup(func() { maxOpenMembers = old })
}

// TestFFSetSameAsAllOpen: every -ff set of the fixtures reads as it did
// with every member open, with room for all its members open, and with
// room for one (every member parked and opened again at each turn).
func TestFFSetSameAsAllOpen(t *testing.T) {
	for _, prefix := range ffFixtures(t) {
		want := mergeAllOpen(t, prefix)
		var arch []Arch // the architecture of each event, with every member open
		for _, room := range []int{64, 2, 1} {
			t.Run(fmt.Sprintf("%s/open=%d", filepath.Base(filepath.Dir(filepath.Dir(prefix))), room), func(t *testing.T) {
				withMaxOpen(t, room)
				got := readSet(t, prefix, Options{}, nil)
				// The members share what they show of the machine's
				// architecture, which reading them one by one does not:
				// the stamps are compared between the merges.
				if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Event{}, "Arch")); diff != "" {
					t.Errorf("(-all open +merged) %s", diff)
				}
				var stamps []Arch
				for _, ev := range got {
					stamps = append(stamps, ev.Arch)
				}
				if arch == nil {
					arch = stamps
				} else if diff := cmp.Diff(arch, stamps); diff != "" {
					t.Errorf("architectures (-64 open +%d open) %s", room, diff)
				}
			})
		}
	}
}

// ffFixtures are the PREFIXes of the fixtures' -ff sets.
func ffFixtures(t *testing.T) []string {
	t.Helper()
	sets, _ := filepath.Glob("../fixtures/traces/*/ff-ttt/trace.*")
	var prefixes []string
	for _, m := range sets {
		if p := m[:len(m)-len(filepath.Ext(m))]; !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
	}
	if len(prefixes) == 0 {
		t.Fatal("no -ff set among the fixtures")
	}
	return prefixes
}

// writeSet writes an -ff set of n members in dir whose calls alternate
// between all of them (member k's calls at times k, k+n, k+2n, ...), the
// order that makes a merge switch member at every event.
func writeSet(t *testing.T, dir string, n, calls int) string {
	t.Helper()
	prefix := filepath.Join(dir, "trace")
	for k := 0; k < n; k++ {
		f, err := os.Create(fmt.Sprintf("%s.%d", prefix, 1000+k))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for c := 0; c < calls; c++ {
			us := 1000000 + c*n + k
			fmt.Fprintf(w, "1700000000.%06d openat(AT_FDCWD, \"/data/p%d/f%d\", O_WRONLY|O_CREAT, 0644) = 3\n", us, k, c)
		}
		fmt.Fprintf(w, "1700000000.%06d +++ exited with 0 +++\n", 1000000+calls*n+k)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return prefix
}

func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return len(fds)
}

// TestAdversarialFFSetManyMembers: an -ff set of thousands of members is
// read with at most maxOpenMembers of them open and a few KiB of memory
// each, in the order of the all-open merge. Opening every member at once
// failed at 20,000 members (too many open files) and took 966 MB at
// 14,500 (issue 28).
func TestAdversarialFFSetManyMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 5,000 files")
	}
	const members, calls = 5000, 2
	prefix := writeSet(t, t.TempDir(), members, calls)

	base := openFDs(t)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	s, err := Open(prefix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Next() // every member read up to its first call
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var primed runtime.MemStats
	runtime.ReadMemStats(&primed)
	// About 3 KiB a member: its Reader's state and its next call, parked;
	// the open members' buffers and slabs on top. It was 132 KiB.
	grew := int64(primed.HeapAlloc) - int64(before.HeapAlloc)
	if grew > members*8<<10 {
		t.Errorf("the set holds %d KiB for %d members, want at most 8 KiB each", grew>>10, members)
	}
	got := []*Event{first}
	most := openFDs(t)
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
		if len(got)%97 == 0 {
			most = max(most, openFDs(t))
		}
	}
	s.Close()
	t.Logf("%d members: %d KiB, at most %d files open (%d before)", members, grew>>10, most, base)
	// A few descriptors of the runtime's own may come and go meanwhile.
	if most > base+maxOpenMembers+4 {
		t.Errorf("%d files open while the set was read (%d before), want at most %d more", most, base, maxOpenMembers)
	}
	if n := openFDs(t); n > base {
		t.Errorf("%d files open after Close, %d before", n, base)
	}
	if len(got) != members*(calls+1) {
		t.Fatalf("%d events, want %d", len(got), members*(calls+1))
	}
	if diff := cmp.Diff(mergeAllOpen(t, prefix), got); diff != "" {
		t.Errorf("(-all open +merged) %s", diff)
	}
}

// TestFFSetThreadExecve: a thread's execve in an -ff set starts in the
// thread's file, marked "<pid changed to L ...>", and ends in the
// leader's, after "+++ superseded by execve in pid N +++" (strace 6.1,
// a C program whose second thread calls execv). The set reads it as one
// call of the leader's, at its resumed line, with the arguments of its
// start and no warning.
func TestFFSetThreadExecve(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "tr")
	leader := `1796550482.957431 execve("./t", ["./t"], 0x7ffe4201c250 /* 39 vars */) = 0
1796550482.960000 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0, parent_tid=0x7f0, exit_signal=0, stack=0x7f0, stack_size=0x7fff00, tls=0x7f0} => {parent_tid=[2740]}, 88) = 2740
1796550482.964692 pause()               = ?
1796550482.965887 +++ superseded by execve in pid 2740 +++
1796550482.966031 <... execve resumed>) = 0
1796550482.974390 exit_group(0) = ?
1796550482.974400 +++ exited with 0 +++
`
	thread := `1796550482.962000 set_robust_list(0x7f0, 24) = 0
1796550482.964796 execve("/bin/sh", ["/bin/sh", "-c", "echo x > out2"], 0x7fffdf3b90d8 /* 39 vars */ <pid changed to 2739 ...>
`
	for name, text := range map[string]string{"tr.2739": leader, "tr.2740": thread} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var warnings []string
	evs := readSet(t, prefix, Options{Warn: func(p Pos, msg string) {
		warnings = append(warnings, fmt.Sprintf("%s:%d: %s", filepath.Base(p.File), p.Line, msg))
	}}, nil)
	var execs []string
	for _, ev := range evs {
		if ev.Name == "execve" {
			var argv []string
			for _, a := range ev.Arg(1).Elems {
				argv = append(argv, a.Str)
			}
			execs = append(execs, fmt.Sprintf("%s:%d pid %d %s %q = %d", filepath.Base(ev.Pos.File), ev.Pos.Line, ev.PID, ev.Arg(0).Str, argv, ev.Ret))
		}
	}
	want := []string{
		`tr.2739:1 pid 2739 ./t ["./t"] = 0`,
		`tr.2739:5 pid 2739 /bin/sh ["/bin/sh" "-c" "echo x > out2"] = 0`,
	}
	if diff := cmp.Diff(want, execs); diff != "" {
		t.Errorf("execve events (-want +got):\n%s", diff)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
}

// TestOpenPrefixThatIsAFile: strace -o t, then strace -ff -o t, leaves a
// trace t beside the set t.PID. Reading t quietly checked the old
// recording (a clean one, while the set lost data); it is refused, and
// the set is read as 't.*'.
func TestOpenPrefixThatIsAFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"t":     "1700000001.000000 close(3) = 0\n",
		"t.200": "1700000002.000000 write(1, \"a\", 1) = 1\n",
		"t.201": "1700000002.500000 close(4) = 0\n",
		"u.300": "1700000003.000000 close(5) = 0\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prefix := filepath.Join(dir, "t")
	if _, err := Open(prefix, Options{}); err == nil || !strings.Contains(err.Error(), "two recordings under one name") || !strings.Contains(err.Error(), "'"+prefix+".*'") {
		t.Errorf("Open(%s) with a set beside it: %v, want it refused, naming %s.*", prefix, err, prefix)
	}
	if !IsSet(prefix + ".*") {
		t.Errorf("IsSet(%s.*) = false", prefix)
	}
	if IsSet(prefix) {
		t.Errorf("IsSet(%s) = true: a file of that name exists", prefix)
	}
	s, err := Open(prefix+".*", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var names []string
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, ev.Name)
	}
	if want := []string{"write", "close"}; !slices.Equal(names, want) {
		t.Errorf("the set of %s.*: calls %q, want %q", prefix, names, want)
	}
	if _, err := Open(filepath.Join(dir, "x.*"), Options{}); err == nil || !strings.Contains(err.Error(), "no strace -ff files") {
		t.Errorf("Open(x.*) with no set: %v, want an error", err)
	}
	// A set with no file of its prefix reads as before.
	if !IsSet(filepath.Join(dir, "u")) {
		t.Errorf("IsSet(u) = false")
	}
}

// setOrder reads an -ff set and says where each event came from, as
// "FILE:LINE", in the order of the merge; it fails unless the merged
// times never go back.
func setOrder(t *testing.T, prefix string) []string {
	t.Helper()
	var at []string
	var last int64 = math.MinInt64
	for _, ev := range readSet(t, prefix, Options{}, nil) {
		at = append(at, fmt.Sprintf("%s:%d", filepath.Base(ev.Pos.File), ev.Pos.Line))
		if ev.Time < last {
			t.Errorf("%s:%d at %v, before the event merged ahead of it (%v)", filepath.Base(ev.Pos.File), ev.Pos.Line, time.Duration(ev.Time), time.Duration(last))
		}
		last = ev.Time
	}
	return at
}

// lines lists "NAME:1" to "NAME:n".
func lines(name string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s:%d", name, i))
	}
	return out
}

// TestFFSetMidnight: an -ff set stamped -tt whose child process began
// after midnight, while its parent began before. Each file noticed only
// its own midnight, so the child's lines (00:00:00.05) read as the first
// of the run and were merged ahead of the parent's open, fsync and clone
// at 23:59:58-59: the write after the fsync came before it, and check
// found nothing wrong. The child's file follows the clone that made it,
// as noon.*, the same run twelve hours earlier, always did.
func TestFFSetMidnight(t *testing.T) {
	for _, name := range []string{"fsync-early", "noon", "rename-late"} {
		t.Run(name, func(t *testing.T) {
			p, c := name+".200", name+".201"
			parentLines := 11
			cloneLine := 3
			if name == "rename-late" {
				cloneLine = 5
			}
			want := append(append(lines(p, 1, cloneLine), lines(c, 1, 3)...), lines(p, cloneLine+1, parentLines)...)
			for _, room := range []int{64, 1} {
				withMaxOpen(t, room)
				if diff := cmp.Diff(want, setOrder(t, filepath.Join("testdata", "midnight", name))); diff != "" {
					t.Errorf("open=%d: order (-want +got):\n%s", room, diff)
				}
			}
		})
	}
	evs := readSet(t, filepath.Join("testdata", "midnight", "fsync-early"), Options{}, nil)
	for _, ev := range evs {
		if ev.Pos.Line == 1 && strings.HasSuffix(ev.Pos.File, ".201") {
			if want := 24*time.Hour + 50*time.Millisecond; time.Duration(ev.Time) != want {
				t.Errorf("the child's first call at %v, want %v (the day after)", time.Duration(ev.Time), want)
			}
		}
	}
}

// writeMembers writes an -ff set's files, PREFIX.PID, and returns PREFIX.
func writeMembers(t *testing.T, files map[int]string) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "run")
	for pid, text := range files {
		if err := os.WriteFile(fmt.Sprintf("%s.%d", prefix, pid), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return prefix
}

const forkTo = `clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0000000a10) = `

// TestFFSetDays: how the files of an -ff set stamped with times of day
// are placed on the days of a run: a child on the day of the clone that
// made it, across several midnights; processes that no clone made (the
// command and the ones strace attached to) together at the start; and
// where neither tells, an error rather than a guess.
func TestFFSetDays(t *testing.T) {
	h := func(d, hh, mm int) time.Duration {
		return time.Duration(d)*24*time.Hour + time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute
	}
	t.Run("several midnights", func(t *testing.T) {
		// The parent runs from 22:00 to the second day after, a line
		// every four hours at most; its child, made at 23:00 on the
		// first day after, begins at 00:30 on the second.
		prefix := writeMembers(t, map[int]string{
			300: "22:00:00.000000 getpid() = 300\n02:00:00.000000 getpid() = 300\n06:00:00.000000 getpid() = 300\n" +
				"10:00:00.000000 getpid() = 300\n14:00:00.000000 getpid() = 300\n18:00:00.000000 getpid() = 300\n" +
				"22:00:00.000000 getpid() = 300\n23:00:00.000000 " + forkTo + "301\n02:00:00.000000 exit_group(0) = ?\n02:00:00.000100 +++ exited with 0 +++\n",
			301: "00:30:00.000000 getpid() = 301\n01:00:00.000000 exit_group(0) = ?\n01:00:00.000100 +++ exited with 0 +++\n",
		})
		evs := readSet(t, prefix, Options{}, nil)
		var got []time.Duration
		for _, ev := range evs {
			if ev.PID == 301 {
				got = append(got, time.Duration(ev.Time).Truncate(time.Minute))
			}
		}
		if want := []time.Duration{h(2, 0, 30), h(2, 1, 0), h(2, 1, 0)}; !slices.Equal(got, want) {
			t.Errorf("the child's calls at %v, want %v", got, want)
		}
		if want := append(append(lines("run.300", 1, 8), lines("run.301", 1, 3)...), lines("run.300", 9, 10)...); !slices.Equal(setOrder(t, prefix), want) {
			t.Errorf("order %v, want %v", setOrder(t, prefix), want)
		}
	})
	t.Run("attached before and after midnight", func(t *testing.T) {
		// strace -p of two threads: neither file made by a clone in the
		// set, one begun before midnight and one after.
		prefix := writeMembers(t, map[int]string{
			400: "00:00:00.300000 close(5) = 0\n00:00:00.400000 exit(0) = ?\n00:00:00.400100 +++ exited with 0 +++\n",
			401: "23:59:59.900000 close(6) = 0\n00:00:00.500000 exit_group(0) = ?\n00:00:00.500100 +++ exited with 0 +++\n",
		})
		want := []string{"run.401:1", "run.400:1", "run.400:2", "run.400:3", "run.401:2", "run.401:3"}
		if diff := cmp.Diff(want, setOrder(t, prefix)); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
	})
	t.Run("single file", func(t *testing.T) {
		prefix := writeMembers(t, map[int]string{
			500: "23:59:59.900000 close(6) = 0\n00:00:00.500000 exit_group(0) = ?\n",
		})
		var got []time.Duration
		for _, ev := range readSet(t, prefix, Options{}, nil) {
			got = append(got, time.Duration(ev.Time))
		}
		if want := []time.Duration{h(0, 23, 59) + 59*time.Second + 900*time.Millisecond, h(1, 0, 0) + 500*time.Millisecond}; !slices.Equal(got, want) {
			t.Errorf("times %v, want %v", got, want)
		}
	})
	doubt := map[string]map[int]string{
		// Three processes no clone made, begun eight hours apart: which
		// was first?
		"spread over the clock": {
			600: "00:00:00.000000 close(3) = 0\n",
			601: "08:00:00.000000 close(3) = 0\n",
			602: "16:00:00.000000 close(3) = 0\n",
		},
		// 611 could have begun at 10:30 on the first day or the second:
		// 610 runs for more than a day.
		"a run longer than a day": {
			610: "10:00:00.000000 close(3) = 0\n18:00:00.000000 close(3) = 0\n02:00:00.000000 close(3) = 0\n10:00:00.000000 close(3) = 0\n11:00:00.000000 close(3) = 0\n",
			611: "10:30:00.000000 close(4) = 0\n",
		},
	}
	for name, files := range doubt {
		t.Run(name, func(t *testing.T) {
			s, err := Open(writeMembers(t, files), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = s.Next()
			if err == nil || !strings.Contains(err.Error(), "which day the calls of") || !strings.Contains(err.Error(), "record with -ttt") {
				t.Errorf("got %v, want an error saying the day cannot be told", err)
			}
		})
	}
	// The same runs stamped -ttt read as they did: the stamps tell the
	// day.
	t.Run("epoch", func(t *testing.T) {
		prefix := writeMembers(t, map[int]string{
			620: "1700000000.000000 close(3) = 0\n1700050000.000000 close(3) = 0\n1700100000.000000 close(3) = 0\n",
			621: "1700001800.000000 close(4) = 0\n",
		})
		want := []string{"run.620:1", "run.621:1", "run.620:2", "run.620:3"}
		if diff := cmp.Diff(want, setOrder(t, prefix)); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
	})
}
