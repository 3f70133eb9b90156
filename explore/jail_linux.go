//go:build linux

package explore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/crashsim/crashsim/tracer"
	"golang.org/x/sys/unix"
)

// A checker runs jailed when crashsim has CAP_SYS_ADMIN: its runner
// (runner_linux.go) is crashsim's own binary started again in a mount
// namespace of its own, in the host's pid namespace, and there
//
//   - makes every mount read-only, nosuid and nodev except the state
//     directory (and the directories WritableEnv names), so a checker
//     that writes an absolute path (the program's real data directory,
//     say) gets EROFS instead of changing the real files, and a device
//     node anywhere but the jail's /dev cannot be opened;
//   - covers /dev with a minimal one of its own: null, zero, full,
//     random, urandom and tty, the fd, stdin, stdout and stderr links, a
//     private devpts instance (for a checker that needs a terminal: a
//     tool driven through a pty) and an empty tmpfs at /dev/shm, new for
//     each state (POSIX shared memory and semaphores: PostgreSQL,
//     Python's multiprocessing), as after a reboot. No block device;
//   - keeps the host's /proc, read-only: the checker sees the processes
//     that run, so a lock file that names the crashed program's pid and
//     pid namespace reads as stale, as it would after a reboot; writes to
//     /proc/sysrq-trigger and /proc/sys fail;
//   - starts each checker from a thread of its own that has dropped every
//     capability, from the bounding set too, and set no_new_privs: the
//     checker, though uid 0, cannot mount, remount or unmount (so the
//     read-only mounts stay so), make device nodes, or gain privileges
//     through a setuid program or file capabilities. The runner's other
//     threads keep theirs, to bind each state directory writable.
//
// A checker is contained by its runner, a child subreaper: whatever it
// starts, setsid daemons with a clean environment included, ends as the
// runner's child or below one, and is killed before the next state.

// canJail reports whether crashsim holds CAP_SYS_ADMIN (CapEff bit 21),
// which a mount namespace needs.
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

// jail is a jailed runner's mount namespace, set up once, and the thread
// without privileges that starts its checkers.
type jail struct {
	forks chan forkRequest
	work  string
	// workFD is open on the work directory: below /dev/shm (explore's
	// default) it is covered by the jail's own /dev, and each state
	// directory is bound from it to its own path in the state's /dev/shm.
	workFD int
	// shmBinds are the writable directories below /dev/shm, bound again
	// into each state's /dev/shm.
	shmBinds []hidden
}

// hidden is a directory of the host that the jail's /dev covers.
type hidden struct {
	path string
	fd   int // open on it, from before it was covered
}

type forkRequest struct {
	path string
	argv []string
	attr *syscall.ProcAttr
	done chan forkResult
}

type forkResult struct {
	pid int
	err error
}

// jailSetup makes the runner's mount namespace: private, the loop
// filesystems that hold nothing needed dropped, the minimal /dev, and
// everything read-only, nosuid and nodev but the directories WritableEnv
// names. work holds the state directories, which enter makes writable one
// at a time. Then it starts the thread that forks the checkers.
func jailSetup(work string) (*jail, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make mounts private: %w", err)
	}
	j := &jail{forks: make(chan forkRequest), work: work}
	var writable []string
	for _, d := range filepath.SplitList(os.Getenv(WritableEnv)) {
		if d != "" {
			writable = append(writable, d)
		}
	}
	dropLoopMounts(append([]string{work}, writable...))
	var err error
	if j.workFD, err = unix.Open(work, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
		return nil, fmt.Errorf("open %s: %w", work, err)
	}
	var shown []string // writable, and not below the jail's /dev
	for _, d := range writable {
		if !within(d, "/dev") {
			shown = append(shown, d)
			if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return nil, fmt.Errorf("bind %s: %w", d, err)
			}
			continue
		}
		if !within(d, "/dev/shm") {
			return nil, fmt.Errorf("%s %s: the jail has a /dev of its own; only /dev/shm can hold a writable directory", WritableEnv, d)
		}
		fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", d, err)
		}
		j.shmBinds = append(j.shmBinds, hidden{d, fd})
	}
	if err := minimalDev(); err != nil {
		return nil, fmt.Errorf("make /dev: %w", err)
	}
	locked := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, locked); err != nil {
		return nil, fmt.Errorf("make / read-only: %w", err)
	}
	// The jail's own /dev (not what it covers) keeps its device nodes.
	if err := unix.MountSetattr(unix.AT_FDCWD, "/dev", 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_NODEV}); err != nil {
		return nil, fmt.Errorf("/dev: %w", err)
	}
	if isMount("/dev/pts") {
		if err := unix.MountSetattr(unix.AT_FDCWD, "/dev/pts", 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_RDONLY}); err != nil {
			return nil, fmt.Errorf("/dev/pts: %w", err)
		}
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	for _, d := range shown {
		if err := unix.MountSetattr(unix.AT_FDCWD, d, unix.AT_RECURSIVE, rw); err != nil {
			return nil, fmt.Errorf("make %s writable: %w", d, err)
		}
	}
	ready := make(chan error)
	go j.forker(ready)
	if err := <-ready; err != nil {
		return nil, fmt.Errorf("drop privileges: %w", err)
	}
	return j, nil
}

// devNodes are the devices of the jail's /dev (major, minor).
var devNodes = []struct {
	name         string
	major, minor uint32
}{
	{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
}

// minimalDev covers /dev with a tmpfs that holds devNodes, the usual
// links, a private devpts instance and a directory for /dev/shm.
func minimalDev() error {
	// The host's nodes, for a bind mount where mknod is not allowed (no
	// CAP_MKNOD in a container): once covered they cannot be named.
	host := map[string]int{}
	for _, d := range devNodes {
		if fd, err := unix.Open("/dev/"+d.name, unix.O_PATH|unix.O_CLOEXEC, 0); err == nil {
			host[d.name] = fd
			defer unix.Close(fd)
		}
	}
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=755,size=64k"); err != nil {
		return err
	}
	for _, d := range devNodes {
		p := "/dev/" + d.name
		err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(d.major, d.minor)))
		if err == nil {
			err = unix.Chmod(p, 0o666) // past the umask
		} else if errors.Is(err, unix.EPERM) {
			fd, ok := host[d.name]
			if !ok {
				continue // the host has none either
			}
			if err = os.WriteFile(p, nil, 0o666); err == nil {
				err = unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), p, "", unix.MS_BIND, "")
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	links := [][2]string{{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}}
	for _, l := range links {
		if err := os.Symlink(l[0], "/dev/"+l[1]); err != nil {
			return err
		}
	}
	if err := os.Mkdir("/dev/shm", 0o1777); err != nil {
		return err
	}
	if err := unix.Chmod("/dev/shm", 0o1777); err != nil {
		return err
	}
	if err := os.Mkdir("/dev/pts", 0o755); err != nil {
		return err
	}
	// A terminal is a convenience: a kernel without devpts instances
	// leaves the jail without one.
	if unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") == nil {
		if err := os.Symlink("pts/ptmx", "/dev/ptmx"); err != nil {
			return err
		}
	}
	return nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// isMount reports whether dir is a mount point of the namespace.
func isMount(dir string) bool {
	var a, b unix.Stat_t
	if unix.Lstat(dir, &a) != nil || unix.Lstat(filepath.Dir(dir), &b) != nil {
		return false
	}
	return a.Dev != b.Dev
}

// forker is the goroutine, locked to a thread of its own, that drops
// that thread's privileges and then starts every checker from it: a
// child gets the credentials of the thread that forked it.
func (j *jail) forker(ready chan<- error) {
	runtime.LockOSThread() // for good: the thread must not run anything else
	if err := dropPrivileges(); err != nil {
		ready <- err
		return
	}
	close(ready)
	for req := range j.forks {
		pid, err := syscall.ForkExec(req.path, req.argv, req.attr)
		req.done <- forkResult{pid, err}
	}
}

// forkExec starts a checker from the thread without privileges.
func (j *jail) forkExec(path string, argv []string, attr *syscall.ProcAttr) (int, error) {
	done := make(chan forkResult, 1)
	j.forks <- forkRequest{path, argv, attr, done}
	r := <-done
	return r.pid, r.err
}

// dropPrivileges empties the calling thread's capability sets, bounding
// and ambient sets included, and sets no_new_privs on it.
func dropPrivileges() error {
	last := 63
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	// Emptying the bounding set needs CAP_SETPCAP, which a container may
	// not grant. Without it the rest still holds: a uid 0 that execs with
	// no_new_privs gets no capability its permitted set lacked.
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EPERM) {
			break
		}
		if err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return nil
}

// enter gives a checker an empty /dev/shm and makes its state directory
// dir writable (dir is below the work directory); leave undoes both once
// the checker's processes are gone.
func (j *jail) enter(dir string) error {
	rel, err := filepath.Rel(j.work, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is not below %s", dir, j.work)
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("/dev/shm: %w", err)
	}
	for _, h := range j.shmBinds {
		if err := bindFrom(h.fd, ".", h.path); err != nil {
			j.leave(dir)
			return err
		}
	}
	if err := bindFrom(j.workFD, rel, dir); err != nil {
		j.leave(dir)
		return err
	}
	return nil
}

// bindFrom binds rel below the directory open as fd, writable, at target:
// a target the jail's /dev/shm covers is made there first.
func bindFrom(fd int, rel, target string) error {
	if within(target, "/dev/shm") {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
	}
	src := filepath.Join("/proc/self/fd", strconv.Itoa(fd), rel)
	if err := unix.Mount(src, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", target, err)
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, target, unix.AT_RECURSIVE, rw); err != nil {
		return fmt.Errorf("make %s writable: %w", target, err)
	}
	return nil
}

// leave unmounts the state directory, then /dev/shm with what is in it.
func (j *jail) leave(dir string) {
	if !within(dir, "/dev/shm") {
		_ = unix.Unmount(dir, unix.MNT_DETACH)
	}
	_ = unix.Unmount("/dev/shm", unix.MNT_DETACH)
}
