package syscalls

// Flags of opening and naming files, in crashsim's bits (amd64's values,
// from include/uapi/asm-generic/fcntl.h, linux/fcntl.h, linux/fs.h and
// linux/falloc.h, which arch/x86 does not override). arm64 moves four
// open flags (arch/arm64/include/uapi/asm/fcntl.h).
const (
	O_ACCMODE   = 0o3
	O_RDONLY    = 0o0
	O_WRONLY    = 0o1
	O_RDWR      = 0o2
	O_CREAT     = 0o100
	O_EXCL      = 0o200
	O_NOCTTY    = 0o400
	O_TRUNC     = 0o1000
	O_APPEND    = 0o2000
	O_NONBLOCK  = 0o4000
	O_DSYNC     = 0o10000
	O_ASYNC     = 0o20000 // FASYNC
	O_DIRECT    = 0o40000
	O_LARGEFILE = 0o100000
	O_DIRECTORY = 0o200000
	O_NOFOLLOW  = 0o400000
	O_NOATIME   = 0o1000000
	O_CLOEXEC   = 0o2000000
	O_SYNC      = __O_SYNC | O_DSYNC
	O_PATH      = 0o10000000
	O_TMPFILE   = __O_TMPFILE | O_DIRECTORY

	__O_SYNC    = 0o4000000
	__O_TMPFILE = 0o20000000
)

// OpenFlags decodes the flags of open, openat, openat2 (its how.flags),
// fcntl(F_SETFL) and pipe2. O_RDONLY is 0 and has no bit: the access
// mode is flags&O_ACCMODE.
var OpenFlags = newFlags("open flags",
	same("O_RDONLY", O_RDONLY),
	same("O_WRONLY", O_WRONLY),
	same("O_RDWR", O_RDWR),
	same("O_ACCMODE", O_ACCMODE),
	same("O_CREAT", O_CREAT),
	same("O_EXCL", O_EXCL),
	same("O_NOCTTY", O_NOCTTY),
	same("O_TRUNC", O_TRUNC),
	same("O_APPEND", O_APPEND),
	same("O_NONBLOCK", O_NONBLOCK),
	same("O_NDELAY", O_NONBLOCK),
	same("O_DSYNC", O_DSYNC),
	same("FASYNC", O_ASYNC),
	same("O_ASYNC", O_ASYNC), // glibc's name for FASYNC
	Flag{"O_DIRECT", O_DIRECT, 0o200000, O_DIRECT},
	Flag{"O_LARGEFILE", O_LARGEFILE, 0o400000, O_LARGEFILE},
	Flag{"O_DIRECTORY", O_DIRECTORY, 0o40000, O_DIRECTORY},
	Flag{"O_NOFOLLOW", O_NOFOLLOW, 0o100000, O_NOFOLLOW},
	same("O_NOATIME", O_NOATIME),
	same("O_CLOEXEC", O_CLOEXEC),
	same("__O_SYNC", __O_SYNC),
	same("O_SYNC", O_SYNC),
	same("O_RSYNC", O_SYNC), // glibc's name; Linux reads it as O_SYNC
	same("O_PATH", O_PATH),
	same("__O_TMPFILE", __O_TMPFILE),
	Flag{"O_TMPFILE", O_TMPFILE, __O_TMPFILE | 0o40000, O_TMPFILE},
)

// AT_FDCWD is the dirfd that names the cwd; strace prints it by name, or
// as -100 (0xffffff9c) with -X raw.
const AT_FDCWD = -100

// Flags of the *at calls (linux/fcntl.h).
const (
	AT_SYMLINK_NOFOLLOW   = 0x100
	AT_EACCESS            = 0x200
	AT_REMOVEDIR          = 0x200
	AT_SYMLINK_FOLLOW     = 0x400
	AT_NO_AUTOMOUNT       = 0x800
	AT_EMPTY_PATH         = 0x1000
	AT_STATX_SYNC_AS_STAT = 0x0000
	AT_STATX_FORCE_SYNC   = 0x2000
	AT_STATX_DONT_SYNC    = 0x4000
	AT_RECURSIVE          = 0x8000
)

// AtFlags decodes the flags argument of the *at calls.
var AtFlags = newFlags("at flags",
	same("AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW),
	same("AT_REMOVEDIR", AT_REMOVEDIR),
	same("AT_EACCESS", AT_EACCESS),
	same("AT_SYMLINK_FOLLOW", AT_SYMLINK_FOLLOW),
	same("AT_NO_AUTOMOUNT", AT_NO_AUTOMOUNT),
	same("AT_EMPTY_PATH", AT_EMPTY_PATH),
	same("AT_STATX_SYNC_AS_STAT", AT_STATX_SYNC_AS_STAT),
	same("AT_STATX_FORCE_SYNC", AT_STATX_FORCE_SYNC),
	same("AT_STATX_DONT_SYNC", AT_STATX_DONT_SYNC),
	same("AT_RECURSIVE", AT_RECURSIVE),
)

// Flags of renameat2 (linux/fs.h).
const (
	RENAME_NOREPLACE = 0x1
	RENAME_EXCHANGE  = 0x2
	RENAME_WHITEOUT  = 0x4
)

// RenameFlags decodes renameat2's flags.
var RenameFlags = newFlags("rename flags",
	same("RENAME_NOREPLACE", RENAME_NOREPLACE),
	same("RENAME_EXCHANGE", RENAME_EXCHANGE),
	same("RENAME_WHITEOUT", RENAME_WHITEOUT),
)

// Modes of fallocate (linux/falloc.h).
const (
	FALLOC_FL_KEEP_SIZE      = 0x01
	FALLOC_FL_PUNCH_HOLE     = 0x02
	FALLOC_FL_NO_HIDE_STALE  = 0x04
	FALLOC_FL_COLLAPSE_RANGE = 0x08
	FALLOC_FL_ZERO_RANGE     = 0x10
	FALLOC_FL_INSERT_RANGE   = 0x20
	FALLOC_FL_UNSHARE_RANGE  = 0x40
)

// FallocFlags decodes fallocate's mode.
var FallocFlags = newFlags("fallocate modes",
	same("FALLOC_FL_KEEP_SIZE", FALLOC_FL_KEEP_SIZE),
	same("FALLOC_FL_PUNCH_HOLE", FALLOC_FL_PUNCH_HOLE),
	same("FALLOC_FL_NO_HIDE_STALE", FALLOC_FL_NO_HIDE_STALE),
	same("FALLOC_FL_COLLAPSE_RANGE", FALLOC_FL_COLLAPSE_RANGE),
	same("FALLOC_FL_ZERO_RANGE", FALLOC_FL_ZERO_RANGE),
	same("FALLOC_FL_INSERT_RANGE", FALLOC_FL_INSERT_RANGE),
	same("FALLOC_FL_UNSHARE_RANGE", FALLOC_FL_UNSHARE_RANGE),
)

// Flags of preadv2 and pwritev2 (linux/fs.h).
const (
	RWF_HIPRI  = 0x01
	RWF_DSYNC  = 0x02
	RWF_SYNC   = 0x04
	RWF_NOWAIT = 0x08
	RWF_APPEND = 0x10
)

// RWFFlags decodes the flags of preadv2 and pwritev2.
var RWFFlags = newFlags("RWF flags",
	same("RWF_HIPRI", RWF_HIPRI),
	same("RWF_DSYNC", RWF_DSYNC),
	same("RWF_SYNC", RWF_SYNC),
	same("RWF_NOWAIT", RWF_NOWAIT),
	same("RWF_APPEND", RWF_APPEND),
)

// Commands of fcntl (asm-generic/fcntl.h, linux/fcntl.h).
const (
	F_DUPFD         = 0
	F_GETFD         = 1
	F_SETFD         = 2
	F_GETFL         = 3
	F_SETFL         = 4
	F_DUPFD_CLOEXEC = 1030
)

// FcntlCmds maps fcntl's commands to their numbers. The *LK64 commands
// exist only on 32-bit architectures.
var FcntlCmds = newEnum("fcntl commands",
	same("F_DUPFD", F_DUPFD),
	same("F_GETFD", F_GETFD),
	same("F_SETFD", F_SETFD),
	same("F_GETFL", F_GETFL),
	same("F_SETFL", F_SETFL),
	same("F_GETLK", 5),
	same("F_SETLK", 6),
	same("F_SETLKW", 7),
	same("F_SETOWN", 8),
	same("F_GETOWN", 9),
	same("F_SETSIG", 10),
	same("F_GETSIG", 11),
	Flag{"F_GETLK64", Absent, Absent, 12},
	Flag{"F_SETLK64", Absent, Absent, 13},
	Flag{"F_SETLKW64", Absent, Absent, 14},
	same("F_SETOWN_EX", 15),
	same("F_GETOWN_EX", 16),
	same("F_GETOWNER_UIDS", 17),
	same("F_OFD_GETLK", 36),
	same("F_OFD_SETLK", 37),
	same("F_OFD_SETLKW", 38),
	same("F_SETLEASE", 1024),
	same("F_GETLEASE", 1025),
	same("F_NOTIFY", 1026),
	same("F_DUPFD_CLOEXEC", F_DUPFD_CLOEXEC),
	same("F_SETPIPE_SZ", 1031),
	same("F_GETPIPE_SZ", 1032),
	same("F_ADD_SEALS", 1033),
	same("F_GET_SEALS", 1034),
)

// FD_CLOEXEC is the one flag of F_SETFD.
const FD_CLOEXEC = 1

// FDFlags decodes F_SETFD's argument.
var FDFlags = newFlags("fd flags", same("FD_CLOEXEC", FD_CLOEXEC))

// Flags of close_range (linux/close_range.h).
const (
	CLOSE_RANGE_UNSHARE = 1 << 1
	CLOSE_RANGE_CLOEXEC = 1 << 2
)

// CloseRangeFlags decodes close_range's flags.
var CloseRangeFlags = newFlags("close_range flags",
	same("CLOSE_RANGE_UNSHARE", CLOSE_RANGE_UNSHARE),
	same("CLOSE_RANGE_CLOEXEC", CLOSE_RANGE_CLOEXEC),
)

// SeekWhence maps lseek's whence to numbers (linux/fs.h).
var SeekWhence = newEnum("whence",
	same("SEEK_SET", 0),
	same("SEEK_CUR", 1),
	same("SEEK_END", 2),
	same("SEEK_DATA", 3),
	same("SEEK_HOLE", 4),
)
