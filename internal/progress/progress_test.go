package progress

import (
	"strings"
	"testing"
	"time"
)

// clock is a time a test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time       { return c.t }
func (c *clock) pass(d time.Duration) { c.t = c.t.Add(d) }
func newAt(c *clock, live bool, delay time.Duration, w *strings.Builder) *Line {
	l := New(w, live, delay)
	l.now = c.now
	l.start = c.t
	return l
}

func TestLines(t *testing.T) {
	var c clock
	var w strings.Builder
	l := newAt(&c, false, time.Second, &w)
	calls := 0
	text := func(s string) func() string { return func() string { calls++; return s } }
	l.Update(text("too soon"))
	c.pass(time.Second)
	l.Update(text("one"))
	c.pass(LineEvery - time.Millisecond)
	l.Update(text("within the interval"))
	c.pass(time.Millisecond)
	l.Update(text("two"))
	l.Clear()
	if got, want := w.String(), "one\ntwo\n"; got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
	if calls != 2 {
		t.Errorf("text made %d times, want only for the 2 lines shown", calls)
	}
	if l.Elapsed() != time.Second+LineEvery {
		t.Errorf("elapsed %v", l.Elapsed())
	}
}

func TestLive(t *testing.T) {
	var c clock
	var w strings.Builder
	l := newAt(&c, true, 0, &w)
	l.Clear() // nothing shown: nothing to clear
	l.Update(func() string { return "10%" })
	c.pass(liveEvery / 2)
	l.Update(func() string { return "15%" })
	c.pass(liveEvery)
	l.Update(func() string { return "20%" })
	l.Clear()
	if got, want := w.String(), "\r\x1b[K10%\r\x1b[K20%\r\x1b[K"; got != want {
		t.Errorf("live line %q, want %q", got, want)
	}
}
