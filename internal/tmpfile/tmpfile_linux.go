package tmpfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// openTmpfile opens a file with no name in dir (O_TMPFILE).
func openTmpfile(dir string) (*os.File, error) {
	return os.OpenFile(dir, unix.O_TMPFILE|os.O_RDWR, 0o600)
}
