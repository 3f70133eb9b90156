package explore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"golang.org/x/sys/unix"
)

// DataError says a state needs bytes the trace does not hold.
type DataError struct {
	Line    int
	Syscall string
	Partial bool // strace -s cut the string; else the trace never shows the bytes
	// Copied says, for a copy made in the kernel, why its bytes could
	// not be taken from the initial snapshot either.
	Copied string
}

func (e *DataError) Error() string {
	if e.Partial {
		return fmt.Sprintf("line %d: the trace holds only part of this write (strace -s): record with a larger -s, or let explore run the program (crashsim explore --checker CMD -- PROGRAM records every byte; crashsim trace records none)", e.Line)
	}
	if e.Copied != "" {
		return fmt.Sprintf("line %d: the trace does not show the bytes this %s wrote, and %s, so no state with them can be built", e.Line, e.Syscall, e.Copied)
	}
	return fmt.Sprintf("line %d: the trace does not show the bytes this %s wrote, so no state with them can be built", e.Line, e.Syscall)
}

// applyOp applies what of op persisted to f: bytes of a write (all of it,
// or the first bytes of a torn one), or only the size it gave the file
// (sizeOnly). For a size change, bytes > 0 means it persisted.
func applyOp(f *os.File, data *dataCache, op model.DataOp, bytes int64, sizeOnly bool) error {
	if bytes <= 0 && !sizeOnly {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	cur := fi.Size()
	off := op.Off
	if off < 0 {
		// An O_APPEND write at a size the trace did not show: at the end
		// of the file as it is then.
		off = cur
	}
	switch op.Kind {
	case model.DataTruncate:
		return f.Truncate(op.Size)
	case model.DataExtend:
		if op.Size > cur {
			return f.Truncate(op.Size)
		}
		return nil
	case model.DataZero:
		end := off + bytes
		if op.Size >= 0 {
			end = min(end, max(cur, op.Size))
		}
		if end <= off {
			return nil
		}
		return zeroRange(f, off, end, cur)
	}
	// A write.
	if sizeOnly {
		if end := off + op.Len; end > cur {
			return f.Truncate(end)
		}
		return nil
	}
	w := io.NewOffsetWriter(f, off)
	if src := op.Copy(); src != nil {
		// A copy made in the kernel: the bytes are the source's, when it
		// held what it held before the trace; a torn copy, the first ones.
		return data.copyFrom(w, op, src, bytes)
	}
	left := bytes
	for _, c := range op.Chunks() {
		if left <= 0 {
			break
		}
		need := min(c.Len, left)
		if !c.Ref.Valid() {
			return &DataError{Line: op.Event().Line, Syscall: op.Event().Syscall}
		}
		n, err := data.copy(w, c.Ref, need)
		if err != nil {
			return fmt.Errorf("line %d: %w", op.Event().Line, err)
		}
		if n < need {
			return &DataError{Line: op.Event().Line, Syscall: op.Event().Syscall, Partial: c.Ref.Truncated}
		}
		left -= need
	}
	if left > 0 {
		// The iovec array was cut short: the trace lacks the rest.
		return &DataError{Line: op.Event().Line, Syscall: op.Event().Syscall, Partial: true}
	}
	return nil
}

// zeroRange makes bytes [off, end) of f, now cur bytes long, zeros: a
// punched hole where the filesystem has them and the range lies in the
// file, the file extended by ftruncate past its end (a hole too), zeros
// written a block at a time elsewhere. A range of gigabytes (a trace's
// fallocate) costs neither memory nor the work directory's space.
func zeroRange(f *os.File, off, end, cur int64) error {
	if in := min(end, cur); in > off {
		err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE|unix.FALLOC_FL_PUNCH_HOLE, off, in-off)
		if err != nil {
			zeros := make([]byte, min(in-off, 1<<20))
			for at := off; at < in; at += int64(len(zeros)) {
				if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), in-at)], at); err != nil {
					return err
				}
			}
		}
	}
	if end > cur {
		return f.Truncate(end)
	}
	return nil
}

// wholeBytes is what Persists returns for an op that persisted whole.
func wholeBytes(op model.DataOp) int64 {
	if op.Kind != model.DataWrite && op.Kind != model.DataZero {
		return 1
	}
	return op.Len
}

// dataCache keeps decoded write data in memory: the same write is applied
// to many states, and decoding -xx text costs more than copying bytes.
// The bytes of copies made in the kernel it reads from the initial
// snapshot, the directory initial standing for root, and keeps them too.
type dataCache struct {
	r             *parser.DataReader
	m             map[parser.DataRef][]byte
	copies        map[copyKey][]byte
	size          int64
	root, initial string
}

// copyKey names the bytes a copy read from its source.
type copyKey struct {
	path   string
	off, n int64
}

// Bounds of the cache: strings larger than cacheString are decoded each
// time; past cacheTotal nothing more is kept.
const (
	cacheString = 1 << 20
	cacheTotal  = 64 << 20
)

func newDataCache(root, initial string) *dataCache {
	return &dataCache{r: parser.NewDataReader(), m: map[parser.DataRef][]byte{}, copies: map[copyKey][]byte{}, root: root, initial: initial}
}

func (d *dataCache) close() error { return d.r.Close() }

// copy writes the first limit bytes of the string at ref to w.
func (d *dataCache) copy(w io.Writer, ref parser.DataRef, limit int64) (int64, error) {
	b, ok := d.m[ref]
	if !ok {
		if ref.Len > cacheString || d.size >= cacheTotal {
			return d.r.Copy(w, ref, limit)
		}
		var err error
		if b, err = d.r.Bytes(ref, -1); err != nil {
			return 0, err
		}
		d.m[ref] = b
		d.size += int64(len(b))
	}
	if limit >= 0 {
		b = b[:min(int64(len(b)), limit)]
	}
	n, err := w.Write(b)
	return int64(n), err
}

// copyFrom writes to w the first limit bytes op, a copy made in the
// kernel, copied from src: the initial snapshot's bytes of the source
// file, which the copy read before anything in the trace changed them.
// Else, or when the snapshot lacks them, it says so in a DataError.
func (d *dataCache) copyFrom(w io.Writer, op model.DataOp, src *model.CopySource, limit int64) error {
	ev := op.Event()
	fail := func(why string, args ...any) error {
		return &DataError{Line: ev.Line, Syscall: ev.Syscall, Copied: fmt.Sprintf(why, args...)}
	}
	switch {
	case !src.Unchanged:
		return fail("the trace had changed %s, which it copied them from, before the copy (or cannot tell whether it existed before), so they are not the initial snapshot's", src.Path)
	case src.Off < 0:
		return fail("the trace does not show where in %s the copy began to read", src.Path)
	}
	rel, ok := relPath(d.root, src.Path)
	if !ok || rel == "." {
		return fail("%s, which it copied them from, lies outside the root, which is all the initial snapshot holds", src.Path)
	}
	if d.initial == "" {
		return fail("no initial snapshot was given to take them from (it copied them from %s: pass --initial DIR with the files as they were before the run)", src.Path)
	}
	key := copyKey{src.Path, src.Off, op.Len}
	b, ok := d.copies[key]
	if !ok {
		var err error
		if b, err = readSnapshot(filepath.Join(d.initial, rel), src.Off, op.Len, op.Len <= cacheString && d.size < cacheTotal); err != nil {
			if _, short := err.(*shortSnapshot); short || os.IsNotExist(err) || err == errNotFile {
				return fail("the initial snapshot does not hold %s, which it copied them from, as a file of at least %d bytes (%v)", src.Path, src.Off+op.Len, err)
			}
			return fmt.Errorf("line %d: %s: %w", ev.Line, src.Path, err)
		}
		if b != nil {
			d.copies[key] = b
			d.size += int64(len(b))
		}
	}
	if b == nil {
		// Too large to keep: read again from the snapshot.
		return copySnapshot(w, filepath.Join(d.initial, rel), src.Off, min(limit, op.Len))
	}
	_, err := w.Write(b[:min(int64(len(b)), limit)])
	return err
}

// shortSnapshot says a snapshot file ends before the bytes a copy read.
type shortSnapshot struct{ size int64 }

func (e *shortSnapshot) Error() string { return fmt.Sprintf("it holds %d", e.size) }

var errNotFile = errors.New("not a regular file")

// openSnapshot opens a file of the initial snapshot for reading, never
// through a symlink at its name, and checks that it holds n bytes at off.
func openSnapshot(p string, off, n int64) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, errNotFile
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, errNotFile
	}
	if fi.Size() < off+n {
		f.Close()
		return nil, &shortSnapshot{fi.Size()}
	}
	return f, nil
}

// readSnapshot returns the n bytes at off of the snapshot file p, or,
// when keep is false, nil once it knows the file holds them.
func readSnapshot(p string, off, n int64, keep bool) ([]byte, error) {
	f, err := openSnapshot(p, off, n)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !keep {
		return nil, nil
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// copySnapshot writes the n bytes at off of the snapshot file p to w.
func copySnapshot(w io.Writer, p string, off, n int64) error {
	f, err := openSnapshot(p, off, n)
	if err != nil {
		return err
	}
	defer f.Close()
	got, err := io.Copy(w, io.NewSectionReader(f, off, n))
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	return err
}
