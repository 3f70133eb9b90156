package tracer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"syscall"
)

// exitStatus is how the traced command ended, read from the trace.
type exitStatus struct {
	found      bool
	code       int
	signal     string
	coreDumped bool
}

// statusRx matches strace's "+++" line after the pid and timestamp.
var statusRx = regexp.MustCompile(`^\+\+\+ (?:exited with (\d+)|killed by (SIG\S+)( \(core dumped\))?) \+\+\+`)

// traceStatus reads the trace at path and returns the status of its first
// pid, which is the command strace started: the first line of a -f trace is
// that process's first traced syscall (its execve). The "+++" line is
// looked for from the end backwards, where it nearly always is, so a
// gigabyte trace costs no more than a small one.
func traceStatus(path string) (exitStatus, error) {
	f, err := os.Open(path)
	if err != nil {
		return exitStatus{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return exitStatus{}, err
	}
	size := fi.Size()
	head := make([]byte, 32)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return exitStatus{}, fmt.Errorf("read %s: %w", path, err)
	}
	i := bytes.IndexByte(head[:n], ' ')
	if i <= 0 || !isDigits(head[:i]) {
		return exitStatus{}, nil
	}
	pid := head[:i+1] // "1234 "

	// Each round reads one block and the start of what follows it, and
	// looks at the lines that start in the block, last first.
	const block = 64 << 10
	buf := make([]byte, block+maxStatusLine)
	for end := size; end > 0; end -= block {
		start := max(0, end-block)
		b := buf[:min(size, end+maxStatusLine)-start]
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return exitStatus{}, fmt.Errorf("read %s: %w", path, err)
		}
		for k := int(end - start); k >= 0; k-- {
			// A line starts at k: the first byte of the file, or after a
			// newline; one starting at the end of the file is no line.
			if start+int64(k) >= size || k > 0 && b[k-1] != '\n' || k == 0 && start > 0 {
				continue
			}
			line := b[k:min(len(b), k+maxStatusLine)]
			if j := bytes.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if bytes.HasPrefix(line, pid) {
				if st, ok := parseStatusLine(line[len(pid):]); ok {
					return st, nil
				}
			}
		}
	}
	return exitStatus{}, nil
}

// maxStatusLine bounds a "+++" line: a pid, a timestamp and
// "+++ killed by SIGSEGV (core dumped) +++".
const maxStatusLine = 256

// parseStatusLine parses what follows the pid: spaces, an optional
// timestamp, then the "+++" text.
func parseStatusLine(b []byte) (exitStatus, bool) {
	b = bytes.TrimLeft(b, " ")
	if i := bytes.IndexByte(b, ' '); i > 0 && b[0] >= '0' && b[0] <= '9' {
		b = b[i+1:] // the timestamp
	}
	m := statusRx.FindSubmatch(b)
	if m == nil {
		return exitStatus{}, false
	}
	if m[1] != nil {
		code, err := strconv.Atoi(string(m[1]))
		if err != nil {
			return exitStatus{}, false
		}
		return exitStatus{found: true, code: code}, true
	}
	return exitStatus{found: true, code: -1, signal: string(m[2]), coreDumped: m[3] != nil}, true
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// signalNames are the names strace prints, for a status taken from strace's
// own wait status when the trace has none.
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGCHLD: "SIGCHLD", syscall.SIGCONT: "SIGCONT", syscall.SIGSTOP: "SIGSTOP",
	syscall.SIGTSTP: "SIGTSTP", syscall.SIGTTIN: "SIGTTIN", syscall.SIGTTOU: "SIGTTOU",
	syscall.SIGURG: "SIGURG", syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ",
	syscall.SIGVTALRM: "SIGVTALRM", syscall.SIGPROF: "SIGPROF", syscall.SIGWINCH: "SIGWINCH",
	syscall.SIGIO: "SIGIO", syscall.SIGSYS: "SIGSYS",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", int(s))
}
