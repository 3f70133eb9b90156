//go:build !linux

package tmpfile

import (
	"errors"
	"os"
)

// openTmpfile fails where there is no O_TMPFILE: New then takes a
// random name and removes it at once.
func openTmpfile(string) (*os.File, error) { return nil, errors.New("no O_TMPFILE") }
