// Package progress says how far a long job has got on one line of a
// writer, stderr: redrawn in place on a terminal, or written out every
// few seconds elsewhere (a CI log, a file), where redrawing would leave
// a carriage return in every line. A job shorter than a delay says
// nothing.
package progress

import (
	"io"
	"time"
)

// The intervals between two lines.
const (
	liveEvery = 100 * time.Millisecond // on a terminal
	LineEvery = 5 * time.Second        // elsewhere
)

// A Line is the progress of one job.
type Line struct {
	w     io.Writer
	live  bool
	delay time.Duration
	every time.Duration
	start time.Time
	last  time.Time
	shown bool
	now   func() time.Time
}

// New starts the progress of a job on w: a live line redrawn in place
// when w is a terminal (live), else a line every LineEvery. Nothing
// shows before delay has passed.
func New(w io.Writer, live bool, delay time.Duration) *Line {
	l := &Line{w: w, live: live, delay: delay, every: LineEvery, now: time.Now}
	if live {
		l.every = liveEvery
	}
	l.start = l.now()
	return l
}

// Elapsed is the time since the job started.
func (l *Line) Elapsed() time.Duration { return l.now().Sub(l.start) }

// Update shows the line text makes, unless it is too soon: before the
// delay, or within the interval since the last line. text is called only
// when the line shows.
func (l *Line) Update(text func() string) {
	now := l.now()
	if now.Sub(l.start) < l.delay || l.shown && now.Sub(l.last) < l.every {
		return
	}
	l.last = now
	l.shown = true
	if l.live {
		io.WriteString(l.w, "\r\x1b[K"+text())
		return
	}
	io.WriteString(l.w, text()+"\n")
}

// Clear takes a live line away once the job is done, so that what is
// written next starts on a clean line; the lines written elsewhere stay.
func (l *Line) Clear() {
	if l.live && l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}
