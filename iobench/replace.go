package iobench

import (
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// replace saves a SmallFileSize file at Config.Path Count times, the way
// the mode says, and reports the time per save.
func (r *runner) replace() error {
	c := r.cfg
	buf := alignedBuffer(SmallFileSize)
	fill := newFiller(c.Fill, c.Seed)
	fill.init(buf)
	dir := filepath.Dir(c.Path)
	tmp, err := tempName(c.Path)
	if err != nil {
		return err
	}
	r.observe("before")

	var refill time.Duration
	t0 := time.Now()
	for i := int64(0); i < c.Count; i++ {
		if i > 0 && fill.refills() {
			tf := time.Now()
			fill.next(buf)
			refill += time.Since(tf)
		}
		var err error
		switch c.Mode {
		case ReplacePlain:
			err = saveInPlace(c.Path, buf, false)
		case ReplaceFsync:
			err = saveInPlace(c.Path, buf, true)
		case ReplaceAtomic:
			err = saveAtomic(c.Path, tmp, dir, buf)
		}
		if err != nil {
			return err
		}
	}
	elapsed := clamp(time.Since(t0) - refill)
	r.markPath(c.Path)

	perSave := elapsed / time.Duration(c.Count)
	r.printf("mode=%s saves=%d bytes=%d ms=%d ms/save=%.3f\n",
		c.Mode, c.Count, c.Count*SmallFileSize, elapsed.Milliseconds(), float64(perSave)/float64(time.Millisecond))
	if c.Mode != ReplacePlain {
		r.checkSyncs("a durable save", []time.Duration{perSave})
	}
	return nil
}

// saveInPlace truncates path and writes data into it: a crash in between
// leaves it empty or torn, with or without the fsync.
func saveInPlace(path string, data []byte, durable bool) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	if err := writeAll(fd, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err := fsync(fd); err != nil {
			return fmt.Errorf("fsync %s: %w", path, err)
		}
	}
	return nil
}

// saveAtomic is the crash-safe replace: the data is durable under a
// temporary name before rename publishes it, and the directory fsync makes
// the rename itself durable.
func saveAtomic(path, tmp, dir string, data []byte) (err error) {
	fd, err := unix.Open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", tmp, err)
	}
	defer func() {
		if err != nil {
			unix.Unlink(tmp)
		}
	}()
	if err := writeAll(fd, data); err != nil {
		unix.Close(fd)
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := fsync(fd); err != nil {
		unix.Close(fd)
		return fmt.Errorf("fsync %s: %w", tmp, err)
	}
	if err := unix.Close(fd); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := unix.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(dfd)
	if err := fsync(dfd); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
