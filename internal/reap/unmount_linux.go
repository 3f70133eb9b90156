package reap

import (
	"errors"
	"syscall"
)

// unmountAll detaches whatever is mounted on dir (MNT_DETACH: busy or
// not), stacked mounts included, and reports whether dir is no longer a
// mount point.
func unmountAll(dir string) bool {
	for i := 0; i < 16; i++ {
		err := syscall.Unmount(dir, syscall.MNT_DETACH)
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
			return true // not a mount point (any more)
		}
		if err != nil {
			return false
		}
	}
	return false
}
