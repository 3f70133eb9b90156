// Package smallfs gives tests a filesystem that fills fast: a fresh
// 1 MiB tmpfs, to see what code does when its disk is full.
// The tmpfs is mounted in a mount namespace of one locked thread that is
// never given back to the runtime, so the mount ends with that thread
// however the test ends, and nothing is left mounted on the host.
package smallfs

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// Run calls body on its own thread, with dir a fresh 1 MiB tmpfs that
// only that thread (and the processes it starts) sees, and reports body's
// error as a test error. source names the mount, so that a mount seen in
// /proc while a test runs says which test made it. It skips the test
// when it cannot mount (not root, no mount namespaces).
func Run(t testing.TB, source string, body func(dir string) error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	skip := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the namespace
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			skip <- fmt.Sprintf("unshare(CLONE_NEWNS): %v", err)
			return
		}
		// Private, so that the mount does not propagate to the host.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			skip <- fmt.Sprintf("making / private: %v", err)
			return
		}
		if err := unix.Mount(source, dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0755"); err != nil {
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
