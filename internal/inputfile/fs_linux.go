package inputfile

import "golang.org/x/sys/unix"

// pseudoFS names the filesystem of fd when its files are made up as they
// are read (/proc, /sys): their size says nothing of their content, and
// some are endless or secret.
func pseudoFS(fd int) string {
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil {
		return ""
	}
	switch st.Type {
	case unix.PROC_SUPER_MAGIC:
		return "/proc"
	case unix.SYSFS_MAGIC:
		return "/sys"
	case unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC, unix.SECURITYFS_MAGIC:
		return "a kernel filesystem"
	}
	return ""
}

// isShellPipe says whether the fifo fd is a pipe (pipe(2), as a shell
// makes for a command's stdin or for <(cmd)) rather than a named pipe in
// a filesystem.
func isShellPipe(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && st.Type == unix.PIPEFS_MAGIC
}
