package model

// shape says which arguments of a call name files: an fd it acts on, or a
// (dirfd, path) pair, or two pairs for rename and link. -1 means none;
// dirfd -1 with a path means the path is relative to the cwd.
type shape struct {
	fd            int
	dirfd, path   int
	dirfd2, path2 int
	retFD         bool // the call returns a new fd for the (first) path
}

func fdShape(i int) shape        { return shape{fd: i, dirfd: -1, path: -1, dirfd2: -1, path2: -1} }
func pathShape(i int) shape      { return shape{fd: -1, dirfd: -1, path: i, dirfd2: -1, path2: -1} }
func atShape(d, p int) shape     { return shape{fd: -1, dirfd: d, path: p, dirfd2: -1, path2: -1} }
func twoPaths(p, q int) shape    { return shape{fd: -1, dirfd: -1, path: p, dirfd2: -1, path2: q} }
func twoAt(d, p, e, q int) shape { return shape{fd: -1, dirfd: d, path: p, dirfd2: e, path2: q} }

func opener(s shape) shape { s.retFD = true; return s }

// shapes is the table of calls whose file arguments the model resolves.
var shapes = map[string]shape{
	// fd calls
	"read": fdShape(0), "readv": fdShape(0), "pread64": fdShape(0), "preadv": fdShape(0), "preadv2": fdShape(0),
	"write": fdShape(0), "writev": fdShape(0), "pwrite64": fdShape(0), "pwritev": fdShape(0), "pwritev2": fdShape(0),
	"lseek": fdShape(0), "_llseek": fdShape(0), "ftruncate": fdShape(0), "fallocate": fdShape(0),
	"fsync": fdShape(0), "fdatasync": fdShape(0), "syncfs": fdShape(0), "sync_file_range": fdShape(0), "sync_file_range2": fdShape(0),
	"fstat": fdShape(0), "fstatfs": fdShape(0), "fchmod": fdShape(0), "fchown": fdShape(0), "flock": fdShape(0),
	"fcntl": fdShape(0), "ioctl": fdShape(0), "close": fdShape(0), "fchdir": fdShape(0), "getdents64": fdShape(0), "getdents": fdShape(0),
	"dup": fdShape(0), "dup2": fdShape(0), "dup3": fdShape(0), "mmap": fdShape(4), "fadvise64": fdShape(0), "fsetxattr": fdShape(0),
	"copy_file_range": fdShape(2), "sendfile": fdShape(0), "splice": fdShape(2), "tee": fdShape(1),

	// path calls
	"open": opener(pathShape(0)), "creat": opener(pathShape(0)),
	"truncate": pathShape(0), "mkdir": pathShape(0), "rmdir": pathShape(0), "unlink": pathShape(0),
	"chdir": pathShape(0), "stat": pathShape(0), "lstat": pathShape(0), "access": pathShape(0), "chmod": pathShape(0),
	"chown": pathShape(0), "lchown": pathShape(0), "readlink": pathShape(0), "execve": pathShape(0), "statfs": pathShape(0),
	"utime": pathShape(0), "utimes": pathShape(0), "setxattr": pathShape(0), "lsetxattr": pathShape(0),
	"rename": twoPaths(0, 1), "link": twoPaths(0, 1), "symlink": twoPaths(-1, 1),

	// *at calls
	"openat": opener(atShape(0, 1)), "openat2": opener(atShape(0, 1)), "open_tree": opener(atShape(0, 1)),
	"mkdirat": atShape(0, 1), "unlinkat": atShape(0, 1), "newfstatat": atShape(0, 1), "fstatat64": atShape(0, 1),
	"statx": atShape(0, 1), "faccessat": atShape(0, 1), "faccessat2": atShape(0, 1), "fchmodat": atShape(0, 1),
	"fchownat": atShape(0, 1), "readlinkat": atShape(0, 1), "utimensat": atShape(0, 1), "execveat": atShape(0, 1),
	"mknodat": atShape(0, 1), "futimesat": atShape(0, 1), "name_to_handle_at": atShape(0, 1),
	"renameat": twoAt(0, 1, 2, 3), "renameat2": twoAt(0, 1, 2, 3), "linkat": twoAt(0, 1, 2, 3),
	"symlinkat": twoAt(-1, -1, 1, 2),
}

func shapeOf(name string) (shape, bool) {
	s, ok := shapes[name]
	return s, ok
}
