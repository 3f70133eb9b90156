package syscalls

// Class is a bit for one of the classes strace groups calls in, which
// -e trace= takes by name (%memory, %signal, ...): those that hold no
// call on files, the ones a filter that keeps one of them alone leaves
// a trace of.
type Class uint8

const (
	ClassMemory Class = 1 << iota
	ClassSignal
	ClassIPC
	ClassNetwork
	AllClasses = ClassMemory | ClassSignal | ClassIPC | ClassNetwork
)

// ClassOf is the classes call name is in (shmat and shmdt are in two);
// 0 for a call in none of them: execve, exit_group, open, read, write,
// futex, ...
func ClassOf(name string) Class { return classOf[name] }

var classOf = func() map[string]Class {
	m := map[string]Class{}
	add := func(c Class, names ...string) {
		for _, n := range names {
			m[n] |= c
		}
	}
	add(ClassMemory, "brk", "mmap", "mmap2", "old_mmap", "munmap", "mprotect", "pkey_mprotect",
		"mremap", "madvise", "process_madvise", "mlock", "mlock2", "munlock", "mlockall",
		"munlockall", "mincore", "msync", "remap_file_pages", "mbind", "get_mempolicy",
		"set_mempolicy", "set_mempolicy_home_node", "migrate_pages", "move_pages",
		"map_shadow_stack", "mseal", "shmat", "shmdt")
	add(ClassSignal, "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending",
		"rt_sigsuspend", "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
		"sigaction", "sigprocmask", "sigreturn", "sigpending", "sigsuspend", "signal",
		"sigaltstack", "kill", "tkill", "tgkill", "pause", "signalfd", "signalfd4",
		"pidfd_send_signal", "sgetmask", "ssetmask")
	add(ClassIPC, "ipc", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
		"semtimedop", "semctl", "shmget", "shmat", "shmdt", "shmctl")
	add(ClassNetwork, "socket", "socketpair", "bind", "listen", "accept", "accept4", "connect",
		"getsockname", "getpeername", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg",
		"recvmmsg", "setsockopt", "getsockopt", "shutdown", "socketcall", "send", "recv")
	return m
}()
