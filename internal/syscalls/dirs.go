package syscalls

// Directory entries, and the cwd that relative paths start from.

var dirRows = []Row{
	{Name: "rename", Effect: Rename, Arches: x86, Traced: true, Optional: true, Why: "entries",
		Args: args(argPath("oldpath"), argPath("newpath"))},
	{Name: "renameat", Effect: Rename, Arches: AllArches, Traced: true, Optional: true, Why: "entries (absent on riscv64 and loongarch64)",
		Args: args(argDirfd("olddirfd"), argPath("oldpath"), argDirfd("newdirfd"), argPath("newpath"))},
	{Name: "renameat2", Effect: Rename, Arches: AllArches, Traced: true, Optional: true, Why: "entries; RENAME_NOREPLACE, RENAME_EXCHANGE",
		Args: args(argDirfd("olddirfd"), argPath("oldpath"), argDirfd("newdirfd"), argPath("newpath"), argFlags("flags", RenameFlags))},
	{Name: "link", Effect: Link, Arches: x86, Traced: true, Optional: true, Why: "entries",
		Args: args(argPath("oldpath"), argPath("newpath"))},
	{Name: "linkat", Effect: Link, Arches: AllArches, Traced: true, Why: "entries",
		Args: args(argDirfd("olddirfd"), argPath("oldpath"), argDirfd("newdirfd"), argPath("newpath"), argFlags("flags", AtFlags))},
	{Name: "symlink", Effect: Symlink, Arches: x86, Traced: true, Optional: true, Why: "entries",
		Args: args(argTarget("target"), argPath("linkpath"))},
	{Name: "symlinkat", Effect: Symlink, Arches: AllArches, Traced: true, Why: "entries",
		Args: args(argTarget("target"), argDirfd("newdirfd"), argPath("linkpath"))},
	{Name: "unlink", Effect: Unlink, Arches: x86, Traced: true, Optional: true, Why: "entries", Args: args(argPath("pathname"))},
	{Name: "unlinkat", Effect: Unlink, Arches: AllArches, Traced: true, Why: "entries",
		Args: args(argDirfd("dirfd"), argPath("pathname"), argFlags("flags", AtFlags))},
	{Name: "mkdir", Effect: Mkdir, Arches: x86, Traced: true, Optional: true, Why: "entries", Args: args(argPath("pathname"), argMode("mode"))},
	{Name: "mkdirat", Effect: Mkdir, Arches: AllArches, Traced: true, Why: "entries",
		Args: args(argDirfd("dirfd"), argPath("pathname"), argMode("mode"))},
	{Name: "rmdir", Effect: Rmdir, Arches: x86, Traced: true, Optional: true, Why: "entries", Args: args(argPath("pathname"))},
	{Name: "mknod", Effect: Mknod, Arches: x86, Traced: true, Optional: true, Why: "entries: mknod can create a regular file",
		Args: args(argPath("pathname"), argMode("mode"), argOther("dev"))},
	{Name: "mknodat", Effect: Mknod, Arches: AllArches, Traced: true, Why: "entries",
		Args: args(argDirfd("dirfd"), argPath("pathname"), argMode("mode"), argOther("dev"))},
	// A server's Unix socket (PostgreSQL's .s.PGSQL.5432, redis's
	// unixsocket) is a name in a directory, which the server removes when
	// it stops: without bind, that removal looked like one of a file from
	// before the run.
	{Name: "bind", Effect: Bind, Arches: AllArches, Traced: true, Why: "entries: a Unix socket bound to a path is a new name",
		Args: args(argFDOther("sockfd"), argSockAddr("addr"), argOther("addrlen"))},

	{Name: "chdir", Effect: Chdir, Arches: AllArches, Traced: true, Why: "cwd", Args: args(argPath("path"))},
	{Name: "chroot", Effect: Chroot, Arches: AllArches, Traced: true, Why: "the root absolute paths start from (ldconfig -r, useradd -R)",
		Args: args(argPath("path"))},
	{Name: "fchdir", Effect: Fchdir, Arches: AllArches, Traced: true, Why: "cwd", Args: args(argFD("fd"))},
	{Name: "getcwd", Effect: Getcwd, Arches: AllArches, Why: "not traced: -y names the cwd with every AT_FDCWD, and crashsim trace writes where the command started",
		Args: args(argBuf("buf"), argSize("size"))},
}
