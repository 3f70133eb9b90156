package crashsim

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/parser"
)

// A UsageError is a request that cannot be met as it was asked: a bad
// glob, a persistence model or blind spot that does not exist, a config
// file with a mistake. The command line says it and exits 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// An InputError is a trace, listing or report that cannot be read, worded
// for a person: a parse error shows the line and a caret under the
// column. The command line says it and exits 3.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// inputError words a problem reading a trace for a person.
func inputError(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	var pe *parser.Error
	if errors.As(err, &pe) {
		return &InputError{&detailed{pe}}
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		// "cannot read trace t.strace: no such file", the name escaped.
		return &InputError{inputfile.Describe("trace", err)}
	}
	return &InputError{err}
}

// detailed is a parse error that reads as its Detail (the line and a
// caret), and still unwraps to the *parser.Error.
type detailed struct{ pe *parser.Error }

func (d *detailed) Error() string { return d.pe.Detail() }
func (d *detailed) Unwrap() error { return d.pe }
