package tracer

import (
	"errors"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
)

// lingerWatch notices when the traced command's first process (strace's
// child) has exited, and once Options.Linger has passed since, says it is
// time to end what is left of the run.
type lingerWatch struct {
	strace  int
	linger  time.Duration
	started time.Time
	cmd     int       // the command's first process, once seen
	gone    time.Time // when it was first seen gone
}

func newLingerWatch(strace int, linger time.Duration) *lingerWatch {
	return &lingerWatch{strace: strace, linger: linger, started: time.Now()}
}

// due is called every few tens of milliseconds. It reports whether
// Linger has passed since the command's first process exited.
func (l *lingerWatch) due() bool {
	if l.linger < 0 {
		return false
	}
	if l.gone.IsZero() {
		if l.cmd == 0 {
			pid, err := reap.TracedCommand(l.strace)
			switch {
			case err == nil:
				l.cmd = pid
			case errors.Is(err, reap.ErrNoProc) && time.Since(l.started) > time.Second:
				// strace forks the command at once: a second without a
				// child means it came and went between two looks.
				l.gone = time.Now()
			}
			return false
		}
		if !reap.Alive(l.cmd) {
			l.gone = time.Now()
		}
		return false
	}
	return time.Since(l.gone) >= l.linger
}
