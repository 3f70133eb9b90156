package parser

import "golang.org/x/sys/unix"

// OpenFlags decodes open/openat/creat flags. O_RDONLY is 0 and carries no
// bit; the access mode is flags&O_ACCMODE.
var OpenFlags = FlagTable{
	"O_RDONLY":    unix.O_RDONLY,
	"O_WRONLY":    unix.O_WRONLY,
	"O_RDWR":      unix.O_RDWR,
	"O_ACCMODE":   unix.O_ACCMODE,
	"O_CREAT":     unix.O_CREAT,
	"O_EXCL":      unix.O_EXCL,
	"O_NOCTTY":    unix.O_NOCTTY,
	"O_TRUNC":     unix.O_TRUNC,
	"O_APPEND":    unix.O_APPEND,
	"O_NONBLOCK":  unix.O_NONBLOCK,
	"O_NDELAY":    unix.O_NDELAY,
	"O_DSYNC":     unix.O_DSYNC,
	"O_SYNC":      unix.O_SYNC, // includes O_DSYNC's bit
	"O_RSYNC":     unix.O_RSYNC,
	"O_ASYNC":     unix.O_ASYNC,
	"O_DIRECT":    unix.O_DIRECT,
	"O_LARGEFILE": 0x8000, // strace prints it; x/sys/unix sets it to 0 on amd64
	"O_DIRECTORY": unix.O_DIRECTORY,
	"O_NOFOLLOW":  unix.O_NOFOLLOW,
	"O_NOATIME":   unix.O_NOATIME,
	"O_CLOEXEC":   unix.O_CLOEXEC,
	"O_PATH":      unix.O_PATH,
	"O_TMPFILE":   unix.O_TMPFILE, // includes O_DIRECTORY's bit
	"__O_TMPFILE": unix.O_TMPFILE &^ unix.O_DIRECTORY,
	"FASYNC":      unix.O_ASYNC,
	"__O_SYNC":    unix.O_SYNC &^ unix.O_DSYNC,
}

// AtFlags decodes the flags argument of *at calls.
var AtFlags = FlagTable{
	"AT_SYMLINK_NOFOLLOW":   unix.AT_SYMLINK_NOFOLLOW,
	"AT_REMOVEDIR":          unix.AT_REMOVEDIR,
	"AT_SYMLINK_FOLLOW":     unix.AT_SYMLINK_FOLLOW,
	"AT_NO_AUTOMOUNT":       unix.AT_NO_AUTOMOUNT,
	"AT_EMPTY_PATH":         unix.AT_EMPTY_PATH,
	"AT_EACCESS":            unix.AT_EACCESS,
	"AT_STATX_SYNC_AS_STAT": unix.AT_STATX_SYNC_AS_STAT,
	"AT_STATX_FORCE_SYNC":   unix.AT_STATX_FORCE_SYNC,
	"AT_STATX_DONT_SYNC":    unix.AT_STATX_DONT_SYNC,
	"AT_RECURSIVE":          unix.AT_RECURSIVE,
}

// RenameFlags decodes renameat2's flags.
var RenameFlags = FlagTable{
	"RENAME_NOREPLACE": unix.RENAME_NOREPLACE,
	"RENAME_EXCHANGE":  unix.RENAME_EXCHANGE,
	"RENAME_WHITEOUT":  unix.RENAME_WHITEOUT,
}

// FallocFlags decodes fallocate's mode.
var FallocFlags = FlagTable{
	"FALLOC_FL_KEEP_SIZE":      unix.FALLOC_FL_KEEP_SIZE,
	"FALLOC_FL_PUNCH_HOLE":     unix.FALLOC_FL_PUNCH_HOLE,
	"FALLOC_FL_NO_HIDE_STALE":  unix.FALLOC_FL_NO_HIDE_STALE,
	"FALLOC_FL_COLLAPSE_RANGE": unix.FALLOC_FL_COLLAPSE_RANGE,
	"FALLOC_FL_ZERO_RANGE":     unix.FALLOC_FL_ZERO_RANGE,
	"FALLOC_FL_INSERT_RANGE":   unix.FALLOC_FL_INSERT_RANGE,
	"FALLOC_FL_UNSHARE_RANGE":  unix.FALLOC_FL_UNSHARE_RANGE,
}

// RWFFlags decodes the flags of pwritev2/preadv2.
var RWFFlags = FlagTable{
	"RWF_HIPRI":  unix.RWF_HIPRI,
	"RWF_DSYNC":  unix.RWF_DSYNC,
	"RWF_SYNC":   unix.RWF_SYNC,
	"RWF_NOWAIT": unix.RWF_NOWAIT,
	"RWF_APPEND": unix.RWF_APPEND,
}

// MsyncFlags decodes msync's flags.
var MsyncFlags = FlagTable{
	"MS_ASYNC":      unix.MS_ASYNC,
	"MS_INVALIDATE": unix.MS_INVALIDATE,
	"MS_SYNC":       unix.MS_SYNC,
}

// SyncFileRangeFlags decodes sync_file_range's flags.
var SyncFileRangeFlags = FlagTable{
	"SYNC_FILE_RANGE_WAIT_BEFORE": unix.SYNC_FILE_RANGE_WAIT_BEFORE,
	"SYNC_FILE_RANGE_WRITE":       unix.SYNC_FILE_RANGE_WRITE,
	"SYNC_FILE_RANGE_WAIT_AFTER":  unix.SYNC_FILE_RANGE_WAIT_AFTER,
}

// MmapFlags decodes mmap's flags (MAP_SHARED stores reach the file without
// a write call).
var MmapFlags = FlagTable{
	"MAP_SHARED":          unix.MAP_SHARED,
	"MAP_PRIVATE":         unix.MAP_PRIVATE,
	"MAP_SHARED_VALIDATE": unix.MAP_SHARED_VALIDATE,
	"MAP_FIXED":           unix.MAP_FIXED,
	"MAP_ANONYMOUS":       unix.MAP_ANONYMOUS,
	"MAP_POPULATE":        unix.MAP_POPULATE,
	"MAP_NORESERVE":       unix.MAP_NORESERVE,
	"MAP_DENYWRITE":       unix.MAP_DENYWRITE,
	"MAP_STACK":           unix.MAP_STACK,
	"MAP_GROWSDOWN":       unix.MAP_GROWSDOWN,
	"MAP_FIXED_NOREPLACE": unix.MAP_FIXED_NOREPLACE,
}

// ProtFlags decodes mmap's prot.
var ProtFlags = FlagTable{
	"PROT_NONE":  unix.PROT_NONE,
	"PROT_READ":  unix.PROT_READ,
	"PROT_WRITE": unix.PROT_WRITE,
	"PROT_EXEC":  unix.PROT_EXEC,
}
