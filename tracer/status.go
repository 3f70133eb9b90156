package tracer

import (
	"fmt"
	"syscall"

	"github.com/crashsim/crashsim/parser"
)

// exitStatus is how the traced command ended, read from the trace.
type exitStatus struct {
	found      bool
	code       int
	signal     string
	coreDumped bool
}

// traceStatus reads how the traced command ended from the trace at path:
// the "+++" line of its first pid, which is the command strace started
// (the first line of a -f trace is that process's first traced syscall,
// its execve). The parser reads the line; a trace with no pid column, or
// no event, says nothing.
func traceStatus(path string) (exitStatus, error) {
	pr, err := parser.ProbeTrace(path)
	if err != nil || pr.FirstPID == 0 {
		return exitStatus{}, err
	}
	ex, err := parser.ExitOf(path, pr.FirstPID)
	if err != nil {
		return exitStatus{}, err
	}
	return exitStatus{found: ex.Found, code: ex.Code, signal: ex.Signal, coreDumped: ex.CoreDumped}, nil
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
