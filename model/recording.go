package model

import "github.com/crashsim/crashsim/parser"

// Questions about how a trace was recorded, for the checks that work out
// what it could not show (check/blind.go). They read the same tables the
// model resolves files with, so that both agree on which arguments name
// files.

// PathArgs returns the indexes of the arguments of syscall name that
// should be path strings (both names of a rename or link), or nil.
func PathArgs(name string) []int {
	s, ok := shapeOf(name)
	if !ok {
		return nil
	}
	var out []int
	for _, i := range []int{s.path, s.path2} {
		if i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// OpenFlags returns the flags of an open, openat, openat2 or creat event,
// read by name or as numbers (-e raw=).
func OpenFlags(ev *parser.Event) uint64 { return openFlags(ev) }
