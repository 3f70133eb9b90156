package oracle

import (
	"path/filepath"

	"github.com/crashsim/crashsim/internal/reap"
)

// guardBlocks is guard for RunBlocks: the watchdog also knows the FUSE
// mount point, fuse/ under dir, which it aborts first and unmounts last,
// after the loop devices over the image it served are detached (see
// reap.StartFUSEWatchdog). If crashsim is killed with SIGKILL while the
// program runs, the live filesystem, its loop device and the FUSE mount
// under them go; while it replays, the state's mount and loop device.
func (s *system) guardBlocks(dir string, keep bool) {
	s.token = reap.NewToken()
	s.newGroup()
	remove := dir
	if keep {
		remove = ""
	}
	mounts := []string{filepath.Join(dir, "live"), crashMountPoint(dir)}
	wd, err := reap.StartFUSEWatchdog(s.token, mounts, []string{filepath.Join(dir, "fuse")}, dir, remove, s.group)
	if err != nil {
		s.logf("no watchdog (%v): if crashsim is killed, its mounts, loop devices and FUSE mount stay", err)
		return
	}
	s.watchdog = wd
}
