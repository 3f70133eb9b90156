package tracer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/crashsim/crashsim/parser"
	"golang.org/x/sys/unix"
)

// sink takes strace's output through a pipe and writes it to the trace file
// in large pieces. strace writes its -o file a line at a time (a write(2)
// per syscall it prints, often two under -f), and each of those small
// appends to a file costs several microseconds on ext4, paid while the
// tracee waits: on 16k traced writes, plain strace into a file took about
// 100 ms more than into /dev/null. Into a pipe that nobody is blocked
// reading, a write costs about a microsecond; the sink reads what piled up
// every few milliseconds and appends it in one piece.
//
// strace opens the pipe by a /proc/PID/fd path of crashsim's own write end
// and marks its output close-on-exec, so the traced program does not
// inherit it and sees the same fds as under strace alone.
type sink struct {
	r, w    *os.File
	f       *os.File
	path    string // what strace gets as -o
	closing chan struct{}
	done    chan error
	// interrupts gets a value (without blocking) when the trace shows a
	// tracee receiving a SIGINT from the terminal: Ctrl-C, which goes to
	// the command's process group, not to crashsim, when the command has
	// the terminal (see procAttr).
	interrupts chan struct{}
}

// ttyInterrupt is how strace prints a SIGINT the terminal sent
// (parser.TerminalInterrupt).
var ttyInterrupt = []byte(parser.TerminalInterrupt)

// sinkPipeSize is the pipe's capacity: at one read every sinkPause, strace
// would have to print over 200 MB/s before it waited on a full pipe.
const (
	sinkPipeSize = 1 << 20
	sinkPause    = 5 * time.Millisecond
)

// newSink makes the pipe into f, the trace file being written (see
// replacefile.Create), which it does not close.
func newSink(f *os.File) (*sink, error) {
	// A blocking pipe made by hand, not os.Pipe: Go registers the read end
	// of os.Pipe with its netpoller, whose epoll then woke a thread for
	// every line strace wrote, which is what the sink is there to avoid.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	r, w := os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1")
	wfd := p[1]
	// Best effort: a smaller pipe only means more wakeups.
	_, _ = unix.FcntlInt(uintptr(wfd), unix.F_SETPIPE_SZ, sinkPipeSize)
	s := &sink{r: r, w: w, f: f, path: fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), wfd), closing: make(chan struct{}), done: make(chan error, 1), interrupts: make(chan struct{}, 1)}
	go s.copy()
	return s, nil
}

// copy moves what strace writes into the file until the pipe's end, and
// keeps draining after a write error so that strace never blocks. Every
// sinkPause it reads what is there (FIONREAD, called TIOCINQ in x/sys):
// blocked in read on an empty pipe, it would be woken by every line.
func (s *sink) copy() {
	buf := make([]byte, sinkPipeSize+len(ttyInterrupt))
	var werr error
	tail := 0
	rfd := int(s.r.Fd())
	for {
		if avail, err := unix.IoctlGetInt(rfd, unix.TIOCINQ); err == nil && avail == 0 {
			select {
			case <-s.closing:
				// The writers are gone: read to the end.
			case <-time.After(sinkPause):
				continue
			}
		}
		// Read after the tail of the last read, so that a line split
		// between two reads is still seen whole.
		keep := min(tail, len(ttyInterrupt)-1)
		n, err := s.r.Read(buf[keep:])
		if n > 0 && werr == nil {
			_, werr = s.f.Write(buf[keep : keep+n])
		}
		if n > 0 {
			if bytes.Contains(buf[:keep+n], ttyInterrupt) {
				select {
				case s.interrupts <- struct{}{}:
				default:
				}
			}
			keep += n
			copy(buf, buf[keep-min(keep, len(ttyInterrupt)-1):keep])
			tail = min(keep, len(ttyInterrupt)-1)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			werr = errors.Join(werr, err)
			break
		}
	}
	s.r.Close()
	s.done <- werr
}

// finish is called once strace has exited: crashsim's own write end is the
// last one open, so closing it lets the sink read to the end. It returns
// once everything strace wrote is in the trace file (not yet closed).
func (s *sink) finish() error {
	s.w.Close()
	close(s.closing)
	if err := <-s.done; err != nil {
		return fmt.Errorf("write the trace %s: %w", s.f.Name(), err)
	}
	return nil
}
