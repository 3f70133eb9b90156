package syscalls

// Opening files, their sizes, and the calls that read or set a file's
// attributes.

var (
	statPath  = args(argPath("pathname"), argStat("statbuf"))
	statFD    = args(argFD("fd"), argStat("statbuf"))
	statAt    = args(argDirfd("dirfd"), argPath("pathname"), argStat("statbuf"), argFlags("flags", AtFlags))
	truncPath = args(argPath("path"), argSize("length"))
	truncFD   = args(argFD("fd"), argSize("length"))
)

// whyStat is why stats are not traced.
const whyStat = "not traced: whether a name existed and a file's size before the trace, which the model takes when a trace has them, but the listing crashsim trace writes gives both for the files below its roots (size lines), and stats are the bulk of most programs' calls"

// whyAttr is why the calls that change attributes are not traced.
const whyAttr = "not traced: attributes, not data or names; its file is resolved for events and stats"

var filesRows = []Row{
	{Name: "open", Effect: Open, Arches: x86, RetFD: true, Traced: true, Optional: true,
		Why:  "fd table; O_CREAT may add an entry; O_TRUNC sets the size",
		Args: args(argPath("pathname"), argFlags("flags", OpenFlags), argMode("mode"))},
	{Name: "openat", Effect: Open, Arches: AllArches, RetFD: true, Traced: true,
		Why:  "fd table; O_CREAT may add an entry; O_TRUNC sets the size",
		Args: args(argDirfd("dirfd"), argPath("pathname"), argFlags("flags", OpenFlags), argMode("mode"))},
	{Name: "openat2", Effect: Open, Arches: AllArches, RetFD: true, Traced: true, Optional: true,
		Why:  "as openat (Linux 5.6)",
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOpenHow("how"), argSize("size"))},
	// creat has no flags argument: it is open with O_CREAT|O_WRONLY|O_TRUNC.
	{Name: "creat", Effect: Open, Arches: x86, RetFD: true, Traced: true, Optional: true,
		Why:  "as open with O_CREAT|O_TRUNC",
		Args: args(argPath("pathname"), argMode("mode"))},
	{Name: "open_tree", Arches: AllArches, RetFD: true,
		Why:  "not traced: an fd on a mount tree, not on a file's data",
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("flags"))},

	{Name: "truncate", Effect: Truncate, Arches: AllArches, Traced: true, Why: "size", Args: truncPath},
	{Name: "ftruncate", Effect: Truncate, Arches: AllArches, Traced: true, Why: "size", Args: truncFD},
	{Name: "truncate64", Effect: Truncate, Arches: on386, Traced: true, Optional: true, Why: "truncate on 32-bit architectures", Args: truncPath},
	{Name: "ftruncate64", Effect: Truncate, Arches: on386, Traced: true, Optional: true, Why: "ftruncate on 32-bit architectures", Args: truncFD},
	{Name: "fallocate", Effect: Fallocate, Arches: AllArches, Traced: true,
		Why:  "size, unless FALLOC_FL_KEEP_SIZE; zeros for FALLOC_FL_PUNCH_HOLE and FALLOC_FL_ZERO_RANGE",
		Args: args(argFD("fd"), argFlags("mode", FallocFlags), argOffset("offset"), argSize("len"))},

	{Name: "stat", Effect: Stat, Arches: x86, Why: whyStat, Args: statPath},
	{Name: "lstat", Effect: Stat, Arches: x86, Why: whyStat, Args: statPath},
	{Name: "fstat", Effect: Stat, Arches: AllArches, Why: whyStat, Args: statFD},
	{Name: "newfstatat", Effect: Stat, Arches: bit64, Why: whyStat, Args: statAt},
	{Name: "fstatat64", Effect: Stat, Arches: on386, Why: whyStat, Args: statAt},
	{Name: "stat64", Effect: Stat, Arches: on386, Why: whyStat, Args: statPath},
	{Name: "lstat64", Effect: Stat, Arches: on386, Why: whyStat, Args: statPath},
	{Name: "fstat64", Effect: Stat, Arches: on386, Why: whyStat, Args: statFD},
	{Name: "statx", Effect: Stat, Arches: AllArches, Why: whyStat,
		Args: args(argDirfd("dirfd"), argPath("pathname"), argFlags("flags", AtFlags), argOther("mask"), argStat("statxbuf"))},
	{Name: "access", Effect: Stat, Arches: x86, Why: whyStat, Args: args(argPath("pathname"), argOther("mode"))},
	{Name: "faccessat", Effect: Stat, Arches: AllArches, Why: whyStat,
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("mode"), argFlags("flags", AtFlags))},
	{Name: "faccessat2", Effect: Stat, Arches: AllArches, Why: whyStat,
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("mode"), argFlags("flags", AtFlags))},
	{Name: "readlink", Effect: Stat, Arches: x86, Why: whyStat, Args: args(argPath("pathname"), argBuf("buf"), argSize("bufsiz"))},
	{Name: "readlinkat", Effect: Stat, Arches: AllArches, Why: whyStat,
		Args: args(argDirfd("dirfd"), argPath("pathname"), argBuf("buf"), argSize("bufsiz"))},

	{Name: "chmod", Arches: x86, Why: whyAttr, Args: args(argPath("pathname"), argMode("mode"))},
	{Name: "fchmod", Arches: AllArches, Why: whyAttr, Args: args(argFD("fd"), argMode("mode"))},
	{Name: "fchmodat", Arches: AllArches, Why: whyAttr, Args: args(argDirfd("dirfd"), argPath("pathname"), argMode("mode"), argFlags("flags", AtFlags))},
	{Name: "chown", Arches: x86, Why: whyAttr, Args: args(argPath("pathname"), argOther("owner"), argOther("group"))},
	{Name: "fchown", Arches: AllArches, Why: whyAttr, Args: args(argFD("fd"), argOther("owner"), argOther("group"))},
	{Name: "lchown", Arches: x86, Why: whyAttr, Args: args(argPath("pathname"), argOther("owner"), argOther("group"))},
	{Name: "fchownat", Arches: AllArches, Why: whyAttr,
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("owner"), argOther("group"), argFlags("flags", AtFlags))},
	{Name: "utime", Arches: x86, Why: whyAttr, Args: args(argPath("filename"), argOther("times"))},
	{Name: "utimes", Arches: x86, Why: whyAttr, Args: args(argPath("filename"), argOther("times"))},
	{Name: "utimensat", Arches: AllArches, Why: whyAttr,
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("times"), argFlags("flags", AtFlags))},
	{Name: "futimesat", Arches: x86, Why: whyAttr, Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("times"))},
	{Name: "setxattr", Arches: AllArches, Why: whyAttr,
		Args: args(argPath("path"), argOther("name"), argOther("value"), argSize("size"), argOther("flags"))},
	{Name: "lsetxattr", Arches: AllArches, Why: whyAttr,
		Args: args(argPath("path"), argOther("name"), argOther("value"), argSize("size"), argOther("flags"))},
	{Name: "fsetxattr", Arches: AllArches, Why: whyAttr,
		Args: args(argFD("fd"), argOther("name"), argOther("value"), argSize("size"), argOther("flags"))},
	{Name: "statfs", Arches: AllArches, Why: whyAttr, Args: args(argPath("path"), argOther("buf"))},
	{Name: "fstatfs", Arches: AllArches, Why: whyAttr, Args: args(argFD("fd"), argOther("buf"))},
	{Name: "statfs64", Arches: on386, Why: whyAttr, Args: args(argPath("path"), argSize("sz"), argOther("buf"))},
	{Name: "fstatfs64", Arches: on386, Why: whyAttr, Args: args(argFD("fd"), argSize("sz"), argOther("buf"))},
	{Name: "flock", Arches: AllArches, Why: whyAttr, Args: args(argFD("fd"), argOther("operation"))},
	{Name: "fadvise64", Arches: AllArches, Why: whyAttr, Args: args(argFD("fd"), argOffset("offset"), argSize("len"), argOther("advice"))},
	{Name: "fadvise64_64", Arches: on386, Why: whyAttr, Args: args(argFD("fd"), argOffset("offset"), argSize("len"), argOther("advice"))},
	{Name: "name_to_handle_at", Arches: AllArches, Why: whyAttr,
		Args: args(argDirfd("dirfd"), argPath("pathname"), argOther("handle"), argOther("mount_id"), argFlags("flags", AtFlags))},
}
