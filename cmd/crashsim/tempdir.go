package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/crashsim/crashsim/internal/textesc"
)

// needTempDir refuses, before anything runs, a temp directory that is
// missing or not a directory, for a command that will make files there
// (trace's trace file and --stack shim, explore's snapshot, oracle's
// images). Found later, the error named a file in it, "open
// /nonexistent/crashsim-123.strace: no such file or directory", or only
// "stat /nonexistent", and not the setting to fix. It is a usage error,
// as a TMPDIR inside the directory explore copies is: the setting is the
// user's, as a flag is.
func needTempDir() error {
	dir := os.TempDir() // $TMPDIR, else /tmp
	fi, err := os.Stat(dir)
	if err == nil && fi.IsDir() {
		return nil
	}
	name := textesc.Escape(dir)
	if os.Getenv("TMPDIR") != "" {
		name += " ($TMPDIR)"
	}
	var why string
	switch {
	case err == nil:
		why = "is not a directory: set TMPDIR to a directory"
	case errors.Is(err, fs.ErrNotExist):
		why = "does not exist: create it, or set TMPDIR to a directory that exists"
	default:
		why = fmt.Sprintf("cannot be used (%v): set TMPDIR to a directory crashsim can write in", errors.Unwrap(err))
	}
	return withCode(exitUsage, fmt.Errorf("the temp directory %s %s", name, why))
}
