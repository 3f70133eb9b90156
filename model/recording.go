package model

import (
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// Questions about how a trace was recorded, for the checks that work out
// what it could not show (check/blind.go). They read the same table the
// model resolves files with, so that both agree on which arguments name
// files.

// PathArgs returns the indexes of the arguments of syscall name that
// should be path strings (both names of a rename or link), or nil.
func PathArgs(name string) []int { return syscalls.Lookup(name).Row().PathArgs() }

// OpenFlags returns the flags of an open, openat, openat2 or creat event,
// read by name or as numbers (-e raw=), in crashsim's bits.
func OpenFlags(ev *parser.Event) uint64 { return openFlags(ev) }

// OpenFlags is the package's OpenFlags, read once for every model
// sharing s and applying the same event: a caller that reads an event
// before the models apply it (check's Watcher) decodes its flags for
// them.
func (s *Shared) OpenFlags(ev *parser.Event) uint64 {
	return s.flags.openFlags(ev)
}
