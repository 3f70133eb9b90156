package parser

import (
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
// trace as on a small one.
const probeBytes = 256 << 10

// probeEvents bounds the events ProbeTrace reads of an -ff set, whose
// members are merged as they are read.
const probeEvents = 1024

// ProbeTrace reads the first events of a trace (a file, or the PREFIX of
// an -ff set) and says how it was recorded. It reads at most the first
// 256 KiB of a file. A line that does not read ends the probe there: what
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
		s = NewReader(readCloser{io.LimitReader(f, probeBytes), f}, path, Options{DecodeNone: true})
	} else {
		var err error
		if s, err = Open(path, Options{DecodeNone: true}); err != nil {
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
