package model

import (
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// Which arguments of each call the model, its process model and check's
// blind-spot watcher read, so that a caller can ask the parser to decode
// only those (parser.Options.DecodePositions) and scan past the rest:
// most lines of a real trace (brk, futex, rt_sigaction, mprotect, ...)
// are calls the model never looks into. It is worked out once from the
// syscall table (internal/syscalls), from each call's effect class and
// the kinds of its arguments:
//
//   - the process model resolves the file arguments of every call that
//     names a file (its fd, or its dirfd and path, or both pairs of a
//     rename), whatever the call then does: events and findings name
//     the file;
//   - a call of class None needs nothing more; a read needs its count
//     (the offset moves by the return value, never by the buffer, but a
//     read that returned fewer bytes than it asked for met the end of
//     the file) and a read at an offset its offset too (the bytes it
//     returned show how long the file is at least); a seek needs its offset and whence (the new
//     offset is the return value, or _llseek's result, and one from the
//     end shows the file's size); a stat needs its buffer (st_size,
//     st_mode), not its flags or statx's mask;
//   - every other class reads every argument;
//   - a call the table does not have needs nothing.
//
// Those of the first two kinds never change the model (they yield no
// Effect, or EffRead, which changes nothing), so no crash point prints
// them with their arguments.
var positions = func() []parser.ArgSet {
	calls := syscalls.Calls()
	out := make([]parser.ArgSet, len(calls)+1)
	for _, c := range calls {
		out[c] = readPositions(c.Row())
	}
	return out
}()

func readPositions(r *syscalls.Row) parser.ArgSet {
	files := parser.ArgPositions(r.FD(), r.Dirfd(), r.Path(), r.Dirfd2(), r.Path2())
	if r.Socket() {
		// Its socket: the process model learns that the fd is no file (Procs.socketUse).
		files |= parser.ArgPositions(r.Pos(syscalls.ArgFDOther))
	}
	switch r.Effect {
	case syscalls.None:
		return files
	case syscalls.ReadFD:
		return files | parser.ArgPositions(r.Pos(syscalls.ArgSize))
	case syscalls.ReadAt:
		return files | parser.ArgPositions(r.Pos(syscalls.ArgSize), r.Offset())
	case syscalls.Seek:
		if r.OffsetOut() >= 0 {
			return files | parser.ArgPositions(r.OffsetOut()) // _llseek: its end is not read (seekEnd)
		}
		return files | parser.ArgPositions(r.Offset(), r.Pos(syscalls.ArgWhence))
	case syscalls.Stat:
		return files | parser.ArgPositions(r.Stat())
	}
	return parser.AllArgs
}

// ArgPositions returns the argument positions of syscall name that the
// model, its process model or check's blind-spot watcher may read (see
// above). It is what parser.Options.DecodePositions wants.
func ArgPositions(name string) parser.ArgSet { return positions[syscalls.Lookup(name)] }

// ReadsArgs reports whether the model, its process model or check's
// blind-spot watcher may read an argument of syscall name. The arguments
// of any other call can be left undecoded (parser.Options.DecodeArgs)
// without changing what they conclude.
func ReadsArgs(name string) bool { return ArgPositions(name) != 0 }

// NarrowedCalls returns the calls ArgPositions gives some positions of
// but not all, for tests.
func NarrowedCalls() []string {
	var out []string
	for _, c := range syscalls.Calls() {
		if s := positions[c]; s != 0 && s != parser.AllArgs {
			out = append(out, c.Name())
		}
	}
	return out
}
