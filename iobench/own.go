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

// claim says whether path may be written: it is absent, or a regular file
// iobench marked, or force is set. It only looks (nothing is created) and
// returns a *UsageError otherwise; existed says whether path was there.
func claim(path string, force bool) (existed bool, err error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, nil // the open names the problem
	case fi.Mode()&fs.ModeSymlink != 0:
		return true, usagef("%s is a symbolic link: iobench never writes through one; choose another FILE", path)
	case force:
		return true, nil
	case !fi.Mode().IsRegular():
		if fi.IsDir() {
			return true, nil // the open fails with "is a directory"
		}
		return true, usagef("%s exists and is not a regular file: pass --force to write it anyway", path)
	}
	if v, err := getMark(path); err != nil || v == "" {
		return true, usagef("%s exists and was not written by iobench (no %s mark), so a run would overwrite it: choose another FILE, remove it, or pass --force", path, MarkXattr)
	}
	return true, nil
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
		r.warnf("cannot mark %s as iobench's (%s: %v): a later run over it needs --force", path, MarkXattr, err)
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

// refuseLink refuses a symbolic link at dir, the create modes' directory:
// clearing it would unlink files in another directory.
func refuseLink(dir string) error {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return usagef("%s is a symbolic link: iobench never writes through one; choose another FILE", dir)
	}
	return nil
}
