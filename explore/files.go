package explore

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// File copies and hashes with plain system calls: an os.File costs
// fcntl and epoll calls of its own on every open (about four more calls a
// file), and explore copies and hashes files for every state.

// openRead opens a file to read.
func openRead(p string) (int, error) {
	for {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, pathErr("open", p, err)
		}
	}
}

// openNew creates a file that must not exist, not following a symlink.
func openNew(p string) (int, error) {
	for {
		fd, err := unix.Open(p, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err != unix.EINTR {
			return fd, pathErr("open", p, err)
		}
	}
}

func pathErr(op, p string, err error) error {
	if err == nil {
		return nil
	}
	return &os.PathError{Op: op, Path: p, Err: err}
}

// copyFD copies in, from its start, to out, a new empty file, in the
// kernel where it can. Only the data is copied, found with SEEK_DATA and
// SEEK_HOLE, and out is given in's size: a hole stays a hole. Copied
// whole, a file a trace wrote 10 GB into (one pwrite at that offset) took
// 10 GB of the work directory's memory for each state.
func copyFD(out, in int) error {
	var st unix.Stat_t
	if err := unix.Fstat(in, &st); err != nil {
		return err
	}
	for off := int64(0); off < st.Size; {
		data, err := unix.Seek(in, off, unix.SEEK_DATA)
		if err == unix.ENXIO {
			break // a hole to the end
		}
		if err != nil {
			// No SEEK_DATA here: all of it is data.
			data = off
		}
		end := st.Size
		if err == nil {
			if hole, err := unix.Seek(in, data, unix.SEEK_HOLE); err == nil {
				end = hole
			}
		}
		if err := copyRange(out, in, data, end); err != nil {
			return err
		}
		off = end
	}
	return unix.Ftruncate(out, st.Size)
}

// copyRange copies bytes [from, to) of in to the same place in out.
func copyRange(out, in int, from, to int64) error {
	for from < to {
		roff, woff := from, from
		n, err := unix.CopyFileRange(in, &roff, out, &woff, int(min(to-from, 1<<30)), 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			// Across filesystems on an older kernel, and the like.
			return copyRangeRead(out, in, from, to)
		}
		from += int64(n)
	}
	return nil
}

// copyRangeRead is copyRange through a buffer.
func copyRangeRead(out, in int, from, to int64) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	for from < to {
		n, err := unix.Pread(in, buf[:min(int64(len(buf)), to-from)], from)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return nil // in shrank: what is left is given by its size
		}
		if err := pwriteAll(out, buf[:n], from); err != nil {
			return err
		}
		from += int64(n)
	}
	return nil
}

// copyFDRead copies in to out (when not -1, a new empty file) through a
// buffer, feeding h (when not nil) what it copies. A buffer of zeros is
// not written but left a hole, the size set at the end: a sparse file
// stays sparse.
func copyFDRead(out, in int, h io.Writer) error {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var at int64
	for {
		n, err := unix.Read(in, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			if out >= 0 {
				return unix.Ftruncate(out, at)
			}
			return nil
		}
		if h != nil {
			h.Write(buf[:n])
		}
		if out < 0 || bytes.Equal(buf[:n], zeroBlock[:n]) {
			at += int64(n)
			continue
		}
		if err := pwriteAll(out, buf[:n], at); err != nil {
			return err
		}
		at += int64(n)
	}
}

// pwriteAll writes all of b to fd at offset at.
func pwriteAll(fd int, b []byte, at int64) error {
	for len(b) > 0 {
		k, err := unix.Pwrite(fd, b, at)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b, at = b[k:], at+int64(k)
	}
	return nil
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// copyFile copies a regular file into a new file to (never through a
// symlink at to).
func copyFile(from, to string) error {
	fd, err := copyOpen(from, to)
	if err != nil {
		return err
	}
	return pathErr("close", to, unix.Close(fd))
}

// copyOpen copies a regular file into a new file to, and returns it open
// for reading and writing.
func copyOpen(from, to string) (int, error) {
	in, err := openRead(from)
	if err != nil {
		return -1, err
	}
	defer unix.Close(in)
	out, err := openNew(to)
	if err != nil {
		return -1, err
	}
	if err := copyFD(out, in); err != nil {
		unix.Close(out)
		return -1, pathErr("copy", to, err)
	}
	return out, nil
}

// createNew creates a file that must not exist, not following a symlink.
func createNew(name string) (*os.File, error) {
	fd, err := openNew(name)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// copyHashing copies a regular file into a new file to and returns the
// sum of its bytes (contentHash).
func copyHashing(from, to string) ([32]byte, error) {
	var sum [32]byte
	in, err := openRead(from)
	if err != nil {
		return sum, err
	}
	defer unix.Close(in)
	out, err := openNew(to)
	if err != nil {
		return sum, err
	}
	h := newContentHash()
	if err := copyFDRead(out, in, h); err != nil {
		unix.Close(out)
		return sum, pathErr("copy", to, err)
	}
	if err := unix.Close(out); err != nil {
		return sum, pathErr("close", to, err)
	}
	sum = h.sum()
	return sum, nil
}

func hashFile(p string) ([32]byte, error) {
	fd, err := openRead(p)
	if err != nil {
		return [32]byte{}, err
	}
	defer unix.Close(fd)
	h := newContentHash()
	if err := copyFDRead(-1, fd, h); err != nil {
		return [32]byte{}, pathErr("read", p, err)
	}
	return h.sum(), nil
}

// contentHash is the sum by which explore tells files' contents apart: a
// sha256 over the file in blocks of contentBlock bytes, each full block
// all zeros given as one tag byte and any other as a tag byte and its
// bytes, then the last, partial block as a tag, its length and its bytes.
// The blocks have a fixed size, so the tags say the content exactly (two
// files have one sum only if they are the same bytes, as far as sha256
// goes), and a file preallocated to tens of megabytes of zeros (a
// database's write-ahead log) costs a scan for zeros, not a hash of every
// byte at every crash state.
type contentHash struct {
	h   hash.Hash
	buf []byte // the block being filled
}

const contentBlock = 64 << 10

// Tags of contentHash's blocks.
const (
	tagZeros   = 'z'
	tagData    = 'd'
	tagPartial = 'p'
)

var zeroBlock = make([]byte, contentBlock)

// contentHashes keeps the hashes sum has ended, for newContentHash: a
// state's files are mostly small, and a new block buffer each was half
// the time explore took to build a state of small files.
var contentHashes = sync.Pool{New: func() any {
	return &contentHash{h: sha256.New(), buf: make([]byte, 0, contentBlock)}
}}

func newContentHash() *contentHash {
	c := contentHashes.Get().(*contentHash)
	c.h.Reset()
	c.buf = c.buf[:0]
	return c
}

func (c *contentHash) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(c.buf) == 0 && len(p) >= contentBlock {
			c.block(p[:contentBlock])
			p = p[contentBlock:]
			continue
		}
		k := copy(c.buf[len(c.buf):contentBlock], p)
		c.buf = c.buf[:len(c.buf)+k]
		p = p[k:]
		if len(c.buf) == contentBlock {
			c.block(c.buf)
			c.buf = c.buf[:0]
		}
	}
	return n, nil
}

// block adds one full block.
func (c *contentHash) block(b []byte) {
	if bytes.Equal(b, zeroBlock) {
		c.h.Write([]byte{tagZeros})
		return
	}
	c.h.Write([]byte{tagData})
	c.h.Write(b)
}

// sum ends the content: the sum of what was written. c is then given
// back for another content: use it no more.
func (c *contentHash) sum() (out [32]byte) {
	var tail [9]byte
	tail[0] = tagPartial
	binary.LittleEndian.PutUint64(tail[1:], uint64(len(c.buf)))
	c.h.Write(tail[:])
	c.h.Write(c.buf)
	c.h.Sum(out[:0])
	contentHashes.Put(c)
	return out
}
