package explore

import (
	"io/fs"
	"syscall"
)

// inodeTimes is a file's inode number and change time: a write, a chmod
// or a rename of the entry changes the ctime.
func inodeTimes(fi fs.FileInfo) (ino, ctime int64) {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(sys.Ino), sys.Ctim.Nano()
	}
	return 0, fi.ModTime().UnixNano()
}
