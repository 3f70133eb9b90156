package parser

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/crashsim/crashsim/internal/inputfile"
)

// Probe is what the first events of a trace say about how it was
// recorded, for a caller deciding what to read it for before it reads it
// whole: whether a second pass for -k stacks is worth it, which process
// the traced command was.
type Probe struct {
	// Stacks: events carry -k stack frames (Event.Stack).
	Stacks bool
	// PIDs: lines carry a pid (-f, or an -ff set).
	PIDs bool
	// Times: lines carry a timestamp (-t, -tt, -ttt or -r).
	Times bool
	// FirstPID is the pid of the first event: under -f, the command
	// strace started (its execve is the first traced call). 0 when the
	// trace has no pid column or no event.
	FirstPID int
	// Events is how many events the probe read.
	Events int
}

// probeBytes bounds what ProbeTrace reads of a file: the head of a trace
// says how it was recorded, and a probe must cost the same on a gigabyte
// trace as on a small one. A first line longer than that is read whole,
// and probeBytes past it (headReader).
const probeBytes = 256 << 10

// probeEvents bounds the events ProbeTrace reads of an -ff set, whose
// members are merged as they are read.
const probeEvents = 1024

// ProbeTrace reads the first events of a trace (a file, or the PREFIX of
// an -ff set) and says how it was recorded. It reads the first 256 KiB of
// a file, or when the first line is longer (an execve whose arguments,
// escaped, pass that), the first line whole, as a stream, and 256 KiB
// past it: the first event is the one that names the traced command. A
// line that does not read ends the probe there: what
// was seen before it is still said, and the full reading gives the error.
// Only a trace that cannot be opened is an error.
func ProbeTrace(path string) (Probe, error) {
	var s Stream
	limit := -1
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		f, err := inputfile.Open(path, inputfile.Named)
		if err != nil {
			return Probe{}, err
		}
		s = NewReader(readCloser{&headReader{r: f, limit: probeBytes, first: true}, f}, path, Options{DecodeNone: true})
	} else {
		var err error
		if s, err = Open(path, Options{DecodeNone: true, anyDay: true}); err != nil {
			return Probe{}, err
		}
		limit = probeEvents
	}
	defer s.Close()
	var p Probe
	for limit < 0 || p.Events < limit {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) || err != nil {
			break
		}
		if p.Events == 0 {
			p.FirstPID = ev.PID
		}
		p.Events++
		p.Stacks = p.Stacks || len(ev.Stack()) > 0
		p.PIDs = p.PIDs || ev.PID != 0
		p.Times = p.Times || ev.HasTime
	}
	return p, nil
}

// readCloser reads from one reader and closes another (the file under a
// limit).
type readCloser struct {
	io.Reader
	io.Closer
}

// headReader passes on the head of a file: its first limit bytes, but a
// first line that runs past them whole, and probeBytes past its end. Cut
// at a fixed size, the head of a trace whose first line is longer (an
// execve with megabytes of arguments) held no event at all.
type headReader struct {
	r     io.Reader
	pos   int64 // bytes passed on
	limit int64 // where the head ends; -1 while a first line that runs past it goes on
	first bool  // no newline passed on yet
}

func (h *headReader) Read(p []byte) (int, error) {
	if h.limit >= 0 {
		if h.pos >= h.limit {
			return 0, io.EOF
		}
		p = p[:min(int64(len(p)), h.limit-h.pos)]
	}
	n, err := h.r.Read(p)
	if h.first {
		if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
			h.first = false
			if h.limit < 0 {
				h.limit = h.pos + int64(i) + 1 + probeBytes
				n = int(min(int64(n), h.limit-h.pos))
			}
		} else if h.limit >= 0 && h.pos+int64(n) >= h.limit {
			h.limit = -1
		}
	}
	h.pos += int64(n)
	return n, err
}
