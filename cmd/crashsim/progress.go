package main

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/crashsim/crashsim/internal/progress"
	"github.com/crashsim/crashsim/parser"
)

// progressDelay is how long reading a trace runs before progress shows:
// work that takes less than that shows nothing.
var progressDelay = time.Second

// progressReader shows how much of a trace has been read on stderr: a
// line redrawn in place on a terminal, else (--progress) a line every few
// seconds, once reading has taken longer than progressDelay.
//
// The file may be read on a parsing goroutine (parser.Pipeline), while
// the line is written on stderr, which the caller writes too: Read only
// counts the bytes, and progressStream shows them from the caller's
// goroutine.
type progressReader struct {
	r     io.Reader
	desc  string
	total int64
	done  atomic.Int64
	line  *progress.Line
}

func newProgress(r io.Reader, total int64, w io.Writer, live bool, desc string) *progressReader {
	return &progressReader{r: r, desc: desc, total: total, line: progress.New(w, live, progressDelay)}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done.Add(int64(n))
	return n, err
}

// draw shows how far reading has got, and at what speed.
func (p *progressReader) draw() {
	p.line.Update(func() string {
		done, secs := p.done.Load(), p.line.Elapsed().Seconds()
		s := fmt.Sprintf("%s: %d%% of %s", p.desc, done*100/max(p.total, 1), mib(p.total))
		if secs > 0 && done > 0 {
			rate := float64(done) / secs
			s += fmt.Sprintf(", %s/s, %.0fs left", mib(int64(rate)), float64(p.total-done)/rate)
		}
		return s
	})
}

// mib writes a size in MiB, or KiB below one.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// finish takes the line away, if it showed on a terminal.
func (p *progressReader) finish() {
	if p != nil {
		p.line.Clear()
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
