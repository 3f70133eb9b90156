package iobench

import (
	"errors"
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
		if err := r.interrupted(); err != nil {
			return err
		}
		// The first save creates a FILE claim found absent, O_EXCL.
		excl := i == 0 && !r.tgt.existed
		var err error
		switch c.Mode {
		case ReplacePlain:
			err = r.saveInPlace(buf, false, excl)
		case ReplaceFsync:
			err = r.saveInPlace(buf, true, excl)
		case ReplaceAtomic:
			if err = saveAtomic(c.Path, tmp, buf); err == nil {
				r.made = true
				err = syncDir(dir)
			}
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

// saveInPlace truncates FILE and writes data into it: a crash in between
// leaves it empty or torn, with or without the fsync.
func (r *runner) saveInPlace(data []byte, durable, excl bool) error {
	path := r.cfg.Path
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC
	if excl {
		flags |= unix.O_EXCL
	}
	fd, err := openRegular(r.open, path, flags)
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return err
		}
		return fmt.Errorf("open %s: %w", shown(path), err)
	}
	r.made = true
	defer unix.Close(fd)
	if err := writeAll(fd, data); err != nil {
		return fmt.Errorf("write %s: %w", shown(path), err)
	}
	if durable {
		if err := fsync(fd); err != nil {
			return fmt.Errorf("fsync %s: %w", shown(path), err)
		}
	}
	return nil
}

// saveAtomic is the crash-safe replace: the data is durable under a
// temporary name before rename publishes it. The caller's fsync of the
// directory then makes the rename itself durable.
func saveAtomic(path, tmp string, data []byte) (err error) {
	fd, err := unix.Open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", shown(tmp), err)
	}
	defer func() {
		if err != nil {
			unix.Unlink(tmp)
		}
	}()
	if err := writeAll(fd, data); err != nil {
		unix.Close(fd)
		return fmt.Errorf("write %s: %w", shown(tmp), err)
	}
	if err := fsync(fd); err != nil {
		unix.Close(fd)
		return fmt.Errorf("fsync %s: %w", shown(tmp), err)
	}
	if err := unix.Close(fd); err != nil {
		return fmt.Errorf("close %s: %w", shown(tmp), err)
	}
	if err := unix.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", shown(tmp), shown(path), err)
	}
	return nil
}

func syncDir(dir string) error {
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", shown(dir), err)
	}
	defer unix.Close(dfd)
	if err := fsync(dfd); err != nil {
		return fmt.Errorf("fsync %s: %w", shown(dir), err)
	}
	return nil
}
