package blocklog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// ImageName is the name of the one file a Server serves.
const ImageName = "image"

// ErrNoFUSE says the machine cannot serve a FUSE filesystem.
var ErrNoFUSE = errors.New("no FUSE")

// Preflight checks that a Server can run here: root and /dev/fuse.
func Preflight() error { return preflight(os.Geteuid(), "/dev/fuse") }

func preflight(euid int, dev string) error {
	if euid != 0 {
		return fmt.Errorf("%w: the block log mounts a FUSE filesystem itself and needs root", ErrNoFUSE)
	}
	f, err := os.OpenFile(dev, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%w: %v (load the fuse module, or give the container /dev/fuse)", ErrNoFUSE, err)
	}
	f.Close()
	return nil
}

// Server serves one image file over FUSE and logs every write, discard and
// flush of it.
type Server struct {
	dir    string
	srv    *fuse.Server
	mu     sync.Mutex // serializes the log and the backing file
	log    *Writer
	back   *os.File
	size   int64
	writes int64
	bytes  int64
	flush  int64
	err    error // the first error of the log; every later request fails
}

// Serve mounts a FUSE filesystem at dir holding one file, ImageName, whose
// bytes are those of backing (which it changes), and logs to a new log at
// logName. Close unmounts.
func Serve(dir, backing, logName string) (*Server, error) {
	back, err := os.OpenFile(backing, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	st, err := back.Stat()
	if err != nil {
		back.Close()
		return nil, err
	}
	w, err := Create(logName)
	if err != nil {
		back.Close()
		return nil, err
	}
	s := &Server{dir: dir, log: w, back: back, size: st.Size()}
	timeout := time.Duration(0) // keep no stale size or entry in the kernel
	opts := &fs.Options{
		MountOptions: fuse.MountOptions{
			AllowOther:  true, // the loop device's worker is not this process
			DirectMount: true,
			FsName:      "crashsim-blocklog",
			Name:        "crashsim",
			MaxWrite:    1 << 20,
		},
		EntryTimeout: &timeout,
		AttrTimeout:  &timeout,
	}
	srv, err := fs.Mount(dir, &rootNode{img: &imageNode{s: s}}, opts)
	if err != nil {
		w.Close()
		back.Close()
		return nil, fmt.Errorf("%w: mount FUSE at %s: %v", ErrNoFUSE, dir, err)
	}
	s.srv = srv
	if err := cloexecFUSE(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// cloexecFUSE marks this process's /dev/fuse descriptors close-on-exec.
// go-fuse opens /dev/fuse without O_CLOEXEC, so every program started
// afterwards (strace, the traced program, mount) would hold the
// connection open: if this process died, the kernel would not abort it,
// and every read of the image would wait for a server that is gone.
func cloexecFUSE() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || target != "/dev/fuse" {
			continue
		}
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err != nil {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
			return fmt.Errorf("blocklog: mark /dev/fuse close-on-exec: %w", err)
		}
	}
	return nil
}

type rootNode struct {
	fs.Inode
	img *imageNode
}

var _ = (fs.NodeOnAdder)((*rootNode)(nil))

func (r *rootNode) OnAdd(ctx context.Context) {
	r.AddChild(ImageName, r.NewPersistentInode(ctx, r.img, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2}), false)
}

// Image is the path of the served image file.
func (s *Server) Image() string { return filepath.Join(s.dir, ImageName) }

// Mark logs crash point id. The caller makes sure that no write it wants
// before the mark is still on its way (the program is frozen).
func (s *Server) Mark(id int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if err := s.log.Append(Record{Kind: Mark, ID: int64(id)}, nil); err != nil {
		s.err = err
		return err
	}
	return nil
}

// Stats says what was logged so far.
func (s *Server) Stats() (writes, bytes, flushes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes, s.bytes, s.flush
}

// Close unmounts the FUSE filesystem (nothing may use the image any more:
// detach the loop device first) and closes the log.
func (s *Server) Close() error {
	var err error
	if s.srv != nil {
		err = s.srv.Unmount()
		if err != nil {
			// A user of the image is left (a loop device that would not
			// detach): do not wait for it, the kernel ends the
			// connection when the mount goes.
			if lerr := unix.Unmount(s.dir, unix.MNT_DETACH); lerr == nil {
				err = nil
			}
		}
		s.srv.Wait()
		s.srv = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log != nil {
		if cerr := s.log.Close(); err == nil {
			err = cerr
		}
		s.log = nil
	}
	if s.back != nil {
		if cerr := s.back.Close(); err == nil {
			err = cerr
		}
		s.back = nil
	}
	return err
}

func (s *Server) write(p []byte, off int64) (uint32, syscall.Errno) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, syscall.EIO
	}
	if _, err := s.back.WriteAt(p, off); err != nil {
		return 0, errnoOf(err)
	}
	if err := s.log.Append(Record{Kind: Write, Off: off, Len: int64(len(p))}, p); err != nil {
		s.err = err
		return 0, syscall.EIO
	}
	s.writes++
	s.bytes += int64(len(p))
	if end := off + int64(len(p)); end > s.size {
		s.size = end
	}
	return uint32(len(p)), 0
}

func (s *Server) fsync() syscall.Errno {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return syscall.EIO
	}
	if err := s.log.Append(Record{Kind: Flush}, nil); err != nil {
		s.err = err
		return syscall.EIO
	}
	// What was logged is readable for a replay while the server runs.
	if err := s.log.Sync(); err != nil {
		s.err = err
		return syscall.EIO
	}
	s.flush++
	return 0
}

func (s *Server) allocate(off, size uint64, mode uint32) syscall.Errno {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return syscall.EIO
	}
	if err := unix.Fallocate(int(s.back.Fd()), mode, int64(off), int64(size)); err != nil {
		return errnoOf(err)
	}
	if mode&(unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_ZERO_RANGE) != 0 {
		if err := s.log.Append(Record{Kind: Discard, Off: int64(off), Len: int64(size)}, nil); err != nil {
			s.err = err
			return syscall.EIO
		}
	}
	if mode&unix.FALLOC_FL_KEEP_SIZE == 0 && int64(off+size) > s.size {
		s.size = int64(off + size)
	}
	return 0
}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}

// imageNode is the served file. Its handles are nil: every operation
// comes to the node.
type imageNode struct {
	fs.Inode
	s *Server
}

var (
	_ = (fs.NodeOpener)((*imageNode)(nil))
	_ = (fs.NodeGetattrer)((*imageNode)(nil))
	_ = (fs.NodeSetattrer)((*imageNode)(nil))
	_ = (fs.NodeReader)((*imageNode)(nil))
	_ = (fs.NodeWriter)((*imageNode)(nil))
	_ = (fs.NodeFsyncer)((*imageNode)(nil))
	_ = (fs.NodeFlusher)((*imageNode)(nil))
	_ = (fs.NodeAllocater)((*imageNode)(nil))
)

func (n *imageNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, 0, 0
}

func (n *imageNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	out.Mode = syscall.S_IFREG | 0o600
	out.Size = uint64(n.s.size)
	out.Blocks = (out.Size + 511) / 512
	return 0
}

func (n *imageNode) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if _, ok := in.GetSize(); ok {
		return syscall.EPERM // a device does not change size
	}
	return n.Getattr(ctx, f, out)
}

func (n *imageNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n.s.mu.Lock()
	defer n.s.mu.Unlock()
	k, err := n.s.back.ReadAt(dest, off)
	if err != nil && k == 0 && !errors.Is(err, os.ErrClosed) {
		if off >= n.s.size {
			return fuse.ReadResultData(nil), 0
		}
	}
	return fuse.ReadResultData(dest[:k]), 0
}

func (n *imageNode) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	return n.s.write(data, off)
}

func (n *imageNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	return n.s.fsync()
}

// Flush is close(2), not a cache flush: nothing to log.
func (n *imageNode) Flush(ctx context.Context, f fs.FileHandle) syscall.Errno { return 0 }

func (n *imageNode) Allocate(ctx context.Context, f fs.FileHandle, off, size uint64, mode uint32) syscall.Errno {
	return n.s.allocate(off, size, mode)
}
