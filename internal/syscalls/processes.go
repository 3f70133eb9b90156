package syscalls

// Processes: who shares which fd table and cwd, and the calls whose names
// tell a trace's architecture.

var processRows = []Row{
	{Name: "fork", Effect: Fork, Arches: x86, Traced: true, Optional: true, Why: "process tree; copies the fd table"},
	{Name: "vfork", Effect: Fork, Arches: x86, Traced: true, Optional: true, Why: "process tree"},
	// strace prints clone's arguments by name, in its own order; -X raw
	// prints them as numbers, flags first.
	{Name: "clone", Effect: Fork, Arches: AllArches, Traced: true, Why: "process tree; CLONE_FILES shares the fd table",
		Args: args(argAddr("child_stack"), argFlags("flags", CloneFlags), argAddr("parent_tid"), argAddr("child_tidptr"), argAddr("tls"))},
	{Name: "clone3", Effect: Fork, Arches: AllArches, Traced: true, Optional: true, Why: "as clone (Linux 5.3)",
		Args: args(argCloneArgs("cl_args"), argSize("size"))},
	{Name: "unshare", Arches: AllArches, Traced: true, Why: "CLONE_FILES and CLONE_FS give a process its own fd table and cwd (the process model does not follow it yet)",
		Args: args(argFlags("flags", CloneFlags))},
	{Name: "execve", Effect: Execve, Arches: AllArches, Traced: true, Why: "O_CLOEXEC fds close",
		Args: args(argPath("pathname"), argOther("argv"), argOther("envp"))},
	{Name: "execveat", Effect: Execve, Arches: AllArches, Traced: true, Optional: true, Why: "as execve",
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("argv"), argOther("envp"), argFlags("flags", AtFlags))},
	{Name: "exit", Effect: Exit, Arches: AllArches, Traced: true, Why: "process end", Args: args(argOther("status"))},
	{Name: "exit_group", Effect: Exit, Arches: AllArches, Traced: true, Why: "process end", Args: args(argOther("status"))},
	{Name: "_exit", Effect: Exit, Arches: none, Why: "not traced: exit under the name some strace 4.x builds print", Args: args(argOther("status"))},
	// A wait changes nothing on disk; the blind-spot watcher counts it
	// among the calls of a process's life (a recording that holds only
	// those was filtered).
	{Name: "wait4", Effect: Wait, Arches: AllArches, Why: "not traced: a process's life", Args: args(argOther("pid"), argOther("wstatus"), argOther("options"), argOther("rusage"))},
	{Name: "waitid", Effect: Wait, Arches: AllArches, Why: "not traced: a process's life", Args: args(argOther("idtype"), argOther("id"), argOther("infop"), argOther("options"), argOther("rusage"))},
	{Name: "waitpid", Effect: Wait, Arches: none, Why: "not traced: a process's life (i386)", Args: args(argOther("pid"), argOther("wstatus"), argOther("options"))},

	{Name: "arch_prctl", Arches: x86, Why: "not traced: read only for its name, which only x86 has", Args: args(argOther("code"), argOther("addr"))},
	{Name: "set_thread_area", Arches: x86, Why: "not traced: read only for its name, which only x86 has", Args: args(argOther("u_info"))},
}
