package tracer

import (
	"bufio"
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
// that process's first traced syscall (its execve). Lines are read in pieces,
// so a 64 MiB write line costs no more memory than a short one.
func traceStatus(path string) (exitStatus, error) {
	f, err := os.Open(path)
	if err != nil {
		return exitStatus{}, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var (
		pid       []byte // "1234 " once known
		st        exitStatus
		lineStart = true
	)
	for {
		chunk, err := r.ReadSlice('\n')
		if lineStart && len(chunk) > 0 {
			if pid == nil {
				if i := bytes.IndexByte(chunk, ' '); i > 0 && isDigits(chunk[:i]) {
					pid = append([]byte(nil), chunk[:i+1]...)
				}
			}
			if pid != nil && bytes.HasPrefix(chunk, pid) {
				if s, ok := parseStatusLine(chunk[len(pid):]); ok {
					st = s
				}
			}
		}
		lineStart = err == nil
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return st, nil
		default:
			return st, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

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
