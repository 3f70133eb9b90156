// Package replacefile is the one way crashsim writes a file whole: the
// file is written where no one sees it and given its name at the end, so
// that the name holds the old file or the new one, never part of one. It
// serves the reports (durable: fsync of the file and of the directory)
// and files that are only as durable as what they describe (the listing
// beside a trace, the strace version cache). A file written as a stream
// that others watch grow (the trace) is made with CreateNew instead: at
// its own name, O_EXCL|O_NOFOLLOW.
//
// The file is made unnamed (O_TMPFILE) in the directory of its name and
// linked in at the end (linkat of /proc/self/fd/N, or AT_EMPTY_PATH):
// crashsim stopped by Ctrl-C, SIGTERM, kill -9 or a full disk leaves
// nothing, because the kernel frees a file that has no name when it is
// closed. Where a name already exists the new file is linked under a
// random temp name and renamed over it, as a rename is the only atomic
// replacement. A filesystem without O_TMPFILE gets a random O_EXCL name
// from the start. Either temp name is removed on every way out that a
// process can catch (an error, SIGINT, SIGTERM, SIGHUP: see track); only
// kill -9 in that window can leave one.
//
// It refuses to replace a symbolic link or anything but a regular file:
// crashsim often runs as root in directories other users can write, and a
// link planted at the name must not send the output over another file.
// It does not replace the link either: a link the user made at an output
// name may be there on purpose, and saying so is better than quietly
// breaking it. The rename itself never follows a link, so a link planted
// between the check and the rename is replaced, not written through.
package replacefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/crashsim/crashsim/internal/textesc"
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
	// Shown escaped: a name or link target with a newline or a
	// terminal escape must not print as crashsim's own lines.
	shownName, shownDir := textesc.Escape(name), textesc.Escape(dir)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: directory %s does not exist", shownName, shownDir)
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", shownName, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a directory", shownName, shownDir)
	}
	fi, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", shownName, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(name)
		return fmt.Errorf("%w %s: it is a symbolic link (to %s), and crashsim never writes through one; remove it or choose another name", ErrRefused, shownName, textesc.Escape(to))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w %s: it is a %s, not a regular file; choose another name", ErrRefused, shownName, kind(fi.Mode()))
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

// File is a file being written, unnamed (or under a temp name) until
// Commit names it.
type File struct {
	*os.File
	name string
	opt  Options
	tmp  string // its temp name when it has one, "" while it is unnamed
	done bool
}

// noTmpfile makes Create take the path of filesystems without
// O_TMPFILE, for tests.
var noTmpfile bool

// Create checks name (see Check) and opens a new file in its directory,
// unnamed where the filesystem allows. Errors from writing it name name,
// not a temp name. Commit or Abort must follow.
func Create(name string, opt Options) (*File, error) {
	if err := Check(name); err != nil {
		return nil, err
	}
	if opt.Perm == 0 {
		opt.Perm = 0o644
	}
	dir := filepath.Dir(name)
	f := &File{name: name, opt: opt}
	fd, err := -1, error(unix.EOPNOTSUPP)
	if !noTmpfile {
		fd, err = unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	}
	if err != nil {
		// No O_TMPFILE here (EOPNOTSUPP; EISDIR or EINVAL from older
		// kernels): a random name, made with O_EXCL so that a link or file
		// planted at a guessed name makes it try another, never open it.
		fd, f.tmp, err = openTemp(dir, "."+filepath.Base(name)+".tmp-")
		if err != nil {
			return nil, failed(name, "", err)
		}
	}
	f.File = os.NewFile(uintptr(fd), name)
	if err := f.File.Chmod(opt.Perm); err != nil {
		f.Abort()
		return nil, failed(name, "", err)
	}
	return f, nil
}

// openTemp makes a new file dir/prefixRANDOM with O_EXCL, tracked until
// it is renamed or removed.
func openTemp(dir, prefix string) (fd int, name string, err error) {
	for range 100 {
		name = filepath.Join(dir, prefix+randomSuffix())
		track(name)
		fd, err = unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			return fd, name, nil
		}
		untrack(name)
		if err != unix.EEXIST {
			return -1, "", err
		}
	}
	return -1, "", err
}

// Name is the name the file gets at Commit.
func (f *File) Name() string { return f.name }

// TempName is where the file is until Commit; "" while it has no name.
func (f *File) TempName() string { return f.tmp }

// Commit names the file, with the fsyncs Options.Durable asks for: the
// file's before it has a name, the directory's after. The name is checked
// again just before: what appeared there meanwhile is refused (and the
// file dropped).
func (f *File) Commit() (err error) {
	if f.done {
		return errors.New("replacefile: commit after commit or abort")
	}
	f.done = true
	defer func() {
		f.File.Close()
		if f.tmp != "" {
			if err != nil {
				os.Remove(f.tmp)
			}
			untrack(f.tmp)
		}
	}()
	if f.opt.Durable {
		if err := f.File.Sync(); err != nil {
			return failed(f.name, "fsync: ", err)
		}
	}
	if err := Check(f.name); err != nil {
		return err
	}
	if f.tmp == "" {
		// Unnamed: linked straight at the name when there is none (the
		// link fails, EEXIST, rather than replace what appeared), else
		// under a temp name renamed over it.
		err := link(f.File, f.name)
		if err == unix.EEXIST {
			err = f.linkTemp()
		}
		if err != nil {
			return failed(f.name, "", err)
		}
	}
	if f.tmp != "" {
		if removedBySignal(f.tmp) {
			return failed(f.name, "", errInterrupted)
		}
		if err := os.Rename(f.tmp, f.name); err != nil {
			return failed(f.name, "", err)
		}
	}
	if !f.opt.Durable {
		return nil
	}
	if err := syncDir(filepath.Dir(f.name)); err != nil {
		return failed(f.name, "", err)
	}
	return nil
}

// linkTemp gives the unnamed file a random temp name beside its name.
func (f *File) linkTemp() error {
	dir, prefix := filepath.Dir(f.name), "."+filepath.Base(f.name)+".tmp-"
	for range 100 {
		tmp := filepath.Join(dir, prefix+randomSuffix())
		track(tmp)
		err := link(f.File, tmp)
		if err == nil {
			f.tmp = tmp
			return nil
		}
		untrack(tmp)
		if err != unix.EEXIST {
			return err
		}
	}
	return unix.EEXIST
}

// link gives the unnamed file f the name name, which must not exist:
// through /proc/self/fd, which any user may, or with AT_EMPTY_PATH, which
// needs CAP_DAC_READ_SEARCH but no /proc.
func link(f *os.File, name string) error {
	fd := int(f.Fd())
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	if err == unix.ENOENT {
		if err2 := unix.Linkat(fd, "", unix.AT_FDCWD, name, unix.AT_EMPTY_PATH); err2 == nil {
			return nil
		}
	}
	return err
}

// Abort closes the file and drops it; the name keeps what it had.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	if f.tmp != "" {
		os.Remove(f.tmp)
		untrack(f.tmp)
	}
}

// failed words an error of writing name with the name once: the errors of
// os name the temp file, or the name again.
func failed(name, op string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("cannot write %s: %s%w", name, op, err)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync of directory %s: %w", dir, err)
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
