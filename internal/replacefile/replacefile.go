// Package replacefile writes a file whole or not at all: a temp file in the
// same directory, renamed over the name. It is the one place crashsim does
// that, for its reports (durable: fsync of the file and of the directory)
// and for files that are only as durable as what they describe (the
// listing beside a trace, the strace version cache).
package replacefile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write calls write on a temp file beside name, then renames it over name,
// mode 0644. With durable, the file is fsynced before the rename and the
// directory after it, so that a crash leaves the old file or the new one;
// without, a process that dies midway leaves the old one, but a power cut
// may leave either or an empty file. On error the temp file is removed.
func Write(name string, write func(*os.File) error, durable bool) (err error) {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if durable {
		if err = tmp.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %w", tmp.Name(), err)
		}
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
