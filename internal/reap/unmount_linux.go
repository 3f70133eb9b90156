package reap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// unmountAll detaches whatever is mounted on dir (MNT_DETACH: busy or
// not), stacked mounts included, and reports whether dir is no longer a
// mount point.
func unmountAll(dir string) bool {
	for i := 0; i < 16; i++ {
		// A mount point of crashsim's is never a link: one there now is
		// not followed.
		err := syscall.Unmount(dir, syscall.MNT_DETACH|unix.UMOUNT_NOFOLLOW)
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
			return true // not a mount point (any more)
		}
		if err != nil {
			return false
		}
	}
	return false
}

// detachLoops detaches every loop device whose backing file is below dir
// (LOOP_CLR_FD: one still in use detaches when its last user goes).
func detachLoops(dir string) {
	files, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, f := range files {
		b, err := os.ReadFile(f)
		backing := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), " (deleted)")
		if err != nil || !strings.HasPrefix(backing, dir+"/") {
			continue
		}
		dev := "/dev/" + filepath.Base(filepath.Dir(filepath.Dir(f)))
		fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		_ = unix.IoctlSetInt(fd, unix.LOOP_CLR_FD, 0)
		unix.Close(fd)
	}
}

// abortFUSE ends the connection of the FUSE filesystem mounted on dir
// (a forced unmount does that first, whether or not the unmount itself
// then succeeds): every request waiting for its server fails.
func abortFUSE(dir string) {
	_ = syscall.Unmount(dir, syscall.MNT_FORCE)
}
