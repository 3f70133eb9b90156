package syscalls

import (
	"fmt"
	"math/bits"
)

// Arch is an architecture whose traces crashsim reads: the system call
// names strace prints and the values of their flags depend on it.
type Arch uint8

const (
	// Unknown is a trace whose architecture neither the trace nor the
	// user told: flags printed as numbers are read with amd64's values.
	Unknown Arch = iota
	AMD64        // x86-64
	ARM64        // AArch64
	I386         // 32-bit x86, native or in 32 bit mode on x86-64
	numArches
)

var archNames = [numArches]string{"unknown", "amd64", "arm64", "386"}

// String is the architecture's name as Go spells it (GOARCH).
func (a Arch) String() string {
	if a < numArches {
		return archNames[a]
	}
	return fmt.Sprintf("Arch(%d)", a)
}

// ParseArch reads an architecture by its Go name (amd64, arm64, 386) or
// the name uname -m gives (x86_64, aarch64, i386, i686).
func ParseArch(s string) (Arch, error) {
	switch s {
	case "amd64", "x86_64", "x86-64":
		return AMD64, nil
	case "arm64", "aarch64":
		return ARM64, nil
	case "386", "i386", "i486", "i586", "i686", "x86":
		return I386, nil
	}
	return Unknown, fmt.Errorf("unknown architecture %q (amd64, arm64 or 386)", s)
}

// Arches is a set of architectures.
type Arches uint8

// Bit is the set holding only a.
func (a Arch) Bit() Arches {
	if a == Unknown || a >= numArches {
		return 0
	}
	return 1 << a
}

// Has reports whether a is in the set.
func (s Arches) Has(a Arch) bool { return s&a.Bit() != 0 }

// Sets of architectures the rows of the table use.
const (
	onAMD64 = Arches(1 << AMD64)
	onARM64 = Arches(1 << ARM64)
	on386   = Arches(1 << I386)

	// AllArches are the architectures crashsim reads.
	AllArches = onAMD64 | onARM64 | on386
	// x86 are the architectures that share the flag values of x86-64:
	// i386 has the same open flags, at-flags and mmap flags (asm-generic
	// with no override in arch/x86), so a number means the same on both.
	x86   = onAMD64 | on386
	bit64 = onAMD64 | onARM64
	// none is a name strace prints on some architecture crashsim does not
	// read (pread on old ones, sync_file_range2 on arm and powerpc): it
	// says nothing about which of its architectures a trace is from.
	none = Arches(0)
)

// Evidence works out from what a trace shows which architecture recorded
// it: a call that only some architectures have (arch_prctl only on x86,
// mmap2 and _llseek only on 32-bit ones, newfstatat only on 64-bit ones)
// rules the others out, and so does a personality line that only one
// strace prints. The zero Evidence knows nothing.
type Evidence struct {
	may Arches // the architectures still possible; 0 before any evidence
	// not are the architectures a call strace printed by its number
	// rules out: every strace names that number on them (NamedBy).
	not Arches
}

// Unnamed takes in that the trace holds a call strace printed by its
// number (name is "syscall_258", "syscall_0x102"). On the architectures
// whose every strace names that number (258 is mkdirat on amd64), the
// trace cannot be: it is from another one, which may be one crashsim
// does not read (riscv64). That rules out, but never concludes: Arch
// does not take the one left (arm64, when a raw number rules out x86)
// for the trace's, as crashsim's three are not all there are; Possible
// tells what is left.
func (e *Evidence) Unnamed(name string) {
	if nr, ok := Number(name); ok {
		e.not |= NamedBy(nr)
	}
}

// Possible is the set of architectures crashsim reads that the trace
// may be from: what its calls and personality lines allow, less those a
// call printed by its number rules out (Unnamed). It is empty for a
// trace from a machine crashsim does not read, and for one whose
// evidence disagrees with itself.
func (e *Evidence) Possible() Arches {
	may := e.may
	if may == 0 {
		may = AllArches
	}
	return may &^ e.not
}

// Call takes in that the trace holds a call of c.
func (e *Evidence) Call(c Call) {
	if s := rows[c].Arches; s != none && s != AllArches {
		e.narrow(s)
	}
}

// Personality takes in a line "[ Process PID=N runs in MODE mode. ]",
// which strace prints when a process runs in another personality than
// the one before: "x32" only on x86-64; "AArch64" and "32-bit" only from
// strace before 5.0 on arm64. "64 bit" and "32 bit" are printed on every
// host with two personalities (x86-64 and arm64 alike), so they tell
// nothing: the calls the process then makes do (i386 has mmap2).
func (e *Evidence) Personality(mode string) {
	switch mode {
	case "x32":
		e.narrow(onAMD64)
	case "AArch64", "32-bit":
		e.narrow(onARM64)
	}
}

func (e *Evidence) narrow(s Arches) {
	may := e.may
	if may == 0 {
		may = AllArches
	}
	switch {
	case may&s != 0:
		e.may = may & s
	case may&x86 != 0 && s&x86 != 0:
		// A 64-bit x86 process and a 32-bit one (a 32-bit program run by
		// a 64-bit shell, newfstatat beside mmap2): an x86 machine, and
		// the two agree on every value.
		e.may = x86
	}
	// Otherwise the evidence disagrees with itself (a trace spliced from
	// two machines?): what was concluded first stands.
}

// Arch is the architecture the evidence points to, or Unknown. x86-64 and
// i386 together count as amd64: their flag values are the same.
func (e *Evidence) Arch() Arch {
	switch {
	case e.may == 0:
		return Unknown
	case e.may&^x86 == 0 && e.may != on386:
		return AMD64
	case bits.OnesCount8(uint8(e.may)) == 1:
		return Arch(bits.TrailingZeros8(uint8(e.may)))
	}
	return Unknown
}
