package tracer

import (
	"errors"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
)

// lingerWatch notices when the traced command's first process (strace's
// child) has exited, and once Options.Linger has passed since, returns
// what is left of the run.
type lingerWatch struct {
	strace  int
	linger  time.Duration
	started time.Time
	cmd     int       // the command's first process, once seen
	gone    time.Time // when it was first seen gone
	fired   bool
}

func newLingerWatch(strace int, linger time.Duration) *lingerWatch {
	return &lingerWatch{strace: strace, linger: linger, started: time.Now()}
}

// check is called every few tens of milliseconds. It returns the
// leftovers, once, when it is time to kill them.
func (l *lingerWatch) check(token string) []reap.Proc {
	if l.fired || l.linger < 0 {
		return nil
	}
	if l.gone.IsZero() {
		if l.cmd == 0 {
			pid, err := reap.FirstChild(l.strace)
			switch {
			case err == nil:
				l.cmd = pid
			case errors.Is(err, reap.ErrNoProc) && time.Since(l.started) > time.Second:
				// strace forks the command at once: a second without a
				// child means it came and went between two looks.
				l.gone = time.Now()
			}
			return nil
		}
		if !reap.Alive(l.cmd) {
			l.gone = time.Now()
		}
		return nil
	}
	if time.Since(l.gone) < l.linger {
		return nil
	}
	l.fired = true
	return reap.Holders(token, l.strace)
}
