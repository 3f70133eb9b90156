package main

import (
	"io"
	"sync"
	"sync/atomic"
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
//
// The file may be read on a parsing goroutine (parser.Pipeline), while
// the bar is drawn on stderr, which the caller writes too: Read only counts
// the bytes, and progressStream draws the bar from the caller's goroutine.
type progressReader struct {
	r     io.Reader
	w     io.Writer
	desc  string
	total int64
	done  atomic.Int64
	start time.Time
	bar   *progressbar.ProgressBar
	once  sync.Once
}

func newProgress(r io.Reader, total int64, w io.Writer, desc string) *progressReader {
	return &progressReader{r: r, w: w, desc: desc, total: total, start: time.Now()}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done.Add(int64(n))
	return n, err
}

// draw shows the bar once reading has taken longer than progressDelay.
func (p *progressReader) draw() {
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
		_ = p.bar.Set64(p.done.Load())
	}
}

// finish clears the bar, if it showed.
func (p *progressReader) finish() {
	if p != nil && p.bar != nil {
		p.once.Do(func() { _ = p.bar.Finish() })
	}
}

// progressSource is the stream of a file whose reading p counts.
type progressSource struct {
	parser.Stream
	p *progressReader
}

// progressOf finds the progressReader of a stream opened by openParser,
// through a pipeline.
func progressOf(s parser.Stream) (*progressReader, bool) {
	if ps, ok := parser.PipelineSource(s).(progressSource); ok {
		return ps.p, true
	}
	return nil, false
}

// progressStream draws the bar between events, on the caller's
// goroutine, and clears it when the trace is closed.
type progressStream struct {
	parser.Stream
	p *progressReader
	n int
}

func (s *progressStream) Next() (*parser.Event, error) {
	if s.n++; s.n%1024 == 1 {
		s.p.draw()
	}
	return s.Stream.Next()
}

func (s *progressStream) Close() error {
	err := s.Stream.Close()
	s.p.finish()
	return err
}

// readCloser is a reader whose Close closes the file under it.
type readCloser struct {
	io.Reader
	io.Closer
}
