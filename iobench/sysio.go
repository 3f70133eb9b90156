package iobench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openFunc is open(2); tests swap it to make a filesystem refuse O_DIRECT.
type openFunc func(path string, flags int, perm uint32) (int, error)

// openStream opens the stream target. Only EINVAL from an O_DIRECT open is
// the filesystem's documented refusal; every other error, and EINVAL
// without O_DIRECT, is an ordinary I/O error naming the path.
func openStream(open openFunc, path string, direct, truncate, excl bool) (int, error) {
	flags := unix.O_WRONLY | unix.O_CREAT
	if truncate {
		flags |= unix.O_TRUNC
	}
	if excl {
		flags |= unix.O_EXCL
	}
	if direct {
		flags |= unix.O_DIRECT
	}
	fd, err := openRegular(open, path, flags)
	if err != nil {
		var ue *UsageError
		switch {
		case errors.As(err, &ue):
			return -1, err
		case direct && errors.Is(err, unix.EINVAL):
			return -1, ErrDirectUnsupported
		}
		return -1, fmt.Errorf("open %s: %w", shown(path), err)
	}
	return fd, nil
}

// openRegular opens FILE for writing without ever blocking and without
// following a link: with O_NONBLOCK, a fifo put at FILE after claim looked
// fails the open (ENXIO) instead of waiting for a reader, and whatever the
// open found that is not a regular file is refused (a *UsageError). The
// flag is cleared again before the workload writes.
func openRegular(open openFunc, path string, flags int) (int, error) {
	fd, err := open(path, flags|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, notRegular(path, fileType(st.Mode))
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// fileType is the type bits of a stat mode as an fs.FileMode.
func fileType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return 0
}

// writeAll writes all of p to fd.
func writeAll(fd int, p []byte) error {
	return writeFull(func(b []byte) (int, error) { return rawWrite(fd, b) }, p)
}

// rawWrite is write(2) without the Go runtime's blocking-syscall
// bookkeeping. Made as an ordinary syscall, a 64 KiB O_DIRECT write of about
// 75 µs is long enough for sysmon to take the P away and for the thread to
// win it back afterwards, which cost iobench about 7% of its direct-mode
// throughput next to fio on the same disk (scripts/iobench-vs-fio.sh). The
// price is that a stop-the-world has to wait for the write in flight; the
// timed loops allocate nothing, so none falls due there.
func rawWrite(fd int, p []byte) (int, error) {
	n, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// rawSync is a sync call made the same way, for the same reason: an
// fdatasync of a few 4 KiB blocks takes 50-100 µs on a virtio disk, and as
// an ordinary syscall each one had sysmon hand the P to another thread and
// back. That is a futex wake and a sysmon nanosleep or two per fdatasync
// (1024 fdatasyncs: 182 futex and 701 nanosleep calls; raw: 27 and 79),
// runtime noise a C program like fio does not have, and it made a traced
// run of iobench stop twice as often as its workload needs. The price: a
// sync can take milliseconds on a slow device, and a garbage collection
// that falls due meanwhile waits for it to return.
func rawSync(nr uintptr) func(int) error {
	return func(fd int) error {
		if _, _, errno := unix.RawSyscall(nr, uintptr(fd), 0, 0); errno != 0 {
			return errno
		}
		return nil
	}
}

// writeFull calls write until all of p is written, going on after short
// writes and retrying writes a signal interrupted before they wrote anything.
func writeFull(write func([]byte) (int, error), p []byte) error {
	for len(p) > 0 {
		n, err := write(p)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return io.ErrShortWrite
		}
		p = p[n:]
	}
	return nil
}

// retryEINTR runs a sync call until a signal does not interrupt it.
func retryEINTR(call func(int) error, fd int) error {
	for {
		err := call(fd)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

var (
	rawFdatasync = rawSync(unix.SYS_FDATASYNC)
	rawFsync     = rawSync(unix.SYS_FSYNC)
)

func fdatasync(fd int) error { return retryEINTR(rawFdatasync, fd) }
func fsync(fd int) error     { return retryEINTR(rawFsync, fd) }

// since is monotonic elapsed time, never zero, so rates stay finite even
// when a tiny run on tmpfs rounds to nothing.
func since(t0 time.Time) time.Duration { return clamp(time.Since(t0)) }

func clamp(d time.Duration) time.Duration {
	if d < time.Nanosecond {
		return time.Nanosecond
	}
	return d
}

// memoryFS names the filesystem holding dir when it has no device behind
// it, or returns "".
func memoryFS(dir string) string {
	// statfs answers for a device node too, with the filesystem its node
	// sits on (/dev: devtmpfs, which says TMPFS_MAGIC): only a directory
	// can hold the file.
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "" // the open that follows will report the real problem
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return ""
	}
	switch int64(st.Type) {
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.RAMFS_MAGIC:
		return "ramfs"
	}
	return ""
}
