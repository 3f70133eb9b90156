package check

// strace groups calls in classes that -e trace= takes by name (%memory,
// %signal, ...). A whole run whose every call falls in one class that
// holds no call on files, and that shows no execve and no exit_group
// though a process exited, was recorded with that class as its filter:
// a program opens, reads and writes between its start and its end, and
// strace prints the start and the exit_group of every program it runs
// unless a filter leaves them out.

// traceClass is a bit for one strace class.
type traceClass uint8

const (
	classMemory traceClass = 1 << iota
	classSignal
	classIPC
	classNetwork
	allClasses = classMemory | classSignal | classIPC | classNetwork
)

// classNames are the classes as -e trace= takes them, by bit.
var classNames = []struct {
	class traceClass
	name  string
	some  string // a few of its calls, for the message
}{
	{classMemory, "%memory", "mmap, munmap, mprotect, brk, ..."},
	{classSignal, "%signal", "rt_sigaction, rt_sigprocmask, kill, ..."},
	{classIPC, "%ipc", "shmget, shmat, semop, msgsnd, ..."},
	{classNetwork, "%network", "socket, connect, sendto, recvmsg, ..."},
}

// callClasses gives, for the calls of the classes above, the classes
// each is in (shmat and shmdt are in two). A call not listed is in none
// of them: execve, exit_group, open, read, write, futex, ...
var callClasses = func() map[string]traceClass {
	m := map[string]traceClass{}
	add := func(c traceClass, names ...string) {
		for _, n := range names {
			m[n] |= c
		}
	}
	add(classMemory, "brk", "mmap", "mmap2", "old_mmap", "munmap", "mprotect", "pkey_mprotect",
		"mremap", "madvise", "process_madvise", "mlock", "mlock2", "munlock", "mlockall",
		"munlockall", "mincore", "msync", "remap_file_pages", "mbind", "get_mempolicy",
		"set_mempolicy", "set_mempolicy_home_node", "migrate_pages", "move_pages",
		"map_shadow_stack", "mseal", "shmat", "shmdt")
	add(classSignal, "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending",
		"rt_sigsuspend", "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
		"sigaction", "sigprocmask", "sigreturn", "sigpending", "sigsuspend", "signal",
		"sigaltstack", "kill", "tkill", "tgkill", "pause", "signalfd", "signalfd4",
		"pidfd_send_signal", "sgetmask", "ssetmask")
	add(classIPC, "ipc", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
		"semtimedop", "semctl", "shmget", "shmat", "shmdt", "shmctl")
	add(classNetwork, "socket", "socketpair", "bind", "listen", "accept", "accept4", "connect",
		"getsockname", "getpeername", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg",
		"recvmmsg", "setsockopt", "getsockopt", "shutdown", "socketcall", "send", "recv")
	return m
}()

// noteClass rules out the classes a call is not in. It is asked of every
// call until all are ruled out, which in a trace without a filter is done
// by its second or third call (execve is in none).
func (w *Watcher) noteClass(name string) {
	w.notClass |= allClasses &^ callClasses[name]
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
