package report

import (
	"bufio"
	"io"
	"os"

	"github.com/crashsim/crashsim/internal/replacefile"
)

// WriteFileAtomic writes a file the way crashsim tells programs to: a new
// file in the same directory (unnamed, O_TMPFILE, where the filesystem
// allows), fsync, linked at the name or renamed over it, fsync of the
// directory. A crash leaves the old file or the new one, never a mix, and
// an interrupted run leaves no temp file. A symbolic link or a
// non-regular file at name is refused.
func WriteFileAtomic(name string, write func(*os.File) error) error {
	return replacefile.Write(name, write, replacefile.Options{Durable: true})
}

// Output writes a report that render makes to the file name
// (WriteFileAtomic) or, when name is "", to stdout; either way buffered.
// render is told to colour it when it goes to stdout and color is set (a
// terminal that wants colour). render's own error comes back as it is.
// The buffer is outputBuffer bytes.
func Output(stdout io.Writer, color bool, name string, render func(w io.Writer, color bool) error) error {
	if name == "" {
		bw := bufio.NewWriterSize(stdout, outputBuffer)
		if err := render(bw, color); err != nil {
			return err
		}
		return bw.Flush()
	}
	var renderErr error
	err := WriteFileAtomic(name, func(file *os.File) error {
		bw := bufio.NewWriterSize(file, outputBuffer)
		if renderErr = render(bw, false); renderErr != nil {
			return renderErr
		}
		return bw.Flush()
	})
	if renderErr != nil {
		return renderErr
	}
	if err != nil {
		return &WriteError{err}
	}
	return nil
}

// WriteError is Output's failure to write the file (not render's): its
// error names the file already.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// outputBuffer is how much of a report is written at a time. A check of a
// million unsynced files writes 2 GB of JSON: with bufio's 4 KiB that was
// half a million write calls, against eight thousand at 256 KiB, and
// about a second more of CPU time (user and system) for the same bytes.
const outputBuffer = 256 << 10
