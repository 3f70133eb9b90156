package iobench

import (
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sys/unix"
)

// stream runs buffered, fsync-every and direct: Config.bytes() written in
// BlockSize pieces from one aligned buffer, starting at Offset.
func (r *runner) stream() error {
	c := r.cfg
	if c.Overwrite {
		if err := r.prefill(); err != nil {
			return err
		}
	}
	// A FILE claim found absent is created here, O_EXCL: a file someone
	// put there since is never written, nor removed when the run fails.
	fd, err := openStream(r.open, c.Path, c.Mode == Direct, !c.Overwrite, !r.tgt.existed && !c.Overwrite)
	if err != nil {
		return err
	}
	r.made = true
	defer unix.Close(fd)
	r.mark(fd, c.Path)
	if c.Offset > 0 {
		if _, err := unix.Seek(fd, c.Offset, io.SeekStart); err != nil {
			return fmt.Errorf("seek %s: %w", shown(c.Path), err)
		}
	}

	buf := alignedBuffer(int(c.BlockSize))
	fill := newFiller(c.Fill, c.Seed)
	fill.init(buf)
	r.observe("before") // after any prefill: only the timed writes count

	total := c.bytes()
	nblocks := (total + c.BlockSize - 1) / c.BlockSize
	syncEvery := c.Mode == FsyncEvery
	var syncs []time.Duration
	if syncEvery {
		syncs = make([]time.Duration, 0, nblocks/c.Every+1)
	}
	sync := func() error {
		t := time.Now()
		if err := fdatasync(fd); err != nil {
			return fmt.Errorf("fdatasync %s: %w", shown(c.Path), err)
		}
		syncs = append(syncs, time.Since(t))
		return nil
	}

	var refill time.Duration // random fill is CPU work, not I/O: kept off the clock
	t0 := time.Now()
	for i := int64(0); i < nblocks; i++ {
		block := buf
		if left := total - i*c.BlockSize; left < c.BlockSize {
			block = buf[:left]
		}
		if i > 0 && fill.refills() {
			tf := time.Now()
			fill.next(block)
			refill += time.Since(tf)
		}
		if err := r.interrupted(); err != nil {
			return err
		}
		if err := writeAll(fd, block); err != nil {
			return r.writeError(err)
		}
		if syncEvery && (i+1)%c.Every == 0 {
			if err := sync(); err != nil {
				return err
			}
		}
	}
	if syncEvery && nblocks%c.Every != 0 {
		if err := sync(); err != nil {
			return err
		}
	}
	elapsed := clamp(time.Since(t0) - refill)

	rate := mibPerSec(total, elapsed)
	r.printf("mode=%s bytes=%d ms=%d MiB/s=%.1f\n", c.Mode, total, elapsed.Milliseconds(), rate)
	r.checkRate(fmt.Sprintf("mode=%s", c.Mode), rate)
	r.checkSyncs("fdatasync after new blocks", syncs)

	if c.Mode == Buffered {
		r.observe("written")
		t2 := time.Now()
		if err := fdatasync(fd); err != nil {
			return fmt.Errorf("fdatasync %s: %w", shown(c.Path), err)
		}
		synced := since(t2)
		r.printf("fsync_ms=%d\n", synced.Milliseconds())
		r.checkRate("buffered with its closing fdatasync", mibPerSec(total, elapsed+synced))
	}
	if c.geometryChanged() {
		r.printf("block_size=%d offset=%d overwrite=%t\n", c.BlockSize, c.Offset, c.Overwrite)
	}
	return nil
}

// writeError names the path, and for O_DIRECT the alignment the kernel
// wants when the geometry is the likely reason for EINVAL.
func (r *runner) writeError(err error) error {
	c := r.cfg
	if c.Mode == Direct && errors.Is(err, unix.EINVAL) && (c.BlockSize%pageSize != 0 || c.Offset%pageSize != 0) {
		return fmt.Errorf("write %s (O_DIRECT wants --block-size and --offset aligned to the device's logical block size): %w", shown(c.Path), err)
	}
	return fmt.Errorf("write %s: %w", shown(c.Path), err)
}

// prefill lays down the whole range a stream run will write, makes it
// durable and drops it from the page cache, so the timed writes land on
// pages that must be read back from the device whenever they are only
// partly overwritten.
func (r *runner) prefill() error {
	c := r.cfg
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC
	if !r.tgt.existed {
		flags |= unix.O_EXCL
	}
	fd, err := openRegular(r.open, c.Path, flags)
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return err
		}
		return fmt.Errorf("open %s: %w", shown(c.Path), err)
	}
	r.made = true
	defer unix.Close(fd)
	chunk := alignedBuffer(1 << 20)
	newFiller(FillPattern, 0).init(chunk)
	for left := c.Offset + c.bytes(); left > 0; {
		if err := r.interrupted(); err != nil {
			return err
		}
		n := min(left, int64(len(chunk)))
		if err := writeAll(fd, chunk[:n]); err != nil {
			return fmt.Errorf("write %s: %w", shown(c.Path), err)
		}
		left -= n
	}
	if err := fdatasync(fd); err != nil {
		return fmt.Errorf("fdatasync %s: %w", shown(c.Path), err)
	}
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("posix_fadvise %s: %w", shown(c.Path), err)
	}
	return nil
}
