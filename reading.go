package crashsim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/progress"
	"github.com/crashsim/crashsim/parser"
)

// Reading is how a trace is read beyond the parser's options: on a
// goroutine of its own, and with a progress line. Its Open has the shape
// of Inputs.Open.
type Reading struct {
	// Pipeline parses each trace on a goroutine of its own
	// (parser.Pipeline), unless nothing is decoded and so nothing
	// overlaps. Warnings still come out on the caller's goroutine, at the
	// point of the trace they belong to.
	Pipeline bool
	// Progress, when not nil, shows how much of a single file has been
	// read, once reading has taken longer than Delay: a line redrawn in
	// place when Live (a terminal), else a line every few seconds.
	Progress io.Writer
	Live     bool
	Delay    time.Duration
}

// Open opens a trace with opt.
func (r Reading) Open(path string, opt parser.Options) (parser.Stream, error) {
	open := func(opt parser.Options) (parser.Stream, error) { return r.openFile(path, opt) }
	var s parser.Stream
	var err error
	if r.Pipeline && !opt.DecodeNone {
		s, err = parser.Pipeline(opt, open)
	} else {
		s, err = open(opt)
	}
	if err != nil {
		return nil, err
	}
	if ps, ok := parser.PipelineSource(s).(progressSource); ok {
		// Progress is shown from the caller's goroutine, between events,
		// never from the one that reads the file.
		s = &progressStream{Stream: s, p: ps.p}
	}
	return s, nil
}

// openFile opens a trace for the parser; with Progress, reading a single
// file shows how far it has got.
func (r Reading) openFile(path string, opt parser.Options) (parser.Stream, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || r.Progress == nil {
		return parser.Open(path, opt)
	}
	f, err := inputfile.Open(path, inputfile.Named)
	if err != nil {
		return nil, err
	}
	p := &progressReader{r: f, desc: "crashsim: reading " + filepath.Base(path), total: fi.Size(), line: progress.New(r.Progress, r.Live, r.Delay)}
	return progressSource{parser.NewReader(readCloser{p, f}, path, opt), p}, nil
}

// progressReader counts the bytes of a trace read so far. The file may be
// read on a parsing goroutine (parser.Pipeline), while the line is
// written on stderr, which the caller writes too: Read only counts, and
// progressStream draws from the caller's goroutine.
type progressReader struct {
	r     io.Reader
	desc  string
	total int64
	done  atomic.Int64
	line  *progress.Line
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

// progressSource is the stream of a file whose reading p counts.
type progressSource struct {
	parser.Stream
	p *progressReader
}

// Skip passes an event of the file whose reading p counts.
func (s progressSource) Skip() error { return parser.Skip(s.Stream) }

// progressStream draws the line between events, on the caller's
// goroutine, and takes it away when the trace is closed.
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

// Skip passes an event for a reading that only counts (parser.Skip),
// drawing the line as Next does.
func (s *progressStream) Skip() error {
	if s.n++; s.n%1024 == 1 {
		s.p.draw()
	}
	return parser.Skip(s.Stream)
}

func (s *progressStream) Close() error {
	err := s.Stream.Close()
	s.p.line.Clear()
	return err
}

// readCloser is a reader whose Close closes the file under it.
type readCloser struct {
	io.Reader
	io.Closer
}
