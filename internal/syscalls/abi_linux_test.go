//go:build linux && (amd64 || arm64 || 386)

package syscalls

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// hostValues are x/sys/unix's values of names in the flag tables, for the
// architecture the test runs on. The table never reads the host's ABI;
// this test checks the table against it where the two meet.
var hostValues = map[*FlagTable]map[string]uint64{
	OpenFlags: {
		"O_RDONLY": unix.O_RDONLY, "O_WRONLY": unix.O_WRONLY, "O_RDWR": unix.O_RDWR, "O_ACCMODE": unix.O_ACCMODE,
		"O_CREAT": unix.O_CREAT, "O_EXCL": unix.O_EXCL, "O_NOCTTY": unix.O_NOCTTY, "O_TRUNC": unix.O_TRUNC,
		"O_APPEND": unix.O_APPEND, "O_NONBLOCK": unix.O_NONBLOCK, "O_NDELAY": unix.O_NDELAY, "O_DSYNC": unix.O_DSYNC,
		"FASYNC": unix.O_ASYNC, "O_ASYNC": unix.O_ASYNC, "O_DIRECT": unix.O_DIRECT, "O_DIRECTORY": unix.O_DIRECTORY,
		"O_NOFOLLOW": unix.O_NOFOLLOW, "O_NOATIME": unix.O_NOATIME, "O_CLOEXEC": unix.O_CLOEXEC, "O_SYNC": unix.O_SYNC,
		"O_RSYNC": unix.O_RSYNC, "O_PATH": unix.O_PATH, "O_TMPFILE": unix.O_TMPFILE,
	},
	AtFlags: {
		"AT_SYMLINK_NOFOLLOW": unix.AT_SYMLINK_NOFOLLOW, "AT_REMOVEDIR": unix.AT_REMOVEDIR, "AT_EACCESS": unix.AT_EACCESS,
		"AT_SYMLINK_FOLLOW": unix.AT_SYMLINK_FOLLOW, "AT_NO_AUTOMOUNT": unix.AT_NO_AUTOMOUNT, "AT_EMPTY_PATH": unix.AT_EMPTY_PATH,
		"AT_STATX_SYNC_AS_STAT": unix.AT_STATX_SYNC_AS_STAT, "AT_STATX_FORCE_SYNC": unix.AT_STATX_FORCE_SYNC,
		"AT_STATX_DONT_SYNC": unix.AT_STATX_DONT_SYNC, "AT_RECURSIVE": unix.AT_RECURSIVE,
	},
	RenameFlags: {"RENAME_NOREPLACE": unix.RENAME_NOREPLACE, "RENAME_EXCHANGE": unix.RENAME_EXCHANGE, "RENAME_WHITEOUT": unix.RENAME_WHITEOUT},
	FallocFlags: {
		"FALLOC_FL_KEEP_SIZE": unix.FALLOC_FL_KEEP_SIZE, "FALLOC_FL_PUNCH_HOLE": unix.FALLOC_FL_PUNCH_HOLE,
		"FALLOC_FL_NO_HIDE_STALE": unix.FALLOC_FL_NO_HIDE_STALE, "FALLOC_FL_COLLAPSE_RANGE": unix.FALLOC_FL_COLLAPSE_RANGE,
		"FALLOC_FL_ZERO_RANGE": unix.FALLOC_FL_ZERO_RANGE, "FALLOC_FL_INSERT_RANGE": unix.FALLOC_FL_INSERT_RANGE,
		"FALLOC_FL_UNSHARE_RANGE": unix.FALLOC_FL_UNSHARE_RANGE,
	},
	RWFFlags: {"RWF_HIPRI": unix.RWF_HIPRI, "RWF_DSYNC": unix.RWF_DSYNC, "RWF_SYNC": unix.RWF_SYNC, "RWF_NOWAIT": unix.RWF_NOWAIT, "RWF_APPEND": unix.RWF_APPEND},
	FcntlCmds: {
		"F_DUPFD": unix.F_DUPFD, "F_GETFD": unix.F_GETFD, "F_SETFD": unix.F_SETFD, "F_GETFL": unix.F_GETFL, "F_SETFL": unix.F_SETFL,
		"F_DUPFD_CLOEXEC": unix.F_DUPFD_CLOEXEC, "F_OFD_SETLK": unix.F_OFD_SETLK, "F_ADD_SEALS": unix.F_ADD_SEALS,
	},
	FDFlags:            {"FD_CLOEXEC": unix.FD_CLOEXEC},
	CloseRangeFlags:    {"CLOSE_RANGE_UNSHARE": unix.CLOSE_RANGE_UNSHARE, "CLOSE_RANGE_CLOEXEC": unix.CLOSE_RANGE_CLOEXEC},
	SeekWhence:         {"SEEK_SET": unix.SEEK_SET, "SEEK_CUR": unix.SEEK_CUR, "SEEK_END": unix.SEEK_END, "SEEK_DATA": unix.SEEK_DATA, "SEEK_HOLE": unix.SEEK_HOLE},
	ProtFlags:          {"PROT_NONE": unix.PROT_NONE, "PROT_READ": unix.PROT_READ, "PROT_WRITE": unix.PROT_WRITE, "PROT_EXEC": unix.PROT_EXEC, "PROT_GROWSDOWN": unix.PROT_GROWSDOWN},
	MsyncFlags:         {"MS_ASYNC": unix.MS_ASYNC, "MS_INVALIDATE": unix.MS_INVALIDATE, "MS_SYNC": unix.MS_SYNC},
	SyncFileRangeFlags: {"SYNC_FILE_RANGE_WAIT_BEFORE": unix.SYNC_FILE_RANGE_WAIT_BEFORE, "SYNC_FILE_RANGE_WRITE": unix.SYNC_FILE_RANGE_WRITE, "SYNC_FILE_RANGE_WAIT_AFTER": unix.SYNC_FILE_RANGE_WAIT_AFTER},
	MmapFlags: {
		"MAP_SHARED": unix.MAP_SHARED, "MAP_PRIVATE": unix.MAP_PRIVATE, "MAP_SHARED_VALIDATE": unix.MAP_SHARED_VALIDATE,
		"MAP_FIXED": unix.MAP_FIXED, "MAP_ANONYMOUS": unix.MAP_ANONYMOUS, "MAP_GROWSDOWN": unix.MAP_GROWSDOWN,
		"MAP_DENYWRITE": unix.MAP_DENYWRITE, "MAP_EXECUTABLE": unix.MAP_EXECUTABLE, "MAP_LOCKED": unix.MAP_LOCKED,
		"MAP_NORESERVE": unix.MAP_NORESERVE, "MAP_POPULATE": unix.MAP_POPULATE, "MAP_NONBLOCK": unix.MAP_NONBLOCK,
		"MAP_STACK": unix.MAP_STACK, "MAP_HUGETLB": unix.MAP_HUGETLB, "MAP_SYNC": unix.MAP_SYNC,
		"MAP_FIXED_NOREPLACE": unix.MAP_FIXED_NOREPLACE,
	},
	CloneFlags: {
		"CLONE_VM": unix.CLONE_VM, "CLONE_FS": unix.CLONE_FS, "CLONE_FILES": unix.CLONE_FILES, "CLONE_SIGHAND": unix.CLONE_SIGHAND,
		"CLONE_PIDFD": unix.CLONE_PIDFD, "CLONE_PTRACE": unix.CLONE_PTRACE, "CLONE_VFORK": unix.CLONE_VFORK,
		"CLONE_PARENT": unix.CLONE_PARENT, "CLONE_THREAD": unix.CLONE_THREAD, "CLONE_NEWNS": unix.CLONE_NEWNS,
		"CLONE_SYSVSEM": unix.CLONE_SYSVSEM, "CLONE_SETTLS": unix.CLONE_SETTLS, "CLONE_PARENT_SETTID": unix.CLONE_PARENT_SETTID,
		"CLONE_CHILD_CLEARTID": unix.CLONE_CHILD_CLEARTID, "CLONE_DETACHED": unix.CLONE_DETACHED,
		"CLONE_UNTRACED": unix.CLONE_UNTRACED, "CLONE_CHILD_SETTID": unix.CLONE_CHILD_SETTID,
		"CLONE_NEWCGROUP": unix.CLONE_NEWCGROUP, "CLONE_NEWUTS": unix.CLONE_NEWUTS, "CLONE_NEWIPC": unix.CLONE_NEWIPC,
		"CLONE_NEWUSER": unix.CLONE_NEWUSER, "CLONE_NEWPID": unix.CLONE_NEWPID, "CLONE_NEWNET": unix.CLONE_NEWNET,
		"CLONE_IO": unix.CLONE_IO, "CLONE_CLEAR_SIGHAND": unix.CLONE_CLEAR_SIGHAND, "CLONE_INTO_CGROUP": unix.CLONE_INTO_CGROUP,
		"CLONE_NEWTIME": unix.CLONE_NEWTIME, "SIGCHLD": uint64(unix.SIGCHLD),
	},
}

// TestABIMatchesHost: the table's values for the architecture the test
// runs on are x/sys/unix's, name by name, and a number the host prints
// decodes to the name's bits in crashsim's. O_LARGEFILE is left out: on
// 64-bit hosts x/sys/unix has it as 0 (the C library's view), while the
// kernel, and strace, have a bit for it.
func TestABIMatchesHost(t *testing.T) {
	host, err := ParseArch(runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for tab, vals := range hostValues {
		for name, hv := range vals {
			var f *Flag
			for i := range tab.Flags() {
				if tab.Flags()[i].Name == name {
					f = &tab.Flags()[i]
				}
			}
			if f == nil {
				t.Errorf("%s: no %s", tab.Name(), name)
				continue
			}
			if got := f.on(host); got != hv {
				t.Errorf("%s: %s = %#x on %s in the table, %#x in x/sys/unix", tab.Name(), name, got, host, hv)
			}
			if got, _ := tab.Bits("0x"+hexOf(hv), host); !tab.enum && got != canonOf(*f) {
				t.Errorf("%s: %#x printed on %s decodes to %#x, want %s (%#x)", tab.Name(), hv, host, got, name, canonOf(*f))
			}
			n++
		}
	}
	if n < 110 {
		t.Errorf("only %d names compared", n)
	}
	if AT_FDCWD != unix.AT_FDCWD {
		t.Errorf("AT_FDCWD = %d, x/sys/unix %d", AT_FDCWD, unix.AT_FDCWD)
	}
}

func hexOf(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{digits[v&15]}, b...)
	}
	return string(b)
}
