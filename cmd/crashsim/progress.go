package main

import (
	"io"
	"time"

	"github.com/crashsim/crashsim/parser"
	"github.com/schollz/progressbar/v3"
)

// progressDelay is how long reading a trace runs before a bar shows: work
// that takes less than that shows nothing.
var progressDelay = time.Second

// progressReader shows how much of a trace has been read, on a terminal
// (or with --progress), once reading has taken longer than progressDelay.
// schollz/progressbar draws it, so that redrawing, throttling and
// clearing the line are not crashsim's escape codes.
type progressReader struct {
	r     io.Reader
	w     io.Writer
	desc  string
	total int64
	done  int64
	start time.Time
	bar   *progressbar.ProgressBar
}

func newProgress(r io.Reader, total int64, w io.Writer, desc string) *progressReader {
	return &progressReader{r: r, w: w, desc: desc, total: total, start: time.Now()}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.bar == nil && time.Since(p.start) >= progressDelay {
		p.bar = progressbar.NewOptions64(p.total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.desc),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
		)
	}
	if p.bar != nil {
		_ = p.bar.Set64(p.done)
	}
	return n, err
}

// finish clears the bar, if it showed.
func (p *progressReader) finish() {
	if p != nil && p.bar != nil {
		_ = p.bar.Finish()
	}
}

// progressStream clears the bar when the trace is closed.
type progressStream struct {
	parser.Stream
	p *progressReader
}

func (s progressStream) Close() error {
	s.p.finish()
	return s.Stream.Close()
}

// readCloser is a reader whose Close closes the file under it.
type readCloser struct {
	io.Reader
	io.Closer
}
