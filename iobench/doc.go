// Package iobench holds the timing workloads behind `crashsim iobench`:
// what each level of durability costs on the filesystem a user points it at.
//
// # Workloads
//
// The stream modes write one file of SizeMB MiB in blocks, all taken from
// the same 4096-byte aligned buffer (the alignment O_DIRECT needs):
//
//   - buffered: write(2) only; the report line times the write loop, and a
//     second line, fsync_ms, times the single fdatasync that follows.
//   - fsync-every: fdatasync after every Every blocks, and once more after
//     the last block when Every does not divide the block count, all inside
//     the timed region.
//   - direct: the file is opened with O_DIRECT. A filesystem that refuses
//     the flag with EINVAL at open(2) yields ErrDirectUnsupported.
//
// BlockSize and Offset change the write geometry; with Overwrite the file is
// first laid down, synced and dropped from the page cache, so that writes
// which cover only part of a 4096-byte page make the kernel read the rest of
// that page from the device first (read-modify-write). Without Overwrite the
// file is truncated and no page has anything to read back, which is why the
// experiment needs both.
//
// The replace modes save a 4 KiB file Count times, three ways: replace-plain
// (truncate and write, no sync), replace-fsync (truncate, write, fsync) and
// replace-atomic (write a temporary file, fsync it, rename it over the
// target, fsync the directory). They report milliseconds per save.
//
// The create modes make Count new 4 KiB files in a fresh directory named
// after the target (FILE.d): create-file (fsync of the file), create-file-dir
// (then fsync of the directory too), create-dir (fsync of the directory only,
// which makes the name durable but not the data) and create-rename (temp
// file, fsync, rename, fsync of the directory). They report files per second
// and the 50th and 99th percentile of each kind of fsync in microseconds.
//
// # Files
//
// iobench writes FILE (or FILE.d/ for the create modes) and nothing else.
// An existing FILE is written only when it carries iobench's mark (see
// MarkXattr) or with Config.Force, and only when it is a regular file: a
// directory, a device, a fifo or a socket is refused, Force or not, before
// it is opened (a benchmark would overwrite what a block device holds, and
// opening a fifo for writing waits for a reader). Opens also use
// O_NONBLOCK and check what they opened, for a fifo put there since. A
// symbolic link at FILE or FILE.d is always refused, and every open uses
// O_NOFOLLOW; a FILE that was absent is created with O_EXCL. FILE.d may
// hold only the files an earlier run made there. replace-atomic's temp
// file has a random name fixed for the run and is opened with O_EXCL.
// Every number and every one of these checks is done before anything is
// created; those failures are a *UsageError.
//
// A run that fails (a full disk) or is stopped by its context (Ctrl-C,
// SIGTERM in the command) removes what it made: FILE, or FILE.d and the
// files in it, and FILE when it was iobench's own from an earlier run,
// so that a full filesystem does not stay full. A FILE written only
// because of Force is left as the run left it. A run that succeeds keeps
// its files, for a next run or a look at them.
//
// Messages repeat an input (a path, a mode name) cut to its head and tail
// when it is long, and quoted when it holds control characters.
//
// # Fill
//
// FillPattern repeats the bytes 0, 1, ... 255 in one buffer, like the seed
// benchmark. FillRandom draws every block from a PCG generator seeded with
// Seed, so a compressing or deduplicating filesystem cannot skip the I/O and
// a run can be repeated byte for byte. Refilling the buffer is CPU work that
// is not I/O, so its time is taken out of the timed region.
//
// # Output
//
// Every result is a line of key=value pairs. The stream modes print the seed
// benchmark's line unchanged, `mode=MODE bytes=N ms=N MiB/s=N.N`, and
// buffered adds `fsync_ms=N`. Extra lines follow it (geometry, fill, the
// page cache observations), so a reader of the first line is never broken.
//
// # Warnings
//
// A number that is too good is a measurement of memory, not of a device.
// Two thresholds decide when to say so:
//
//   - more than 16 GiB/s of writes. A PCIe 5.0 x4 link, what the fastest
//     single NVMe drives sit on, carries about 15.75 GB/s (14.7 GiB/s) before
//     protocol overhead, so no one device can absorb more; a striped array
//     could, which is why this is a warning and not an error.
//   - a sync that had data to write returning in under 5 µs (median). The
//     fastest devices (Optane-class, or NVMe with power-loss protection that
//     can acknowledge a flush at once) still need several microseconds for
//     a 4 KiB write to cross the bus, and a journaling filesystem adds a
//     commit record behind it, while an fdatasync on tmpfs returns in about
//     0.3 µs. A directory fsync right after the file's own fsync is not held
//     to this: on ext4 it can legitimately find nothing left to commit.
//
// A target on tmpfs or ramfs is reported before anything runs: there is no
// device behind it, O_DIRECT is accepted but bypasses nothing, and fdatasync
// returns at once.
package iobench
