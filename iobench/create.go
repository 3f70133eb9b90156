package iobench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"golang.org/x/sys/unix"
)

// createdName matches the names the create modes give their files, so a
// leftover directory from an earlier run can be cleared and nothing else.
var createdName = regexp.MustCompile(`^f[0-9]{6,}(\.tmp)?$`)

// createDir is where the create modes put their files.
func createDir(path string) string { return path + ".d" }

// create makes Count new SmallFileSize files in a fresh directory and times
// each kind of fsync the mode calls. A run that fails (a full disk) or is
// interrupted removes the files it made and the directory.
func (r *runner) create() (err error) {
	c := r.cfg
	dir := createDir(c.Path)
	if err := freshDir(dir); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			if rerr := removeCreated(dir); rerr != nil {
				r.warnf("not all the files of the run are removed: %v", rerr)
			}
		}
	}()
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", shown(dir), err)
	}
	defer unix.Close(dfd)
	// The new directory's own entry is made durable off the clock, so the
	// first timed directory fsync does not pay for it.
	if err := fsync(dfd); err != nil {
		return fmt.Errorf("fsync %s: %w", shown(dir), err)
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}

	buf := alignedBuffer(SmallFileSize)
	fill := newFiller(c.Fill, c.Seed)
	fill.init(buf)
	syncFile := c.Mode != CreateDir
	syncDirToo := c.Mode != CreateFile
	var fileSyncs, dirSyncs []time.Duration
	r.observe("before")

	var untimed time.Duration
	t0 := time.Now()
	for i := int64(0); i < c.Count; i++ {
		if err := r.interrupted(); err != nil {
			return err
		}
		tu := time.Now()
		if i > 0 && fill.refills() {
			fill.next(buf)
		}
		name := filepath.Join(dir, fmt.Sprintf("f%06d", i))
		untimed += time.Since(tu)
		target := name
		if c.Mode == CreateRename {
			target = name + ".tmp"
		}
		fd, err := r.open(target, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return fmt.Errorf("open %s: %w", shown(target), err)
		}
		if err := writeAll(fd, buf); err != nil {
			unix.Close(fd)
			return fmt.Errorf("write %s: %w", shown(target), err)
		}
		if syncFile {
			t := time.Now()
			if err := fsync(fd); err != nil {
				unix.Close(fd)
				return fmt.Errorf("fsync %s: %w", shown(target), err)
			}
			fileSyncs = append(fileSyncs, time.Since(t))
		}
		if err := unix.Close(fd); err != nil {
			return fmt.Errorf("close %s: %w", shown(target), err)
		}
		if c.Mode == CreateRename {
			if err := unix.Rename(target, name); err != nil {
				return fmt.Errorf("rename %s to %s: %w", shown(target), shown(name), err)
			}
		}
		if syncDirToo {
			t := time.Now()
			if err := fsync(dfd); err != nil {
				return fmt.Errorf("fsync %s: %w", shown(dir), err)
			}
			dirSyncs = append(dirSyncs, time.Since(t))
		}
	}
	elapsed := clamp(time.Since(t0) - untimed)

	r.printf("mode=%s files=%d bytes=%d ms=%d files/s=%.1f\n",
		c.Mode, c.Count, c.Count*SmallFileSize, elapsed.Milliseconds(), float64(c.Count)/elapsed.Seconds())
	for _, k := range []struct {
		kind string
		d    []time.Duration
	}{{"file", fileSyncs}, {"dir", dirSyncs}} {
		if len(k.d) > 0 {
			r.printf("fsync=%s p50_us=%.1f p99_us=%.1f\n", k.kind, micros(percentile(k.d, 50)), micros(percentile(k.d, 99)))
		}
	}
	r.checkSyncs("fsync of a new file", fileSyncs)
	// A directory fsync right after the file's own fsync may find nothing
	// left to commit; only where it carries the new name alone must it write.
	if c.Mode == CreateDir || c.Mode == CreateRename {
		r.checkSyncs("fsync of the directory after a new name", dirSyncs)
	}
	return nil
}

// freshDir makes dir empty and new. claimDir has checked that a directory
// already there holds only what an earlier run left, which is cleared.
func freshDir(dir string) error {
	if err := removeCreated(dir); err != nil {
		return err
	}
	if err := unix.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("mkdir %s: %w", shown(dir), err)
	}
	return nil
}

// removeCreated removes dir and the files in it with the names the create
// modes give (a directory that is not there is no error). Anything else
// in it is left, and the directory with it.
func removeCreated(dir string) error {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", shown(dir), unwrapPath(err))
	}
	defer f.Close()
	for {
		// In batches: a run can make millions of files.
		names, rerr := f.Readdirnames(1024)
		for _, n := range names {
			if !createdName.MatchString(n) {
				continue
			}
			p := filepath.Join(dir, n)
			if err := unix.Unlink(p); err != nil && !errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("unlink %s: %w", shown(p), err)
			}
		}
		if rerr != nil {
			break
		}
	}
	if err := unix.Rmdir(dir); err != nil {
		return fmt.Errorf("rmdir %s: %w", shown(dir), err)
	}
	return nil
}

// unwrapPath drops os.PathError's own "op path:" so messages name the path
// once, in the package's "op path: errno text" form.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
