package iobench

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// MarkXattr names the extended attribute iobench sets on every file it
// writes, so that a later run can tell its own file from a user's: iobench
// overwrites a file at FILE only when it carries the mark, or with --force.
//
// A mark in the file's bytes (a header) would change what is timed: the
// stream modes write from --offset, O_DIRECT wants whole aligned blocks,
// and --overwrite reads pages back. An xattr costs one fsetxattr, off the
// clock. Where the filesystem refuses user xattrs (ENOTSUP: some FUSE
// filesystems, NFSv3, tmpfs before Linux 6.6), iobench says it could not
// mark the file, and a later run over it needs --force: the fallback asks
// too often, it never overwrites.
const MarkXattr = "user.crashsim.iobench"

// target is what claim found at FILE before the run.
type target struct {
	existed bool // something was at FILE
	// ours: FILE is the run's to remove if the run fails, because the run
	// made it or an earlier run did (it carries the mark). A file written
	// only because of --force stays, whatever the run left in it.
	ours bool
}

// claim says whether path may be written: it is absent, or a regular file
// iobench marked, or a regular file and force is set. It only looks
// (nothing is created) and returns a *UsageError otherwise.
func claim(path string, force bool) (target, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target{ours: true}, nil
	case err != nil:
		return target{}, nil // the open names the problem
	case fi.Mode()&fs.ModeSymlink != 0:
		return target{existed: true}, usagef("%s is a symbolic link: iobench never writes through one; choose another FILE", shown(path))
	case !fi.Mode().IsRegular():
		return target{existed: true}, notRegular(path, fi.Mode())
	}
	if v, err := getMark(path); err == nil && v != "" {
		return target{existed: true, ours: true}, nil
	}
	if !force {
		return target{existed: true}, usagef("%s exists and was not written by iobench (no %s mark), so a run would overwrite it: choose another FILE, remove it, or pass --force", shown(path), MarkXattr)
	}
	return target{existed: true}, nil
}

// notRegular refuses a FILE that is not a regular file, --force or not:
// the workloads truncate, rename over and mark FILE, which would replace
// a device's node or write over what the device holds, and opening a
// fifo for writing waits for a reader that may never come.
func notRegular(path string, mode fs.FileMode) error {
	switch {
	case mode.IsDir():
		return usagef("%s is a directory: give the file to write (the create modes make FILE.d themselves)", shown(path))
	case mode&fs.ModeDevice != 0 && mode&fs.ModeCharDevice == 0:
		return usagef("%s is a block device: iobench writes regular files only, and a run would overwrite what the device holds; to time the device, make a filesystem on it and give a file there", shown(path))
	}
	kind := "not a regular file"
	switch {
	case mode&fs.ModeCharDevice != 0:
		kind = "a character device"
	case mode&fs.ModeNamedPipe != 0:
		kind = "a fifo"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return usagef("%s is %s: iobench writes regular files only; choose another FILE", shown(path), kind)
}

// claimDir checks the create modes' directory before anything is made: a
// symbolic link (clearing it would unlink files elsewhere), anything but
// a directory, or a directory holding anything but what an earlier run
// left there is refused with a *UsageError.
func claimDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return nil // the mkdir names the problem
	case fi.Mode()&fs.ModeSymlink != 0:
		return usagef("%s is a symbolic link: iobench never writes through one; choose another FILE", shown(dir))
	case !fi.IsDir():
		return usagef("%s exists and is not a directory: the create modes make their files in FILE.d; choose another FILE", shown(dir))
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil // the run names the problem
	}
	defer f.Close()
	for {
		// In batches: a directory can hold millions of names.
		entries, err := f.ReadDir(1024)
		for _, e := range entries {
			if !e.Type().IsRegular() || !createdName.MatchString(e.Name()) {
				return usagef("%s holds %s, which iobench did not make: remove it or choose another FILE", shown(dir), shown(e.Name()))
			}
		}
		if err != nil {
			return nil
		}
	}
}

func getMark(path string) (string, error) {
	buf := make([]byte, 64)
	n, err := unix.Lgetxattr(path, MarkXattr, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// mark sets the mark on fd, the open file at path, warning when the
// filesystem cannot hold it.
func (r *runner) mark(fd int, path string) {
	if err := unix.Fsetxattr(fd, MarkXattr, []byte(r.cfg.Mode), 0); err != nil {
		r.warnf("cannot mark %s as iobench's (%s: %v): a later run over it needs --force", shown(path), MarkXattr, err)
	}
}

// markPath is mark for a file that is not open.
func (r *runner) markPath(path string) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return // the run did not leave it
	}
	defer unix.Close(fd)
	r.mark(fd, path)
}

// tempName is the temp file of replace-atomic: beside path, with a random
// part fixed for the run, so that no one can plant a link at it in
// advance. It is opened with O_EXCL|O_NOFOLLOW each time, so one planted
// during the run is an error, never followed.
func tempName(path string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".iobench-"+hex.EncodeToString(b[:])), nil
}
