package parser

import "github.com/crashsim/crashsim/internal/syscalls"

// callCache answers, for the name of a call as the line prints it, what
// every call line needs of it: the name as a shared string, its row in
// the syscall table and the positions the Reader decodes (Options.
// DecodePositions). Without it each line paid for three lookups by name
// (intern, syscalls.Lookup, the caller's DecodePositions, itself a
// lookup), some 10% of reading a real trace; a trace names a few dozen
// calls, so one slot per name answers nearly every line with one hash of
// a short name and one comparison.
type callCache [callCacheSize]callEntry

// callCacheSize is a power of 2, some ten times the calls a trace makes.
const callCacheSize = 256

type callEntry struct {
	name string
	call syscalls.Call
	set  ArgSet // the decode function's answer, AllArgs when there is none
}

// callName returns the entry for the call name b: the interned name, its
// Call and the positions to decode. A slot holds the last name that fell
// there.
func (l *lineParser) callName(b []byte) *callEntry {
	if l.calls == nil {
		l.calls = new(callCache)
	}
	e := &l.calls[internSlot(b)&(callCacheSize-1)]
	if e.name == string(b) && e.name != "" {
		return e
	}
	name := l.intern(b)
	set := AllArgs
	if l.decode != nil {
		set = l.decode(name)
	}
	*e = callEntry{name: name, call: syscalls.Lookup(name), set: set}
	return e
}
