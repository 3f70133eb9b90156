package iobench

import (
	"errors"
	"fmt"
	"strings"
)

// Mode names a workload; its string is what --mode takes and what the
// report line prints.
type Mode string

const (
	Buffered      Mode = "buffered"
	FsyncEvery    Mode = "fsync-every"
	Direct        Mode = "direct"
	ReplacePlain  Mode = "replace-plain"
	ReplaceFsync  Mode = "replace-fsync"
	ReplaceAtomic Mode = "replace-atomic"
	CreateFile    Mode = "create-file"
	CreateFileDir Mode = "create-file-dir"
	CreateDir     Mode = "create-dir"
	CreateRename  Mode = "create-rename"
)

// family groups the modes that share a runner and the flags they read.
type family int

const (
	familyStream family = iota
	familyReplace
	familyCreate
)

// modes is the one list of workloads; validation and the command's help
// read it.
var modes = []struct {
	mode   Mode
	family family
	doc    string
}{
	{Buffered, familyStream, "write(2) only, then one fdatasync timed apart (fsync_ms)"},
	{FsyncEvery, familyStream, "fdatasync every --every blocks, inside the timed loop"},
	{Direct, familyStream, "O_DIRECT writes, no page cache"},
	{ReplacePlain, familyReplace, "save a 4 KiB file in place, no sync"},
	{ReplaceFsync, familyReplace, "save in place, then fsync"},
	{ReplaceAtomic, familyReplace, "temp file, fsync, rename over, fsync the directory"},
	{CreateFile, familyCreate, "new 4 KiB files, fsync each file"},
	{CreateFileDir, familyCreate, "new files, fsync each file and then the directory"},
	{CreateDir, familyCreate, "new files, fsync only the directory"},
	{CreateRename, familyCreate, "temp file, fsync, rename to a new name, fsync the directory"},
}

// Modes lists every workload in the order the documentation gives them.
func Modes() []Mode {
	out := make([]Mode, len(modes))
	for i, m := range modes {
		out[i] = m.mode
	}
	return out
}

// Doc says in a line what the workload does.
func (m Mode) Doc() string {
	for _, e := range modes {
		if e.mode == m {
			return e.doc
		}
	}
	return ""
}

func familyOf(m Mode) (family, bool) {
	for _, e := range modes {
		if e.mode == m {
			return e.family, true
		}
	}
	return 0, false
}

// Fill says what the written bytes are.
type Fill string

const (
	FillPattern Fill = "pattern" // bytes 0..255 repeated, one buffer for every block
	FillRandom  Fill = "random"  // a fresh seeded pseudo-random block each time
)

// Defaults, the seed benchmark's where it has one.
const (
	DefaultPath      = "bench.bin"
	DefaultSizeMB    = 64
	DefaultEvery     = 8
	DefaultCount     = 200
	DefaultBlockSize = 64 << 10
	DefaultSeed      = 1

	// SmallFileSize is the size of every save of the replace modes and of
	// every file of the create modes.
	SmallFileSize = 4 << 10

	pageSize     = 4096
	maxBlockSize = 64 << 20
	maxSizeMB    = 1 << 20 // 1 TiB: keeps byte counts far from overflow
	maxCount     = 1 << 24
	// maxEnd bounds where a stream run may write: 16 TiB, ext4's largest
	// file with 4 KiB blocks. Past it the kernel refuses the seek or the
	// write, after the file was made.
	maxEnd = 1 << 44
)

// Config is one benchmark run.
type Config struct {
	Mode      Mode
	Path      string // the file written; the create modes use Path+".d"
	SizeMB    int64  // stream modes: MiB to write
	Every     int64  // fsync-every: blocks between fdatasyncs
	Count     int64  // replace and create modes: saves or files
	BlockSize int64  // stream modes: bytes per write(2)
	Offset    int64  // stream modes: file offset of the first write
	Overwrite bool   // stream modes: write over existing, uncached data
	Fill      Fill
	Seed      uint64
	Observe   bool // report Dirty: and /proc/self/io around the run
	Force     bool // write over a file at Path that iobench did not mark
}

// DefaultConfig is the seed benchmark's invocation with no flags.
func DefaultConfig() Config {
	return Config{
		Mode:      Buffered,
		Path:      DefaultPath,
		SizeMB:    DefaultSizeMB,
		Every:     DefaultEvery,
		Count:     DefaultCount,
		BlockSize: DefaultBlockSize,
		Fill:      FillPattern,
		Seed:      DefaultSeed,
	}
}

// UsageError is a Config that cannot run. Validate returns it before
// anything touches the disk.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// ErrDirectUnsupported is the filesystem refusing O_DIRECT at open(2) with
// EINVAL: a property of the filesystem, not a failure of the run.
var ErrDirectUnsupported = errors.New("direct: unsupported on this filesystem")

// Validate checks c without touching the disk.
func (c Config) Validate() error {
	if _, ok := familyOf(c.Mode); !ok {
		names := make([]string, len(modes))
		for i, m := range modes {
			names[i] = string(m.mode)
		}
		return usagef("unknown mode %s (want one of %s)", shownQ(string(c.Mode)), strings.Join(names, ", "))
	}
	switch {
	case c.Path == "":
		return usagef("FILE is empty")
	case c.SizeMB < 1 || c.SizeMB > maxSizeMB:
		return usagef("--size-mb %d out of range (1..%d)", c.SizeMB, maxSizeMB)
	case c.Every < 1:
		return usagef("--every %d: must be at least 1", c.Every)
	case c.Count < 1 || c.Count > maxCount:
		return usagef("--count %d out of range (1..%d)", c.Count, maxCount)
	case c.BlockSize < 1 || c.BlockSize > maxBlockSize:
		return usagef("--block-size %d out of range (1..%d)", c.BlockSize, maxBlockSize)
	case c.Offset < 0:
		return usagef("--offset %d: must not be negative", c.Offset)
	case c.Offset > maxEnd-c.bytes():
		return usagef("--offset %d: the run would write past %d bytes (16 TiB, ext4's largest file)", c.Offset, int64(maxEnd))
	case c.Fill != FillPattern && c.Fill != FillRandom:
		return usagef("unknown fill %s (want pattern or random)", shownQ(string(c.Fill)))
	}
	return nil
}

// bytes is what a stream run writes.
func (c Config) bytes() int64 { return c.SizeMB << 20 }

// geometryChanged reports whether a stream run differs from the seed's
// 64 KiB blocks written from offset 0 into a truncated file.
func (c Config) geometryChanged() bool {
	return c.BlockSize != DefaultBlockSize || c.Offset != 0 || c.Overwrite
}
