package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/crashsim/crashsim/internal/inputfile"
)

// Exit is how one process ended, as its "+++" line says.
type Exit struct {
	Found      bool   // the trace has the process's "+++" line
	Code       int    // its exit status; -1 when a signal killed it
	Signal     string // "SIGKILL" when a signal killed it, else ""
	CoreDumped bool
}

// maxExitLine bounds a "+++" line: a pid (with -Y its command name), a
// timestamp and "+++ killed by SIGSEGV (core dumped) +++".
const maxExitLine = 256

// exitBlock is how much of the file ExitOf reads at a time, from the end.
const exitBlock = 64 << 10

// ExitOf finds how process pid ended in a trace file ("+++ exited with N
// +++", "+++ killed by SIG... +++"); pid 0 is a trace without a pid
// column. The line is looked for from the end backwards, where it nearly
// always is, so a gigabyte trace costs no more than a small one. Each
// candidate line is read as the Reader reads it.
func ExitOf(path string, pid int) (Exit, error) {
	f, err := inputfile.Open(path, inputfile.Named)
	if err != nil {
		return Exit{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Exit{}, err
	}
	size := fi.Size()
	lp := lineParser{file: path, names: map[string]string{}}
	// Each round reads one block and the start of what follows it, and
	// looks at the lines that start in the block, last first.
	buf := make([]byte, exitBlock+maxExitLine)
	for end := size; end > 0; end -= exitBlock {
		start := max(0, end-exitBlock)
		b := buf[:min(size, end+maxExitLine)-start]
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return Exit{}, fmt.Errorf("read %s: %w", path, err)
		}
		for k := int(end - start); k >= 0; k-- {
			// A line starts at k: the first byte of the file, or after a
			// newline; one starting at the end of the file is no line.
			if start+int64(k) >= size || k > 0 && b[k-1] != '\n' || k == 0 && start > 0 {
				continue
			}
			line := b[k:min(len(b), k+maxExitLine)]
			if j := bytes.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if !bytes.Contains(line, []byte("+++ ")) {
				continue
			}
			if ex, ok := lp.exitLine(line, pid); ok {
				return ex, nil
			}
		}
	}
	return Exit{}, nil
}

// exitLine reads one line and returns the exit it says, when it is pid's
// "+++ exited" or "+++ killed" line.
func (l *lineParser) exitLine(text []byte, pid int) (Exit, bool) {
	var ev Event
	l.text, l.ev, l.splitAt = text, &ev, len(text)
	kind, _, err := l.parse()
	if err != nil || ev.PID != pid {
		return Exit{}, false
	}
	switch kind {
	case lineExit:
		return Exit{Found: true, Code: ev.Status()}, true
	case lineKilled:
		return Exit{Found: true, Code: -1, Signal: ev.Name, CoreDumped: ev.CoreDumped}, true
	}
	return Exit{}, false
}
