//go:build linux

package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crashsim/crashsim/tracer"
	"golang.org/x/sys/unix"
)

// A checker runs jailed when crashsim has CAP_SYS_ADMIN: its runner
// (runner_linux.go) is crashsim's own binary started again as process 1
// of a new pid namespace, in a new mount namespace, and there
//
//   - makes every mount read-only except the state directory, so a checker
//     that writes an absolute path (the program's real data directory, say)
//     gets EROFS instead of changing the real files;
//   - mounts a /proc of its own pid namespace;
//   - starts sh -c CHECKER in a session of its own and waits for it,
//     reaping whatever is reparented to it.
//
// When the checker ends, the runner kills every other process in its pid
// namespace; when the runner itself ends (killed at a timeout, or with
// crashsim), the kernel does: nothing a checker starts, setsid daemons
// included, outlives the checker or the timeout's SIGKILL.

// canJail reports whether crashsim holds CAP_SYS_ADMIN (CapEff bit 21),
// which new pid and mount namespaces need.
func canJail() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			var mask uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%x", &mask); err != nil {
				return false
			}
			return mask&(1<<21) != 0
		}
	}
	return false
}

// dropLoopMounts detaches, in the jail's copy of the mount table, the
// filesystems on loop devices that hold none of the writable dirs: the
// oracle's (another crashsim's, a user's image). The copy holds each
// filesystem it has, so that one unmounted outside would stay busy, and
// its loop device attached, until the checker ended.
func dropLoopMounts(writable []string) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- { // deepest first
		f := strings.Fields(lines[i])
		sep := slices.Index(f, "-")
		if len(f) < 5 || sep < 0 || sep+2 >= len(f) || !strings.HasPrefix(f[sep+2], "/dev/loop") {
			continue
		}
		mp := tracer.UnescapeMount(f[4])
		needed := false
		for _, w := range writable {
			if w == mp || strings.HasPrefix(w, strings.TrimSuffix(mp, "/")+"/") {
				needed = true
			}
		}
		if !needed {
			_ = unix.Unmount(mp, unix.MNT_DETACH)
		}
	}
}

// jailSetup makes the runner's mount namespace: private, the loop
// filesystems that hold nothing needed dropped, everything read-only but
// the directories WritableEnv names, and a /proc of its own. work holds
// the state directories, which bindWritable makes writable one at a time.
func jailSetup(work string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	var writable []string
	for _, d := range filepath.SplitList(os.Getenv(WritableEnv)) {
		if d != "" {
			writable = append(writable, d)
		}
	}
	dropLoopMounts(append([]string{work}, writable...))
	for _, d := range writable {
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", d, err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, ro); err != nil {
		return fmt.Errorf("make / read-only: %w", err)
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	for _, d := range writable {
		if err := unix.MountSetattr(unix.AT_FDCWD, d, unix.AT_RECURSIVE, rw); err != nil {
			return fmt.Errorf("make %s writable: %w", d, err)
		}
	}
	return nil
}

// bindWritable makes dir writable in the jail, for one checker: the
// runner unmounts it again when the checker's processes are gone.
func bindWritable(dir string) error {
	if err := unix.Mount(dir, dir, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, dir, unix.AT_RECURSIVE, rw); err != nil {
		_ = unix.Unmount(dir, unix.MNT_DETACH)
		return err
	}
	return nil
}
