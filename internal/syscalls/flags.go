package syscalls

import (
	"math/bits"
	"strconv"
	"strings"
)

// Absent marks a name an architecture does not have (MAP_32BIT outside
// x86, F_GETLK64 on 64-bit ones).
const Absent = ^uint64(0)

// Flag is one name of a FlagTable with its value on each architecture.
type Flag struct {
	Name                string
	AMD64, ARM64, On386 uint64
}

// on is the flag's value on a, Absent when a lacks it.
func (f Flag) on(a Arch) uint64 {
	switch a {
	case ARM64:
		return f.ARM64
	case I386:
		return f.On386
	}
	return f.AMD64
}

// same is a flag with one value on every architecture.
func same(name string, v uint64) Flag { return Flag{name, v, v, v} }

// FlagTable names the bits of one kind of flag argument (open flags,
// mmap flags, ...), or the values of one kind of enumerated argument
// (fcntl commands, lseek's whence), on every architecture crashsim reads.
//
// Decoded flags are crashsim's own bits, which are amd64's values: a name
// decodes to its amd64 value on any architecture, and a number printed in
// a trace of another architecture (-X raw, -e raw=, or bits strace did not
// know) is translated bit by bit into them. So O_DIRECT is always
// syscalls.O_DIRECT once decoded, whether the trace printed "O_DIRECT",
// 0x4000 on amd64 or 0x10000 on arm64.
type FlagTable struct {
	name  string
	flags []Flag
	enum  bool // values, not bits: numbers are taken as they are
	canon map[string]uint64
	// from[a] maps each bit of a number printed on a to crashsim's bits;
	// nil where every bit keeps its place.
	from [numArches]*[64]uint64
	// varies is set when a number can mean different things on different
	// architectures.
	varies bool
}

// newFlags builds a table of bits. Each single-bit name gives the
// translation of its bit; a multi-bit name (O_SYNC, O_TMPFILE, a field
// such as O_ACCMODE) must be made of single-bit names or mean the same
// on every architecture (the tests check it).
func newFlags(name string, flags ...Flag) *FlagTable {
	t := &FlagTable{name: name, flags: flags, canon: make(map[string]uint64, len(flags))}
	for _, f := range flags {
		t.canon[f.Name] = canonOf(f)
	}
	for a := AMD64; a < numArches; a++ {
		var m [64]uint64
		moved := false
		for b := range m {
			m[b] = 1 << b
		}
		for _, f := range flags {
			v := f.on(a)
			if v == Absent || bits.OnesCount64(v) != 1 {
				continue
			}
			c := canonOf(f)
			m[bits.TrailingZeros64(v)] = c
			if c != v {
				moved = true
			}
		}
		if moved {
			t.from[a] = &m
			t.varies = true
		}
	}
	return t
}

// newEnum builds a table of values, which must be the same on every
// architecture that has them.
func newEnum(name string, flags ...Flag) *FlagTable {
	t := newFlags(name, flags...)
	t.enum, t.from, t.varies = true, [numArches]*[64]uint64{}, false
	return t
}

// canonOf is a flag's value in crashsim's bits: amd64's, or where amd64
// lacks the name, that of the first architecture that has it.
func canonOf(f Flag) uint64 {
	for _, v := range []uint64{f.AMD64, f.On386, f.ARM64} {
		if v != Absent {
			return v
		}
	}
	return 0
}

// Name says what the table decodes ("open flags").
func (t *FlagTable) Name() string { return t.name }

// Flags lists the table's names with their values on each architecture.
func (t *FlagTable) Flags() []Flag { return t.flags }

// Value is the value of a name in crashsim's bits.
func (t *FlagTable) Value(name string) (uint64, bool) {
	v, ok := t.canon[name]
	return v, ok
}

// FromArch translates a number printed in a trace of architecture a into
// crashsim's bits. Bits no name of a claims keep their place. Unknown
// reads as amd64.
func (t *FlagTable) FromArch(n uint64, a Arch) uint64 {
	if a >= numArches || t.from[a] == nil {
		return n
	}
	m := t.from[a]
	var out uint64
	for n != 0 {
		b := bits.TrailingZeros64(n)
		n &^= 1 << b
		out |= m[b]
	}
	return out
}

// Varies reports whether some number means different things on two
// architectures in this table (open flags: 0x4000 is O_DIRECT on amd64
// and O_DIRECTORY on arm64).
func (t *FlagTable) Varies() bool { return t.varies }

// Bits decodes a flag expression as strace prints it: names and numbers
// joined by '|' ("O_WRONLY|O_CREAT|O_TRUNC", "0x241", "O_RDONLY|0x40000000"),
// numbers read as printed on architecture a. It reports false when a part
// is neither a number nor a name in the table; the bits of the parts it
// knows are still returned.
func (t *FlagTable) Bits(text string, a Arch) (uint64, bool) {
	var out uint64
	ok := true
	for text != "" {
		part := text
		if k := strings.IndexByte(text, '|'); k >= 0 {
			part, text = text[:k], text[k+1:]
		} else {
			text = ""
		}
		part = strings.TrimSpace(part)
		if n, isNum := number(part); isNum {
			if t.enum {
				out |= n
			} else {
				out |= t.FromArch(n, a)
			}
			continue
		}
		if v, known := t.canon[part]; known {
			out |= v
			continue
		}
		ok = false
	}
	return out, ok
}

// Ambiguous reports whether a flag expression holds a number whose bits
// mean different things on the architectures crashsim reads, so that it
// cannot be decoded without knowing the trace's architecture.
func (t *FlagTable) Ambiguous(text string) bool {
	if !t.varies {
		return false
	}
	for text != "" {
		part := text
		if k := strings.IndexByte(text, '|'); k >= 0 {
			part, text = text[:k], text[k+1:]
		} else {
			text = ""
		}
		n, isNum := number(strings.TrimSpace(part))
		if !isNum {
			continue
		}
		first := t.FromArch(n, AMD64)
		for a := AMD64 + 1; a < numArches; a++ {
			if t.FromArch(n, a) != first {
				return true
			}
		}
	}
	return false
}

// number reads a number as strace prints one: decimal, 0x hex or 0 octal,
// maybe negative. A name is told apart by its first byte, so that no
// name costs a failed conversion.
func number(s string) (uint64, bool) {
	if s == "" || (s[0] < '0' || s[0] > '9') && s[0] != '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(s, 0, 64)
		return u, uerr == nil
	}
	return uint64(n), true
}
