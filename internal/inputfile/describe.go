package inputfile

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/crashsim/crashsim/internal/textesc"
)

// OpenError is an input that could not be opened, worded for a person
// (Describe): "cannot read --baseline old.json: no such file", not Go's
// "open old.json: no such file or directory", which names neither the
// flag nor the input, and prints the name raw.
type OpenError struct {
	What string // the input as the user gave it: a flag ("--baseline"), "trace"
	Name string // the file, as given
	Err  error  // what Open returned (a *fs.PathError)
}

func (e *OpenError) Error() string {
	return "cannot read " + e.What + " " + textesc.Escape(e.Name) + ": " + reason(e.Err)
}

func (e *OpenError) Unwrap() error { return e.Err }

// reason is why a file could not be opened, in a few words.
func reason(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}

// Describe words an error of Open for a person, what being the input as
// the user gave it (a flag, "trace", "report"): a *fs.PathError becomes an
// *OpenError, the file named after what and escaped (textesc); any other
// error (a NotFileError, which says what the file is) follows "cannot
// read what: ". Both still unwrap to the error Open returned.
func Describe(what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &OpenError{What: what, Name: pe.Path, Err: err}
	}
	return fmt.Errorf("cannot read %s: %w", what, err)
}
