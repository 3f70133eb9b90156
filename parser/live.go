package parser

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
)

// A live trace is one strace is still writing: the oracle stops a program
// right after a call (strace -e inject=CALL:signal=SIGSTOP) and reads the
// trace so far while the program is frozen. These functions read such a
// trace's bytes as they are, without a Reader: its last line may not be
// complete yet, and is never read.

// stopLine is what strace prints when a tracee stops for SIGSTOP.
const stopLine = "--- stopped by SIGSTOP ---"

// TerminalInterrupt is what a live trace shows when a tracee gets
// a SIGINT the terminal sent: Ctrl-C (the kernel sends it, SI_KERNEL; a
// SIGINT from kill(2) has SI_USER or SI_TKILL).
const TerminalInterrupt = "--- SIGINT {si_signo=SIGINT, si_code=SI_KERNEL"

// NthStop finds the n-th (from 0) complete line of b that says a tracee
// stopped for SIGSTOP, and returns the offset just past that line and the
// pid it starts with (ok false when there is no such line yet, or it has
// no pid: a trace recorded without -f).
func NthStop(b []byte, n int) (end, pid int, ok bool) {
	off := 0
	for i := 0; ; i++ {
		j := bytes.Index(b[off:], []byte(stopLine))
		if j < 0 {
			return 0, 0, false
		}
		start := bytes.LastIndexByte(b[:off+j], '\n') + 1
		nl := bytes.IndexByte(b[off+j:], '\n')
		if nl < 0 {
			return 0, 0, false // the line is not complete yet
		}
		off += j + nl + 1
		if i == n {
			f := strings.Fields(string(b[start:off]))
			if len(f) > 0 {
				pid, _ = strconv.Atoi(f[0])
			}
			return off, pid, pid > 0
		}
	}
}

// FirstCall returns the first line of b that is a call (not a signal, an
// exit or a blank line), cut to 100 bytes, or "".
func FirstCall(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.Contains(l, "--- ") || strings.Contains(l, "+++ ") {
			continue
		}
		if len(l) > 100 {
			l = l[:100] + "..."
		}
		return l
	}
	return ""
}

// WriteCalls returns the lines of b that write data at an fd (the
// syscall table's WriteFD and WriteAt calls), each from its call's name
// on: without the pid and the time, which a deterministic program does
// not repeat, while its writes it repeats byte for byte.
func WriteCalls(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		call := l
		for range 2 { // the pid and the time
			_, rest, ok := strings.Cut(strings.TrimLeft(call, " "), " ")
			if !ok {
				break
			}
			call = strings.TrimLeft(rest, " ")
		}
		name, _, ok := strings.Cut(call, "(")
		if !ok {
			continue
		}
		if e := syscalls.Lookup(name).Effect(); e == syscalls.WriteFD || e == syscalls.WriteAt {
			out = append(out, call)
		}
	}
	return out
}
