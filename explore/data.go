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
		return fmt.Sprintf("line %d: the trace holds only part of this write (strace -s): record with a larger -s (crashsim trace does)", e.Line)
	}
	return fmt.Sprintf("line %d: the trace does not show the bytes this %s wrote, so no state with them can be built", e.Line, e.Syscall)
}

// applyOp applies what of op persisted to f: bytes of a write (all of it,
// or the first bytes of a torn one), or only the size it gave the file
// (sizeOnly). For a size change, bytes > 0 means it persisted.
func applyOp(f *os.File, data *parser.DataReader, op model.DataOp, bytes int64, sizeOnly bool) error {
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
	for _, c := range op.Chunks {
		if left <= 0 {
			break
		}
		need := min(c.Len, left)
		if !c.Ref.Valid() {
			return &DataError{Line: op.Event.Line, Syscall: op.Event.Syscall}
		}
		n, err := data.Copy(w, c.Ref, need)
		if err != nil {
			return fmt.Errorf("line %d: %w", op.Event.Line, err)
		}
		if n < need {
			return &DataError{Line: op.Event.Line, Syscall: op.Event.Syscall, Partial: c.Ref.Truncated}
		}
		left -= need
	}
	if left > 0 {
		// The iovec array was cut short: the trace lacks the rest.
		return &DataError{Line: op.Event.Line, Syscall: op.Event.Syscall, Partial: true}
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
