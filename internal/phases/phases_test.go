package phases

import (
	"bytes"
	"testing"
	"time"
)

// TestMarks: each mark prints its phase's wall and CPU time since the
// mark before (the first since Start); a phase under a millisecond is
// not printed but still ends; nothing is printed before Start or after
// Stop.
func TestMarks(t *testing.T) {
	wall, proc := time.Unix(1000, 0), time.Duration(0)
	rss := int64(0)
	defer func(n func() time.Time, c func() time.Duration, p func() int64) { now, clock, peak = n, c, p }(now, clock, peak)
	now = func() time.Time { return wall }
	clock = func() time.Duration { return proc }
	peak = func() int64 { return rss }
	var buf bytes.Buffer
	Mark("before start")
	Start(&buf, time.Millisecond)
	wall, proc, rss = wall.Add(2*time.Second), proc+3*time.Second, 300e6
	Mark("read")
	wall, proc = wall.Add(500*time.Microsecond), proc+time.Millisecond
	Mark("nothing to do")
	wall, proc, rss = wall.Add(1500*time.Millisecond), proc+1500*time.Millisecond, 1234567890
	Mark("report")
	Stop()
	wall = wall.Add(time.Second)
	Mark("after stop")
	want := "crashsim: phase read                                        2.000 s wall    3.000 s CPU    300 MB peak\n" +
		"crashsim: phase report                                      1.500 s wall    1.500 s CPU   1234 MB peak\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
	if On() {
		t.Error("On after Stop")
	}
}
