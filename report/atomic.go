package report

import (
	"os"

	"github.com/crashsim/crashsim/internal/replacefile"
)

// WriteFileAtomic writes a file the way crashsim tells programs to: a new
// file in the same directory (unnamed, O_TMPFILE, where the filesystem
// allows), fsync, linked at the name or renamed over it, fsync of the
// directory. A crash leaves the old file or the new one, never a mix, and
// an interrupted run leaves no temp file. A symbolic link or a
// non-regular file at name is refused.
func WriteFileAtomic(name string, write func(*os.File) error) error {
	return replacefile.Write(name, write, replacefile.Options{Durable: true})
}
