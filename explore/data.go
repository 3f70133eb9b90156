package explore

import (
	"fmt"
	"io"
	"os"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// DataError says a state needs bytes the trace does not hold.
type DataError struct {
	Line    int
	Syscall string
	Partial bool // strace -s cut the string; else the trace never shows the bytes
}

func (e *DataError) Error() string {
	if e.Partial {
		return fmt.Sprintf("line %d: the trace holds only part of this write (strace -s): record with a larger -s, or let explore run the program (crashsim explore --checker CMD -- PROGRAM records every byte; crashsim trace records none)", e.Line)
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
		_, err := f.WriteAt(make([]byte, end-off), off)
		return err
	}
	// A write.
	if sizeOnly {
		if end := off + op.Len; end > cur {
			return f.Truncate(end)
		}
		return nil
	}
	w := io.NewOffsetWriter(f, off)
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

// wholeBytes is what Persists returns for an op that persisted whole.
func wholeBytes(op model.DataOp) int64 {
	if op.Kind != model.DataWrite && op.Kind != model.DataZero {
		return 1
	}
	return op.Len
}

// dataCache keeps decoded write data in memory: the same write is applied
// to many states, and decoding -xx text costs more than copying bytes.
type dataCache struct {
	r    *parser.DataReader
	m    map[parser.DataRef][]byte
	size int64
}

// Bounds of the cache: strings larger than cacheString are decoded each
// time; past cacheTotal nothing more is kept.
const (
	cacheString = 1 << 20
	cacheTotal  = 64 << 20
)

func newDataCache() *dataCache {
	return &dataCache{r: parser.NewDataReader(), m: map[parser.DataRef][]byte{}}
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
