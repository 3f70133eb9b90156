package explore

import (
	"os"
	"testing"
)

// memTempDir is t.TempDir in /dev/shm, explore's own default place for
// its work directory: a new empty directory, removed when the test ends.
// Without a writable /dev/shm it is t.TempDir.
//
// The real applications' tests put their work directories there: their
// checkers create and delete hundreds of files in every state (the
// postgres checker copies its data directory, for one), and on a disk
// filesystem that costs far more than on a tmpfs (on an ext4 without a
// journal, as this project's 2-CPU test machines' /tmp is, every create
// looks through recently deleted inodes: three quarters of the postgres
// test's CPU time, and its wall time four times over). What a state
// holds, and so what its checker says, does not depend on it.
func memTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "crashsim-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("memTempDir RemoveAll cleanup: %v", err)
		}
	})
	return dir
}
