//go:build linux

package explore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/tracer"
	"golang.org/x/sys/unix"
)

// A checker runs jailed when crashsim has CAP_SYS_ADMIN: in the host's
// pid namespace, in a mount namespace of its own, made by a thread of
// crashsim's (confined_linux.go) or by a runner (runner_linux.go),
// crashsim's own binary started again, which there
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
//   - runs the checker as an unprivileged user of the host, uid 0 of a
//     user namespace (zygote_linux.go), in network and IPC namespaces of
//     its own, with no capabilities, the bounding set emptied, and
//     no_new_privs: it cannot mount, remount or unmount (so the
//     read-only mounts stay so), make device nodes, gain privileges
//     through a setuid program or file capabilities, signal or trace
//     root's processes, open root's files and sockets, or reach the
//     network. Its state directory (and each writable directory) is an
//     idmapped mount that shows root's files as the checker's own, and a
//     directory on the way to one that others may not enter (the work
//     directory is one) is covered by a tmpfs that holds only the way.
//
// Confinement needs idmapped mounts of the work directory's filesystem
// (Linux 5.12; tmpfs, explore's default in /dev/shm, from 6.3). Without
// them, or with HostRootEnv set, a runner jails the checker instead: it
// runs as the host's uid 0 from a thread of the runner's that dropped
// every capability, from the bounding set too, and set no_new_privs, as
// the runner's other threads keep theirs to bind each state directory;
// without HostRootEnv it still gets network and IPC namespaces of its
// own, and explore says in a warning what it could reach
// (Result.Unconfined).
//
// A checker is contained by its starter or its runner, a child
// subreaper: whatever it starts, setsid daemons with a clean environment
// included, ends as its child or below one, and is killed before the
// next state.

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
	b, err := os.ReadFile("/proc/thread-self/mountinfo") // a jail thread's own (confined.go)
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

// jailMode says who the jail's checkers are.
type jailMode int

const (
	// jailConfined: an unprivileged user, in network and IPC namespaces
	// of its own, started by a starter (zygote_linux.go). The jail is a
	// thread of crashsim's (confined_linux.go).
	jailConfined jailMode = iota
	// jailOwnNet: the host's root without capabilities, in network and
	// IPC namespaces of its own, started by a runner's thread: where
	// confinement cannot be had.
	jailOwnNet
	// jailHostNet: the same in the host's network (HostRootEnv).
	jailHostNet
)

// jail is a jailed mount namespace, set up once, and what starts its
// checkers: a starter that runs them confined (z), or a thread of the
// runner's that dropped its privileges (fork).
type jail struct {
	z    *zygote
	fork *forker
	fds  []int // open for the jail: closed by close
	work string
	// workFD is open on the work directory: below /dev/shm (explore's
	// default) it is covered by the jail's own /dev, and each state
	// directory is bound from it to its own path in the state's /dev/shm.
	workFD int
	// shmBinds are the writable directories below /dev/shm, bound again
	// into each state's /dev/shm.
	shmBinds []hidden
	// covered: the work directory is below a tmpfs the jail laid over a
	// directory the checker's user may not enter; each state's directory
	// is made there for its mount (made), unless a bind there holds it.
	covered bool
	made    string
}

// hidden is a directory of the host that the jail covers.
type hidden struct {
	path string
	fd   int // open on it, from before it was covered
}

// errCannotConfine says that checkers cannot be confined here (why).
type errCannotConfine struct{ why error }

func (e errCannotConfine) Error() string { return e.why.Error() }

// jailSetup makes the calling thread's mount namespace (its own: a
// runner's, or a jail thread's) the jail: private, the loop filesystems
// that hold nothing needed dropped, the minimal /dev, and everything
// read-only, nosuid and nodev but the directories WritableEnv names. work
// holds the state directories, which enter makes writable one at a time.
// Then it starts what starts the checkers as mode says, a starter in
// group (none when nil) when confined; when confinement cannot be had
// here, the error is an errCannotConfine. On an error the jail's fds are
// closed.
func jailSetup(work string, mode jailMode, group *reap.Group) (_ *jail, err error) {
	j := &jail{work: work}
	defer func() {
		if err != nil {
			j.close()
		}
	}()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make mounts private: %w", err)
	}
	var writable []string
	for _, d := range filepath.SplitList(os.Getenv(WritableEnv)) {
		if d != "" {
			writable = append(writable, d)
		}
	}
	dropLoopMounts(append([]string{work}, writable...))
	if j.workFD, err = unix.Open(work, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
		return nil, fmt.Errorf("open %s: %w", work, err)
	}
	j.fds = append(j.fds, j.workFD)
	var shown []hidden // writable, and not below the jail's /dev
	var readable []hidden
	if mode == jailConfined {
		for _, d := range filepath.SplitList(os.Getenv(ReadableEnv)) {
			if d == "" {
				continue
			}
			if within(d, "/dev") {
				return nil, fmt.Errorf("%s %s: the jail has a /dev of its own", ReadableEnv, d)
			}
			fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return nil, fmt.Errorf("open %s: %w", d, err)
			}
			j.fds = append(j.fds, fd)
			readable = append(readable, hidden{d, fd})
		}
	}
	for _, d := range writable {
		fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", d, err)
		}
		j.fds = append(j.fds, fd)
		if !within(d, "/dev") {
			shown = append(shown, hidden{d, fd})
			continue
		}
		if !within(d, "/dev/shm") {
			return nil, fmt.Errorf("%s %s: the jail has a /dev of its own; only /dev/shm can hold a writable directory", WritableEnv, d)
		}
		j.shmBinds = append(j.shmBinds, hidden{d, fd})
	}
	if mode != jailConfined {
		for _, h := range shown {
			if err := unix.Mount(h.path, h.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return nil, fmt.Errorf("bind %s: %w", h.path, err)
			}
		}
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
	if mode == jailConfined {
		// The jail's mounts are made read-only before the starter starts,
		// never after: a mount cannot be made read-only while a file is
		// open for writing on it (EBUSY), and from here on one can be,
		// held by another process. Go writes the starter's uid map
		// through the jail's /proc with an fd not closed on exec, and
		// another goroutine's fork, at the same moment, copies it into a
		// child (another worker's starter or runner) that keeps it.
		// /proc is writable for that write, then covered by a read-only
		// bind of itself: a new mount, which no such file holds.
		if err := unix.MountSetattr(unix.AT_FDCWD, "/proc", 0, rw); err != nil {
			return nil, errCannotConfine{fmt.Errorf("/proc: %w", err)}
		}
		dirs := append([]hidden{{work, j.workFD}}, shown...)
		dirs = append(append(dirs, j.shmBinds...), readable...)
		if j.z, err = startConfined(dirs, group); err != nil {
			return nil, errCannotConfine{err}
		}
		if err := readOnlyProc(); err != nil {
			return nil, errCannotConfine{fmt.Errorf("a read-only /proc: %w", err)}
		}
		if err := j.layOut(shown, readable); err != nil {
			return nil, err
		}
		return j, nil
	}
	for _, h := range shown {
		if err := unix.MountSetattr(unix.AT_FDCWD, h.path, unix.AT_RECURSIVE, rw); err != nil {
			return nil, fmt.Errorf("make %s writable: %w", h.path, err)
		}
	}
	// Unconfined, the runner starts checkers from a thread that dropped
	// its privileges: in network and IPC namespaces of its own unless
	// HostRootEnv asked for the host's.
	if j.fork, err = startForker(func() error {
		if mode == jailOwnNet {
			if err := unix.Unshare(unix.CLONE_NEWNET | unix.CLONE_NEWIPC); err != nil {
				return fmt.Errorf("network and IPC namespaces: %w", err)
			}
			if err := loopbackUp(); err != nil {
				return fmt.Errorf("loopback: %w", err)
			}
		}
		return dropPrivileges()
	}); err != nil {
		return nil, fmt.Errorf("drop privileges: %w", err)
	}
	return j, nil
}

// readOnlyProc covers /proc with a read-only bind of it (its submounts
// too), made read-only before it is shown.
func readOnlyProc() error {
	t, err := unix.OpenTree(unix.AT_FDCWD, "/proc", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree: %w", err)
	}
	defer unix.Close(t)
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(t, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, ro); err != nil {
		return fmt.Errorf("mount_setattr: %w", err)
	}
	if err := unix.MoveMount(t, "", unix.AT_FDCWD, "/proc", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// close ends the jail's starter and closes its fds. The mounts go with
// the mount namespace.
func (j *jail) close() {
	if j.z != nil {
		j.z.stop()
		j.z = nil
	}
	for _, fd := range j.fds {
		unix.Close(fd)
	}
	j.fds = nil
}

// startConfined starts the starter of confined checkers and checks that
// each directory of dirs (the work directory and the writable ones) can
// be mounted idmapped to their user. Its error says why checkers cannot
// be confined here.
func startConfined(dirs []hidden, group *reap.Group) (*zygote, error) {
	uid, err := checkerIDs()
	if err != nil {
		return nil, err
	}
	z, err := startZygote(uid, group)
	if err == nil {
		err = z.ready()
	}
	if err != nil {
		if z != nil {
			z.stop()
		}
		return nil, fmt.Errorf("a user namespace for the checker: %w", err)
	}
	for _, d := range dirs {
		fd, err := idmapClone(d.fd, "", z.userns, true)
		if err != nil {
			z.stop()
			return nil, fmt.Errorf("%s: its filesystem has no idmapped mounts on this kernel (Linux has them from 5.12 on ext4, xfs and btrfs, from 6.3 on tmpfs; --work-dir says where states are built): %w", d.path, err)
		}
		unix.Close(fd)
	}
	return z, nil
}

// layOut makes the way to the work directory and to the writable
// directories shown (not below /dev) and readable passable for the
// confined checker: each directory on the way that others may not enter
// is covered by a tmpfs that holds only the way on, and each writable or
// readable directory is bound, idmapped, at its path (outer ones first).
// It runs after the jail was made read-only: a cover stays writable (for
// the state directories made in it) but root's, so the checker's user
// cannot write it, and each bind is as writable as it says.
func (j *jail) layOut(shown, readable []hidden) error {
	type exposed struct {
		hidden
		writable bool
	}
	var binds []exposed
	need := []string{j.work}
	for _, h := range shown {
		binds = append(binds, exposed{h, true})
	}
	for _, h := range readable {
		binds = append(binds, exposed{h, false})
	}
	for _, b := range binds {
		need = append(need, b.path)
	}
	covers, err := closedOnTheWay(need)
	if errors.Is(err, errRootClosed) {
		return errCannotConfine{err}
	}
	if err != nil {
		return err
	}
	for _, c := range covers {
		if err := unix.Mount("tmpfs", c, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=755,size=1m"); err != nil {
			return fmt.Errorf("cover %s: %w", c, err)
		}
		if within(j.work, c) {
			j.covered = true
		}
	}
	slices.SortStableFunc(binds, func(a, b exposed) int { return len(a.path) - len(b.path) })
	for _, b := range binds {
		// Made in a cover; a directory inside another bind exists there.
		if err := os.MkdirAll(b.path, 0o755); err != nil {
			return err
		}
		t, err := idmapClone(b.fd, "", j.z.userns, b.writable)
		if err == nil {
			err = unix.MoveMount(t, "", unix.AT_FDCWD, b.path, unix.MOVE_MOUNT_F_EMPTY_PATH)
			unix.Close(t)
		}
		if err != nil {
			return fmt.Errorf("bind %s: %w", b.path, err)
		}
	}
	return nil
}

// errRootClosed says that others may not enter /: no cover can open it.
var errRootClosed = errors.New("/ is closed to others (mode o-x)")

// closedOnTheWay returns, for each path not below /dev, the first
// directory from / down to it (it included) that others may not enter
// (mode o-x), leaving out those below another one.
func closedOnTheWay(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if within(p, "/dev") {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, err
		}
		dir := "/"
		rest := strings.Split(strings.TrimPrefix(real, "/"), "/")
		for {
			var st unix.Stat_t
			if err := unix.Stat(dir, &st); err != nil {
				return nil, err
			}
			if st.Mode&0o001 == 0 {
				if dir == "/" {
					return nil, errRootClosed
				}
				out = append(out, dir)
				break
			}
			if len(rest) == 0 || rest[0] == "" {
				break
			}
			dir, rest = filepath.Join(dir, rest[0]), rest[1:]
		}
	}
	slices.Sort(out)
	var outer []string
	for _, c := range out {
		if len(outer) == 0 || !within(c, outer[len(outer)-1]) {
			outer = append(outer, c)
		}
	}
	return outer, nil
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

// dropPrivileges empties the calling thread's capability sets, bounding
// and ambient sets included, and sets no_new_privs on it.
func dropPrivileges() error {
	if err := emptyBoundingSet(); err != nil {
		return err
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

// emptyBoundingSet drops every capability from the calling thread's
// bounding set. That needs CAP_SETPCAP, which a container may not grant.
// Without it the rest still holds: a uid 0 that execs with no_new_privs
// gets no capability its permitted set lacked.
func emptyBoundingSet() error {
	last := 63
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EPERM) {
			break
		}
		if err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}

// enter gives a checker an empty /dev/shm and makes its state directory
// dir writable (dir is below the work directory), idmapped to the
// checker's user when it is confined; leave undoes both once the
// checker's processes are gone.
func (j *jail) enter(dir string) error {
	rel, err := filepath.Rel(j.work, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is not below %s", dir, j.work)
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("/dev/shm: %w", err)
	}
	for _, h := range j.shmBinds {
		if err := j.bind(h.fd, "", h.path); err != nil {
			j.leave(dir)
			return err
		}
	}
	if err := j.bind(j.workFD, rel, dir); err != nil {
		j.leave(dir)
		return err
	}
	return nil
}

// bind binds rel below the directory open as fd (all of it when rel is
// ""), writable, at target: a target that the jail's /dev/shm or a cover
// holds is made there first.
func (j *jail) bind(fd int, rel, target string) error {
	if within(target, "/dev/shm") || j.covered && within(target, j.work) {
		if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			if !within(target, "/dev/shm") {
				j.made = target // in a cover: leave removes it
			}
		}
	}
	if j.z != nil {
		return bindIdmapped(fd, rel, target, j.z.userns)
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

// idmapClone returns a new detached mount of rel below the directory open
// as fd ("" for that directory), writable or not, whose files' owners are mapped
// through the user namespace open as userns: root's files show as owned
// by the uid that uid 0 of the namespace is on the host, and what that
// uid creates is root's on disk.
func idmapClone(fd int, rel string, userns int, writable bool) (int, error) {
	flags := uint(unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC)
	if rel == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	t, err := unix.OpenTree(fd, rel, flags)
	if err != nil {
		return -1, fmt.Errorf("open_tree: %w", err)
	}
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Attr_clr: unix.MOUNT_ATTR_RDONLY, Userns_fd: uint64(userns)}
	if !writable {
		attr.Attr_set, attr.Attr_clr = unix.MOUNT_ATTR_IDMAP|unix.MOUNT_ATTR_RDONLY, 0
	}
	if err := unix.MountSetattr(t, "", unix.AT_EMPTY_PATH, attr); err != nil {
		unix.Close(t)
		return -1, fmt.Errorf("mount_setattr: %w", err)
	}
	return t, nil
}

// bindIdmapped mounts idmapClone's mount at target.
func bindIdmapped(fd int, rel, target string, userns int) error {
	t, err := idmapClone(fd, rel, userns, true)
	if err != nil {
		return fmt.Errorf("bind %s: %w", target, err)
	}
	defer unix.Close(t)
	if err := unix.MoveMount(t, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("bind %s: %w", target, err)
	}
	return nil
}

// leave unmounts the state directory (and removes the directory a cover
// held for it), then /dev/shm with what is in it.
func (j *jail) leave(dir string) {
	if !within(dir, "/dev/shm") {
		_ = unix.Unmount(dir, unix.MNT_DETACH)
		if j.made == dir {
			_ = os.Remove(dir)
		}
		j.made = ""
	}
	_ = unix.Unmount("/dev/shm", unix.MNT_DETACH)
}
