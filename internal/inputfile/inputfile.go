// Package inputfile is how crashsim opens a file it reads: a trace, a
// listing, a config, a baseline or a shard report. crashsim often runs as
// root in CI on a checkout a pull request can change, so any of these can
// be a symbolic link to /dev/zero (endless), /dev/urandom, a named pipe
// nothing writes to (an open that waits forever), a file of /proc (a size
// of 0 that is not the size of what it holds), or a secret.
//
// Open opens a name once and reads from the file it checked (fstat of the
// open file, not a second lookup of the name): a regular file, or, when
// the user named it on the command line, a pipe the shell made for this
// run (/dev/stdin, <(cmd)). Everything else is refused before a byte is
// read, with what it is: a device, a directory, a socket, a named pipe, a
// file of /proc or /sys. The name is looked at (stat) before it is
// opened, so that a device is never opened at all (opening one can have
// effects: a tape rewinds, a watchdog starts), and the open itself uses
// O_NONBLOCK, so that a named pipe put there meanwhile cannot make it wait.
//
// A named pipe is refused even when named: nothing tells crashsim whether
// something will ever write to it, and a CI job that waits forever is
// worse than one that says why it stopped. A pipe the shell opened for the
// command (crashsim check --baseline <(cat base.json), or /dev/stdin) has
// a writer by construction.
//
// ReadAll reads a file that is read whole (a config) up to a limit;
// other inputs are read as streams by their own readers, which bound
// their own memory.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/crashsim/crashsim/internal/textesc"
	"golang.org/x/sys/unix"
)

// Origin is how a name reached crashsim, which decides what it may be.
type Origin uint8

const (
	// Found: crashsim looked for it (a config in a directory above, the
	// listing beside a trace, the members of an strace -ff set). It must
	// be a regular file.
	Found Origin = iota
	// Named: the user gave it on the command line. It may also be a pipe
	// the shell made (/dev/stdin, <(cmd)).
	Named
)

// ErrNotFile is wrapped by the error of Open for a name that is not a
// regular file (nor a pipe it accepts).
var ErrNotFile = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error of ReadAll for a file larger than
// its limit.
var ErrTooLarge = errors.New("too large")

// A NotFileError is a name that is not a file crashsim reads.
type NotFileError struct {
	Name string
	// Kind says what it is instead: "a character device", "a named
	// pipe", "a file of /proc".
	Kind string
	// Why says why that is refused, or what to do, when it is not plain.
	Why string
	// Target is where Name leads when it is a symbolic link.
	Target string
}

func (e *NotFileError) Error() string {
	s := textesc.Escape(e.Name) + " is " + e.Kind
	if e.Target != "" {
		s += " (a link to " + textesc.Escape(e.Target) + ")"
	}
	s += ", not a regular file"
	if e.Why != "" {
		s += ": " + e.Why
	}
	return s
}

func (e *NotFileError) Unwrap() error { return ErrNotFile }

// Open opens name for reading. A regular file is accepted from either
// origin; a pipe only from Named, and only one the shell made (not a
// named pipe); anything else is a *NotFileError. Other errors are those
// of open(2), as *fs.PathError.
func Open(name string, o Origin) (f *os.File, err error) {
	defer func() {
		var nf *NotFileError
		if errors.As(err, &nf) {
			nf.Target = linkTarget(name)
		}
	}()
	fi, err := os.Stat(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what was asked, as os.Open says it
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeNamedPipe == 0 {
		return nil, &NotFileError{Name: name, Kind: kind(fi.Mode())}
	}
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if err := check(fd, name, o); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// Reads block as usual from here: a pipe the shell made has a writer.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// check says whether the open file fd may be read as name.
func check(fd int, name string, o Origin) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if what := pseudoFS(fd); what != "" {
			return &NotFileError{Name: name, Kind: "a file of " + what, Why: "its size and content are made up as it is read"}
		}
		return nil
	case unix.S_IFIFO:
		switch {
		case !isShellPipe(fd):
			return &NotFileError{Name: name, Kind: "a named pipe", Why: "nothing says anything will ever write to it; give its content on stdin (/dev/stdin < " + textesc.Escape(name) + ")"}
		case o != Named:
			return &NotFileError{Name: name, Kind: "a pipe", Why: "crashsim reads a pipe only when it is named on the command line"}
		}
		return nil
	}
	return &NotFileError{Name: name, Kind: kind(modeOf(uint32(st.Mode)))} // 16 bits on darwin
}

// linkTarget is where name leads when it is a symbolic link, else "".
func linkTarget(name string) string {
	if fi, err := os.Lstat(name); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	if to, err := filepath.EvalSymlinks(name); err == nil {
		return to
	}
	to, _ := os.Readlink(name)
	return to
}

// modeOf is the type bits of a stat mode as an fs.FileMode.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	}
	return fs.ModeIrregular
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// ReadAll reads f whole, refusing one of more than limit bytes (an error
// wrapping ErrTooLarge) before it holds more than limit+1 of them.
func ReadAll(f *os.File, limit int64) ([]byte, error) {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, tooLarge(f.Name(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(f.Name(), limit)
	}
	return b, nil
}

// Capped reads f as a stream, failing (with an error wrapping
// ErrTooLarge) once more than limit bytes were read: for an input read
// line by line whose reader keeps what it reads.
func Capped(f *os.File, limit int64) io.Reader { return &capped{f: f, left: limit, limit: limit} }

type capped struct {
	f           *os.File
	left, limit int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, tooLarge(c.f.Name(), c.limit)
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.f.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n - 1, tooLarge(c.f.Name(), c.limit)
	}
	return n, err
}

func tooLarge(name string, limit int64) error { return &tooLargeError{name, limit} }

type tooLargeError struct {
	name  string
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s", textesc.Escape(e.name), size(e.limit))
}

func (e *tooLargeError) Unwrap() error { return ErrTooLarge }

func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
