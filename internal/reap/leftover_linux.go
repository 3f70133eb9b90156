package reap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A run of crashsim that is killed with its watchdog (SIGKILL of every
// process, the OOM killer) leaves what the watchdog would have undone:
// its temporary directories, the oracle's mounts and loop devices in
// them, and its cgroups. A later run sweeps those (SweepDirs,
// SweepGroups), but only what it can prove a run that is gone made:
//
//   - a directory carries a record, ownerFile, written as soon as it is
//     made (OwnDir), naming the process that made it: its pid, when it
//     started (field 22 of /proc/PID/stat, so that a reused pid is not
//     taken for the owner), the boot and the pid namespace;
//   - a cgroup carries the same in its name (NewGroup).
//
// Whatever has no such record, or whose owner may still run, or that is
// not a plain directory of the sweeping user, is left alone.

// ownerFile is the record OwnDir writes in a run's directory.
const ownerFile = ".crashsim-owner"

const ownerHead = "crashsim run directory"

// owner is the process that made a directory or a cgroup.
type owner struct {
	pid   int
	start uint64 // clock ticks after boot
	boot  string // /proc/sys/kernel/random/boot_id
	pidns uint64 // inode of its pid namespace
	keep  bool   // the run was asked to keep the directory
}

// me is this process as an owner.
func me() (owner, error) {
	o := owner{pid: os.Getpid()}
	var err error
	if o.start, err = startTime(o.pid); err != nil {
		return o, err
	}
	if o.boot, err = bootID(); err != nil {
		return o, err
	}
	o.pidns, err = pidNS()
	return o, err
}

func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b)), err
}

func pidNS() (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// gone reports whether o is provably no longer running: it ran in an
// earlier boot, or its pid is free or held by a process that started at
// another time. An owner in another pid namespace, or one this process
// cannot look at, may run.
func (o owner) gone() bool {
	boot, err := bootID()
	if err != nil || o.boot == "" {
		return false
	}
	if boot != o.boot {
		return true
	}
	ns, err := pidNS()
	if err != nil || ns != o.pidns {
		return false
	}
	t, err := startTime(o.pid)
	if err != nil {
		return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH)
	}
	return t != o.start
}

func (o owner) String() string { return "pid " + strconv.Itoa(o.pid) }

func (o owner) record() []byte {
	k := 0
	if o.keep {
		k = 1
	}
	return fmt.Appendf(nil, "%s\npid %d\nstart %d\nboot %s\npidns %d\nkeep %d\n", ownerHead, o.pid, o.start, o.boot, o.pidns, k)
}

func parseOwner(b []byte) (owner, bool) {
	var o owner
	var k int
	_, err := fmt.Sscanf(string(b), "crashsim run directory\npid %d\nstart %d\nboot %s\npidns %d\nkeep %d\n", &o.pid, &o.start, &o.boot, &o.pidns, &k)
	o.keep = k == 1
	// Exactly as record writes it, nothing more or less.
	if err != nil || o.pid <= 0 || !bytes.Equal(o.record(), b) {
		return owner{}, false
	}
	return o, true
}

// OwnDir records in dir, a directory this process has just made for its
// run, that it made it: once this process is gone, a later run's
// SweepDirs undoes what is mounted in dir and removes it. With keep (the
// run was asked to keep dir), the later run undoes the mounts and leaves
// dir. Call it right after the directory is made, before anything is
// mounted in it.
func OwnDir(dir string, keep bool) error {
	o, err := me()
	if err != nil {
		return fmt.Errorf("cannot mark %s as this run's: %w", dir, err)
	}
	o.keep = keep
	fd, err := unix.Open(filepath.Join(dir, ownerFile), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("cannot mark %s as this run's: %w", dir, err)
	}
	f := os.NewFile(uintptr(fd), ownerFile)
	_, err = f.Write(o.record())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot mark %s as this run's: %w", dir, err)
	}
	return nil
}

// Disown removes dir's record: the run ended and keeps dir (--keep), which
// is the user's from now on and never swept.
func Disown(dir string) error {
	err := os.Remove(filepath.Join(dir, ownerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// FindDirs lists the directories below parent whose name starts with
// prefix and whose record names an owner that is gone. It changes
// nothing (crashsim doctor).
func FindDirs(parent, prefix string) []Leftover {
	var out []Leftover
	eachOwnedDir(parent, prefix, func(pfd int, name string, o owner) {
		out = append(out, Leftover{Path: filepath.Join(parent, name), Owner: o.pid})
	})
	return out
}

// SweepDirs undoes what runs that are gone left below parent, in the
// directories whose name starts with prefix: it unmounts what is mounted
// in such a directory (a FUSE mount's connection aborted first, the mount
// itself unmounted last), detaches the loop devices whose backing file is
// in it, and removes it (or, for a run that was asked to keep it, removes
// only its record). Each thing it did is said through say, in words.
// Only the directories SweepDirs can prove a run that is gone made are
// touched: a real directory (never a link) of this user, holding a
// regular file ownerFile of this user (opened without following links)
// whose owner is gone.
func SweepDirs(parent, prefix string, say func(string)) {
	if real, err := filepath.EvalSymlinks(parent); err == nil {
		parent = real
	}
	eachOwnedDir(parent, prefix, func(pfd int, name string, o owner) {
		sweepDir(pfd, parent, name, o, say)
	})
}

// eachOwnedDir calls fn for every directory below parent named prefix...
// whose owner is gone, with an fd open on parent.
func eachOwnedDir(parent, prefix string, fn func(pfd int, name string, o owner)) {
	pfd, err := unix.Open(parent, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(pfd)
	f, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", pfd))
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	sort.Strings(names)
	for _, name := range names {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if o, ok := readOwner(pfd, name); ok && o.gone() {
			fn(pfd, name, o)
		}
	}
}

// readOwner reads the record of directory name below pfd, when name is a
// directory of this user (not a link) holding a record of this user.
func readOwner(pfd int, name string) (owner, bool) {
	uid := uint32(os.Geteuid())
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != uid {
		return owner{}, false
	}
	dfd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return owner{}, false
	}
	defer unix.Close(dfd)
	var dst unix.Stat_t
	if err := unix.Fstat(dfd, &dst); err != nil || dst.Ino != st.Ino || dst.Dev != st.Dev {
		return owner{}, false
	}
	mfd, err := unix.Openat(dfd, ownerFile, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return owner{}, false
	}
	defer unix.Close(mfd)
	var mst unix.Stat_t
	if err := unix.Fstat(mfd, &mst); err != nil || mst.Mode&unix.S_IFMT != unix.S_IFREG || mst.Uid != uid || mst.Size > 512 {
		return owner{}, false
	}
	buf := make([]byte, 513)
	n, err := unix.Read(mfd, buf)
	if err != nil || n < 0 {
		return owner{}, false
	}
	return parseOwner(buf[:n])
}

// sweepDir undoes one directory of an owner that is gone, as the
// owner's watchdog would have (undoFUSE), and removes it.
func sweepDir(pfd int, parent, name string, o owner, say func(string)) {
	dir := filepath.Join(parent, name)
	var undone []string
	fuse, other := mountsBelow(dir)
	devs := loopsBelow(dir)
	undoFUSE(fuse, other, dir)
	for _, m := range other {
		undone = append(undone, "unmounted "+m)
	}
	for _, d := range devs {
		undone = append(undone, "detached "+d)
	}
	for _, m := range fuse {
		undone = append(undone, "unmounted "+m)
	}
	what := "a crashsim run that is gone (" + o.String() + ")"
	if fuse, other := mountsBelow(dir); len(fuse)+len(other) > 0 {
		say(fmt.Sprintf("left %s, made by %s: %s still mounted in it", dir, what, strings.Join(append(fuse, other...), ", ")))
		return
	}
	if o.keep {
		msg := "kept " + dir + " (the run was asked to keep it)"
		if fd := openDir(pfd, name); fd >= 0 {
			if err := unix.Unlinkat(fd, ownerFile, 0); err != nil {
				msg += fmt.Sprintf(", but could not remove its record: %v", err)
			}
			unix.Close(fd)
		}
		undone = append(undone, msg)
	} else if err := removeDir(pfd, name); errors.Is(err, unix.ENOENT) && len(undone) == 0 {
		return // another run swept it meanwhile
	} else if err != nil {
		undone = append(undone, fmt.Sprintf("could not remove %s: %v", dir, err))
	} else {
		undone = append(undone, "removed "+dir)
	}
	say(fmt.Sprintf("swept what %s left: %s", what, strings.Join(undone, "; ")))
}

// openDir opens directory name below pfd without following a link; -1 on
// failure.
func openDir(pfd int, name string) int {
	fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// mountsBelow lists the mount points below dir, FUSE ones apart, deepest
// first.
func mountsBelow(dir string) (fuse, other []string) {
	mounts, _ := readMountinfo()
	for _, m := range mounts {
		if !strings.HasPrefix(m.dir, dir+"/") {
			continue
		}
		if m.fstype == "fuse" || strings.HasPrefix(m.fstype, "fuse.") {
			fuse = append(fuse, m.dir)
		} else {
			other = append(other, m.dir)
		}
	}
	deepest := func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") }
	slices.SortStableFunc(fuse, deepest)
	slices.SortStableFunc(other, deepest)
	return slices.Compact(fuse), slices.Compact(other)
}

// loopsBelow lists the loop devices whose backing file is below dir.
func loopsBelow(dir string) []string {
	files, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		backing := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), " (deleted)")
		if err == nil && strings.HasPrefix(backing, dir+"/") {
			out = append(out, "/dev/"+filepath.Base(filepath.Dir(filepath.Dir(f))))
		}
	}
	return out
}

// removeDir removes directory name below pfd and everything in it,
// through file descriptors: no link is followed, and no other filesystem
// (a mount below it that appeared meanwhile) is entered.
func removeDir(pfd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if err := emptyDir(pfd, name, st.Dev, 0); err != nil {
		return err
	}
	return unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR)
}

func emptyDir(pfd int, name string, dev uint64, depth int) error {
	if depth > 256 {
		return errors.New("nested too deep")
	}
	fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Dev != dev {
		return fmt.Errorf("%s is on another filesystem", name)
	}
	var errs []error
	for {
		names, err := f.Readdirnames(-1)
		if err != nil || len(names) == 0 {
			break
		}
		for _, n := range names {
			var est unix.Stat_t
			if err := unix.Fstatat(fd, n, &est, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				if !errors.Is(err, unix.ENOENT) {
					errs = append(errs, err)
				}
				continue
			}
			if est.Mode&unix.S_IFMT == unix.S_IFDIR {
				if err := emptyDir(fd, n, dev, depth+1); err != nil {
					errs = append(errs, err)
					continue
				}
				if err := unix.Unlinkat(fd, n, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
					errs = append(errs, err)
				}
			} else if err := unix.Unlinkat(fd, n, 0); err != nil && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			break
		}
		if _, err := f.Seek(0, 0); err != nil {
			break
		}
	}
	return errors.Join(errs...)
}

// groupName is the name NewGroup gives a cgroup of this process's:
// crashsim-PID-START-PIDNS-RANDOM, so that SweepGroups can tell when its
// maker is gone. Without what that takes, the old crashsim-RANDOM, which
// no sweep touches.
func groupName(random string) string {
	o, err := me()
	if err != nil {
		return "crashsim-" + random
	}
	return fmt.Sprintf("crashsim-%d-%d-%d-%s", o.pid, o.start, o.pidns, random)
}

// groupOwner reads a cgroup's name as groupName wrote it.
func groupOwner(name string) (owner, bool) {
	f := strings.Split(name, "-")
	if len(f) != 5 || f[0] != "crashsim" {
		return owner{}, false
	}
	var o owner
	var err1, err2, err3 error
	o.pid, err1 = strconv.Atoi(f[1])
	o.start, err2 = strconv.ParseUint(f[2], 10, 64)
	o.pidns, err3 = strconv.ParseUint(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || o.pid <= 0 || len(f[4]) != 16 {
		return owner{}, false
	}
	// A cgroup does not outlive a boot: its maker ran in this one.
	o.boot, _ = bootID()
	return o, true
}

// FindGroups lists the cgroups beside this process's own that a run that
// is gone made (NewGroup). It changes nothing.
func FindGroups() []Leftover {
	var out []Leftover
	eachDeadGroup(func(dir string, o owner) { out = append(out, Leftover{Path: dir, Owner: o.pid}) })
	return out
}

// SweepGroups kills what is left in the cgroups a run that is gone made
// below this process's cgroup, and removes them, saying so through say.
// A run makes its groups below its own cgroup, so a run started in
// another cgroup (another login session's) is not found.
func SweepGroups(say func(string)) {
	eachDeadGroup(func(dir string, o owner) {
		g := &Group{Dir: dir}
		killed := g.Kill()
		msg := fmt.Sprintf("swept what a crashsim run that is gone (%s) left: removed its cgroup %s", o, dir)
		if len(killed) > 0 {
			var ps []string
			for _, p := range killed {
				ps = append(ps, p.String())
			}
			msg += ", after killing the processes still in it: " + strings.Join(ps, ", ")
		}
		if err := removeGroup(dir); err != nil {
			msg = fmt.Sprintf("could not remove the cgroup %s of a crashsim run that is gone (%s): %v", dir, o, err)
		}
		say(msg)
	})
}

func eachDeadGroup(fn func(dir string, o owner)) {
	parent, err := ownCgroup()
	if err != nil {
		return
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	uid := uint32(os.Geteuid())
	for _, e := range ents {
		o, ok := groupOwner(e.Name())
		var st unix.Stat_t
		if !ok || unix.Lstat(filepath.Join(parent, e.Name()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != uid {
			continue // not a cgroup this user made
		}
		if o.gone() {
			fn(filepath.Join(parent, e.Name()), o)
		}
	}
}
