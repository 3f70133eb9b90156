package iobench

import (
	"errors"
	"fmt"
	"io"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openFunc is open(2); tests swap it to make a filesystem refuse O_DIRECT.
type openFunc func(path string, flags int, perm uint32) (int, error)

// openStream opens the stream target. Only EINVAL from an O_DIRECT open is
// the filesystem's documented refusal; every other error, and EINVAL
// without O_DIRECT, is an ordinary I/O error naming the path.
func openStream(open openFunc, path string, direct, truncate bool) (int, error) {
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if truncate {
		flags |= unix.O_TRUNC
	}
	if direct {
		flags |= unix.O_DIRECT
	}
	fd, err := open(path, flags, 0o644)
	if err != nil {
		if direct && errors.Is(err, unix.EINVAL) {
			return -1, ErrDirectUnsupported
		}
		return -1, fmt.Errorf("open %s: %w", path, err)
	}
	return fd, nil
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
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "" // the open that follows will report the real problem
	}
	switch int64(st.Type) {
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.RAMFS_MAGIC:
		return "ramfs"
	}
	return ""
}
