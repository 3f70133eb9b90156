// Package replacefile is the one way crashsim writes a file: a temp file
// with a random name made with O_EXCL in the same directory, written, then
// renamed over the name. It serves the reports (durable: fsync of the file
// and of the directory) and files that are only as durable as what they
// describe (the listing beside a trace, the strace version cache). A file
// written as a stream that others watch grow (the trace) is made with
// CreateNew instead: at its own name, O_EXCL|O_NOFOLLOW.
//
// It refuses to replace a symbolic link or anything but a regular file:
// crashsim often runs as root in directories other users can write, and a
// link planted at the name must not send the output over another file. The
// rename itself never follows a link, so a link planted between the check
// and the rename is replaced, not written through.
package replacefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Options say how a file is written.
type Options struct {
	// Perm is the mode of the new file, applied whatever the umask; 0 is
	// 0644.
	Perm fs.FileMode
	// Durable fsyncs the file before the rename and the directory after
	// it, so that a crash leaves the old file or the new one. Without it,
	// a process that dies midway leaves the old one, but a power cut may
	// leave either or an empty file.
	Durable bool
}

// ErrRefused is wrapped by the errors of Check, Create and Write when the
// name exists and is not a regular file.
var ErrRefused = errors.New("refusing to write")

// Check says whether name may be written: its directory exists and name is
// absent or a regular file. The error names the path and what to change.
func Check(name string) error {
	dir := filepath.Dir(name)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: directory %s does not exist", name, dir)
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", name, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a directory", name, dir)
	}
	fi, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", name, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(name)
		return fmt.Errorf("%w %s: it is a symbolic link (to %s), and crashsim never writes through one; remove it or choose another name", ErrRefused, name, to)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w %s: it is a %s, not a regular file; choose another name", ErrRefused, name, kind(fi.Mode()))
	}
	return nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// File is a file being written under a temp name until Commit renames it.
type File struct {
	*os.File
	name string
	opt  Options
	done bool
}

// Create checks name (see Check) and opens a new temp file beside it.
// Commit or Abort must follow.
func Create(name string, opt Options) (*File, error) {
	if err := Check(name); err != nil {
		return nil, err
	}
	if opt.Perm == 0 {
		opt.Perm = 0o644
	}
	// CreateTemp opens with O_CREAT|O_EXCL under a random name: a link or
	// file planted at a guessed name makes it try another, never open it.
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", name, err)
	}
	if err := tmp.Chmod(opt.Perm); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &File{File: tmp, name: name, opt: opt}, nil
}

// Name is the name the file gets at Commit.
func (f *File) Name() string { return f.name }

// TempName is where the file is until Commit.
func (f *File) TempName() string { return f.File.Name() }

// Commit closes the file and renames it over its name, with the fsyncs
// Options.Durable asks for. The name is checked again just before: what
// appeared there meanwhile is refused (and the temp file removed).
func (f *File) Commit() (err error) {
	if f.done {
		return errors.New("replacefile: commit after commit or abort")
	}
	f.done = true
	tmp := f.File.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if f.opt.Durable {
		if err := f.File.Sync(); err != nil {
			f.File.Close()
			return fmt.Errorf("fsync %s: %w", tmp, err)
		}
	}
	if err := f.File.Close(); err != nil {
		return err
	}
	if err := Check(f.name); err != nil {
		return err
	}
	if err := os.Rename(tmp, f.name); err != nil {
		return err
	}
	if !f.opt.Durable {
		return nil
	}
	return syncDir(filepath.Dir(f.name))
}

// Abort closes and removes the temp file; the name keeps what it had.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// CreateNew makes name a new empty file with mode perm, opened for writing,
// for a file written as a stream: it is at its name from the start, so it
// can be watched as it grows and keeps what was written if crashsim is
// killed. name is checked first (see Check); a regular file there is
// removed, and the open with O_CREAT|O_EXCL|O_NOFOLLOW then fails on
// anything that took its place meanwhile rather than write through it.
func CreateNew(name string, perm fs.FileMode) (*os.File, error) {
	if err := Check(name); err != nil {
		return nil, err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot write %s: %w", name, err)
	}
	fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w (did something else just create it?)", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(name)
		return nil, err
	}
	return f, nil
}

// Write creates name whole with what write puts in it, or leaves what was
// there: see Create and Commit.
func Write(name string, write func(*os.File) error, opt Options) error {
	f, err := Create(name, opt)
	if err != nil {
		return err
	}
	if err := write(f.File); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
