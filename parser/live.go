package parser

import (
	"bytes"
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
// stopped for a SIGSTOP delivered to it, and returns the offset just past
// that line and the pid it starts with (ok false when there is no such
// line yet, or it has no pid: a trace recorded without -f).
//
// A stop counts only where the same pid's line before it is the SIGSTOP
// being delivered ("--- SIGSTOP {...} ---"): the thread that made the
// call strace stopped. The other threads of its process stop with it, and
// strace prints "stopped by SIGSTOP" for each of them too, with nothing
// delivered to them. Counted, each such line was one more stop, and
// continuing it sent a SIGCONT that let the program run on from its next
// stop before the caller had looked at it (a git gc, whose pack-objects
// runs two threads, drifted a stop further each time).
func NthStop(b []byte, n int) (end, pid int, ok bool) {
	delivered := map[int]bool{} // pids whose last line was a SIGSTOP delivered to them
	found := 0
	for off := 0; off < len(b); {
		nl := bytes.IndexByte(b[off:], '\n')
		if nl < 0 {
			return 0, 0, false // the last line is not complete yet
		}
		line := b[off : off+nl]
		off += nl + 1
		p, rest := linePID(line)
		if p <= 0 {
			continue // no pid (no -f), or a line of a -k stack
		}
		if !bytes.HasPrefix(rest, []byte(stopLine)) {
			delivered[p] = bytes.HasPrefix(rest, []byte(stopDelivered))
			continue
		}
		if !delivered[p] {
			continue // another thread of a process that stopped
		}
		delivered[p] = false
		if found == n {
			return off, p, true
		}
		found++
	}
	return 0, 0, false
}

// stopDelivered begins the line strace prints as it delivers a SIGSTOP.
const stopDelivered = "--- SIGSTOP {"

// linePID reads the pid a line of a -f trace starts with (0 when it
// starts with none) and returns it with the rest of the line past it and
// past a timestamp (-t, -tt, -ttt, -r): what strace printed for the call
// or the signal.
func linePID(line []byte) (int, []byte) {
	start := skipSpaces(line, 0)
	i, p := digitRun(line, start)
	if i == start || i-start > 10 || i < len(line) && line[i] != ' ' {
		return 0, nil
	}
	i = skipSpaces(line, i)
	// A timestamp: digits with '.' or ':' between them, then a space.
	j := i
	for j < len(line) && (isDigit(line[j]) || line[j] == '.' || line[j] == ':') {
		j++
	}
	if j > i && j < len(line) && line[j] == ' ' {
		i = skipSpaces(line, j)
	}
	return int(p), line[i:]
}

// FirstCall returns the first line of b that is a call (not a signal, an
// exit or a blank line), cut to 100 bytes, or "". A call a signal
// interrupted before it did anything (it returned ERESTARTSYS or one of
// its kin, to be made again) is not one: the parent of a process the
// oracle stops gets a SIGCHLD, and its wait or read shows such a return
// after every stop of its child.
func FirstCall(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.Contains(l, "--- ") || strings.Contains(l, "+++ ") || restarted(l) {
			continue
		}
		if len(l) > 100 {
			l = l[:100] + "..."
		}
		return l
	}
	return ""
}

// restarted reports whether a call line returned one of the kernel's
// "to be restarted" codes: the call was cut short by a signal before it
// took effect.
func restarted(l string) bool {
	return strings.Contains(l, "= -1 ERESTART") || strings.Contains(l, "= ? ERESTART")
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
