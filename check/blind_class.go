package check

import "github.com/crashsim/crashsim/internal/syscalls"

// strace groups calls in classes that -e trace= takes by name (%memory,
// %signal, ...). A whole run whose every call falls in one class that
// holds no call on files, and that shows no execve and no exit_group
// though a process exited, was recorded with that class as its filter:
// a program opens, reads and writes between its start and its end, and
// strace prints the start and the exit_group of every program it runs
// unless a filter leaves them out.

// classNames are the classes as -e trace= takes them, by bit.
var classNames = []struct {
	class syscalls.Class
	name  string
	some  string // a few of its calls, for the message
}{
	{syscalls.ClassMemory, "%memory", "mmap, munmap, mprotect, brk, ..."},
	{syscalls.ClassSignal, "%signal", "rt_sigaction, rt_sigprocmask, kill, ..."},
	{syscalls.ClassIPC, "%ipc", "shmget, shmat, semop, msgsnd, ..."},
	{syscalls.ClassNetwork, "%network", "socket, connect, sendto, recvmsg, ..."},
}

// noteClass rules out the classes a call is not in. It is asked of every
// call until all are ruled out, which in a trace without a filter is done
// by its second or third call (execve is in none).
func (w *Watcher) noteClass(name string) {
	w.notClass |= syscalls.AllClasses &^ syscalls.ClassOf(name)
}

// onlyClass returns the class (as -e trace= names it, and a few of its
// calls) that holds every call of the trace, or "" when none does.
func (w *Watcher) onlyClass() (name, some string) {
	if w.syscalls == 0 {
		return "", ""
	}
	for _, c := range classNames {
		if w.notClass&c.class == 0 {
			return c.name, c.some
		}
	}
	return "", ""
}
