package parser

import "github.com/crashsim/crashsim/internal/syscalls"

// FlagTable names the bits of one kind of flag argument on every
// architecture crashsim reads; decoded flags are amd64's values whatever
// the trace's architecture (see Event.Bits).
type FlagTable = syscalls.FlagTable

// Arch is an architecture whose traces the parser reads: it decides what
// a flag printed as a number means.
type Arch = syscalls.Arch

// ParseArch reads an architecture by its Go name (amd64, arm64, 386) or
// uname -m's (x86_64, aarch64, i686).
func ParseArch(s string) (Arch, error) { return syscalls.ParseArch(s) }

// The flag tables of the arguments crashsim decodes.
var (
	OpenFlags          = syscalls.OpenFlags
	AtFlags            = syscalls.AtFlags
	RenameFlags        = syscalls.RenameFlags
	FallocFlags        = syscalls.FallocFlags
	RWFFlags           = syscalls.RWFFlags
	FcntlCmds          = syscalls.FcntlCmds
	FDFlags            = syscalls.FDFlags
	SeekWhence         = syscalls.SeekWhence
	MmapFlags          = syscalls.MmapFlags
	ProtFlags          = syscalls.ProtFlags
	MsyncFlags         = syscalls.MsyncFlags
	SyncFileRangeFlags = syscalls.SyncFileRangeFlags
	CloneFlags         = syscalls.CloneFlags
)

// Bits decodes v as a flag set with table t, numbers read as printed on
// architecture a (see FlagTable.Bits).
func (v *Value) Bits(t *FlagTable, a Arch) (uint64, bool) {
	if v.Kind == ValNone {
		return 0, false
	}
	return t.Bits(v.Text, a)
}

// Bits decodes argument i of the event as a flag set with table t, a
// number in it read with the event's architecture.
func (e *Event) Bits(i int, t *FlagTable) (uint64, bool) { return e.Arg(i).Bits(t, e.Arch) }

// Int returns v as a number when strace printed one. AT_FDCWD is -100.
func (v *Value) Int() (int64, bool) {
	if v.Kind == ValNumber {
		return parseInt(v.Text)
	}
	if v.Text == "AT_FDCWD" {
		return syscalls.AT_FDCWD, true
	}
	return 0, false
}

// Field returns the struct field called name, or a zero Value.
func (v *Value) Field(name string) *Value {
	for i := range v.Elems {
		if v.Elems[i].Name == name {
			return &v.Elems[i]
		}
	}
	return &zeroValue
}
