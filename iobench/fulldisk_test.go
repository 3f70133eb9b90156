package iobench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// onSmallFS runs body with dir, a fresh 1 MiB tmpfs, and reports what body
// returns. The mount is made in a mount namespace of the body's own
// thread, which the body never gives back (no UnlockOSThread): the thread
// ends with the body, the namespace with the thread, and the mount with
// the namespace, so nothing is left mounted however the test ends, kill
// -9 included. Other threads, the test's cleanup among them, never see it.
func onSmallFS(t *testing.T, body func(dir string) error) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: mounts a small tmpfs as root")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	skip := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			skip <- fmt.Sprintf("unshare(CLONE_NEWNS): %v", err)
			return
		}
		// Private, so that the mount does not propagate to the host.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			skip <- fmt.Sprintf("making / private: %v", err)
			return
		}
		if err := unix.Mount("crashsim-iobench-test", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0755"); err != nil {
			skip <- fmt.Sprintf("mount tmpfs: %v", err)
			return
		}
		done <- body(dir)
	}()
	select {
	case why := <-skip:
		t.Skip(why)
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	}
}

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
	onSmallFS(t, func(dir string) error {
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
