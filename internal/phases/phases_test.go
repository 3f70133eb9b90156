package phases

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// TestMarks: each mark prints its phase's wall and CPU time since the
// mark before (the first since Start); a phase under a millisecond is
// not printed but still ends; nothing is printed before Start or after
// Stop.
func TestMarks(t *testing.T) {
	wall, proc := time.Unix(1000, 0), time.Duration(0)
	rss, heap := int64(0), int64(0)
	defer func(n func() time.Time, c func() time.Duration, p, l func() int64) {
		now, clock, peak, live = n, c, p, l
	}(now, clock, peak, live)
	live = func() int64 { return heap }
	now = func() time.Time { return wall }
	clock = func() time.Duration { return proc }
	peak = func() int64 { return rss }
	var buf bytes.Buffer
	Mark("before start")
	Start(&buf, time.Millisecond)
	wall, proc, rss, heap = wall.Add(2*time.Second), proc+3*time.Second, 300e6, 120e6
	Mark("read")
	wall, proc = wall.Add(500*time.Microsecond), proc+time.Millisecond
	Mark("nothing to do")
	wall, proc, rss, heap = wall.Add(1500*time.Millisecond), proc+1500*time.Millisecond, 1234567890, 987654321
	Mark("report")
	Stop()
	wall = wall.Add(time.Second)
	Mark("after stop")
	want := "crashsim: phase read                                        2.000 s wall    3.000 s CPU    300 MB peak    120 MB live\n" +
		"crashsim: phase report                                      1.500 s wall    1.500 s CPU   1234 MB peak    987 MB live\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
	if On() {
		t.Error("On after Stop")
	}
}

// TestLiveHeap: after a collection the live heap counts memory still
// held, and not memory let go.
func TestLiveHeap(t *testing.T) {
	keep := make([]byte, 64<<20)
	runtime.GC()
	held := liveHeap()
	if held < 64<<20 {
		t.Errorf("live heap %d bytes with 64 MiB held", held)
	}
	runtime.KeepAlive(keep)
	keep = nil
	runtime.GC()
	if after := liveHeap(); after > held-32<<20 {
		t.Errorf("live heap %d bytes after 64 MiB let go (was %d)", after, held)
	}
}
