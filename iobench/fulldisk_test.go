package iobench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/smallfs"
	"golang.org/x/sys/unix"
)

// leftovers lists dir and says how many of its blocks are in use.
func leftovers(dir string) (names []string, used uint64, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return nil, 0, err
	}
	return names, st.Blocks - st.Bfree, nil
}

// TestAdversarialFullDisk: a run that fills its filesystem fails with
// ENOSPC as an I/O error and removes every file it made, so the
// filesystem is as free as before. The create modes used to leave FILE.d
// with every file they had made, and the filesystem full (issue 28).
func TestAdversarialFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: mounts a small tmpfs as root")
	}
	smallfs.Run(t, "crashsim-iobench-test", func(dir string) error {
		_, used0, err := leftovers(dir)
		if err != nil {
			return err
		}
		for _, tc := range []struct {
			mode    Mode
			ballast bool // fill the disk first: not even one 4 KiB save fits
			pre     bool // a run that fits first, so that FILE is iobench's own
		}{
			{CreateFile, false, false},
			{CreateFileDir, false, false},
			{CreateDir, false, false},
			{CreateRename, false, false},
			{Buffered, false, false},
			{FsyncEvery, false, true},
			{ReplaceFsync, true, false},
			{ReplaceAtomic, true, false},
		} {
			c := DefaultConfig()
			c.Mode, c.Path, c.SizeMB, c.Count = tc.mode, filepath.Join(dir, "bench.bin"), 4, 100000
			if tc.pre {
				small := c
				small.Mode, small.Count = ReplaceFsync, 1
				if err := Run(small, discard{}, nil); err != nil {
					return fmt.Errorf("%s: the run that fits: %w", tc.mode, err)
				}
				if v, _ := getMark(c.Path); v == "" {
					os.Remove(c.Path)
					continue // no user xattrs on this tmpfs: FILE cannot be iobench's
				}
			}
			ballast := ""
			if tc.ballast {
				if ballast, err = fillUp(dir); err != nil {
					return err
				}
			}
			err := Run(c, discard{}, nil)
			var ue *UsageError
			if !errors.Is(err, unix.ENOSPC) || errors.As(err, &ue) {
				return fmt.Errorf("%s on a full disk: err = %v, want an I/O error with ENOSPC", tc.mode, err)
			}
			if ballast != "" {
				if err := os.Remove(ballast); err != nil {
					return err
				}
			}
			names, used, err := leftovers(dir)
			if err != nil {
				return err
			}
			if len(names) != 0 || used != used0 {
				return fmt.Errorf("%s on a full disk left %d entries %q and %d blocks in use, want none and %d", tc.mode, len(names), names[:min(len(names), 3)], used, used0)
			}
		}
		return nil
	})
}

// fillUp writes a file in dir until the filesystem is full and returns
// its path.
func fillUp(dir string) (string, error) {
	p := filepath.Join(dir, "ballast")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	chunk := make([]byte, 512)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, unix.ENOSPC) {
				return p, nil
			}
			return "", err
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
