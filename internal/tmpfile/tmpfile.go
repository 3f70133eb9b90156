// Package tmpfile opens the temp files crashsim keeps what it cannot hold
// in memory in (findings past a bound, the records of settled files).
//
// Each is unlinked as soon as it is open (O_TMPFILE where the filesystem
// has it: it never has a name), so that nothing is left in $TMPDIR however
// crashsim ends: on an error, on SIGINT or SIGTERM, even on SIGKILL.
// Closing the file frees it.
package tmpfile

import "os"

// NoTmpfile makes New take the path of filesystems without O_TMPFILE,
// for tests.
var NoTmpfile bool

// New opens a new file in os.TempDir that has no name. prefix starts the
// random name it has for a moment where there is no O_TMPFILE.
func New(prefix string) (*os.File, error) {
	dir := os.TempDir()
	if !NoTmpfile {
		if f, err := openTmpfile(dir); err == nil {
			return f, nil
		}
	}
	// No O_TMPFILE on this filesystem: a random O_EXCL name, removed at
	// once.
	f, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
