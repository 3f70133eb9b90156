package syscalls

import (
	"math/bits"
	"slices"
	"testing"
)

// TestRows: every row has a unique name, a reason, arguments that fit its
// effect class, and the Optional mark where some architecture lacks it.
func TestRows(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rows() {
		if r.Name == "" || seen[r.Name] {
			t.Errorf("row %q: empty or duplicate name", r.Name)
		}
		seen[r.Name] = true
		if r.Why == "" {
			t.Errorf("%s: no Why: say what the model reads from it, or why it is not traced", r.Name)
		}
		if r.Traced && r.Arches != AllArches && !r.Optional {
			t.Errorf("%s: traced on every architecture, but %v lack it: mark it Optional (?name)", r.Name, missing(r.Arches))
		}
		if !r.Traced && (r.Optional || r.Raw != RawNever) {
			t.Errorf("%s: Optional or Raw on a call that is not traced", r.Name)
		}
		if Lookup(r.Name).Row() != r {
			t.Errorf("Lookup(%q) finds another row", r.Name)
		}
		for i, a := range r.Args {
			needsTable := a.Kind == ArgFlags || a.Kind == ArgWhence || a.Kind == ArgOpenHow || a.Kind == ArgCloneArgs
			if needsTable && a.Table == nil {
				t.Errorf("%s: argument %d (%s) of kind %d has no flag table", r.Name, i, a.Name, a.Kind)
			}
			if a.Kind == ArgDirfd && (i+1 >= len(r.Args) || r.Args[i+1].Kind != ArgPath) {
				t.Errorf("%s: dirfd %s is not followed by the path it is for", r.Name, a.Name)
			}
		}
		if err := fits(r); err != "" {
			t.Errorf("%s (%s): %s", r.Name, r.Effect, err)
		}
	}
	if Lookup("no_such_call") != 0 || Call(0).Effect() != None || Call(0).Name() != "" {
		t.Error("an unknown name must give the zero Call, of class None")
	}
}

func missing(s Arches) []Arch {
	var out []Arch
	for a := AMD64; a < numArches; a++ {
		if !s.Has(a) {
			out = append(out, a)
		}
	}
	return out
}

// fits says what a row of its effect class lacks that the model reads.
func fits(r *Row) string {
	switch r.Effect {
	case ReadFD, ReadAt, Seek, Fsync, Fdatasync, Syncfs, SyncFileRange, Fchdir, Close, Dup, Fcntl, Fallocate, Ioctl:
		if r.FD() < 0 {
			return "no fd argument"
		}
	case WriteFD, WriteAt:
		if r.FD() < 0 || r.Data() < 0 || r.Args[r.Data()].Kind == ArgMsg {
			return "no fd, or no data or iovec argument"
		}
		if (r.Effect == WriteAt) != (r.Offset() >= 0) {
			return "a write at an offset needs its offset, and only it"
		}
	case CopyInto:
		if r.FD() < 0 {
			return "no fd to copy into"
		}
	case Truncate:
		if r.FD() < 0 && r.Path() < 0 || r.Pos(ArgSize) < 0 {
			return "no file or no length"
		}
	case Open, Mkdir, Unlink, Rmdir, Chdir, Chroot, Mknod, Bind, Stat, Symlink:
		if r.Path() < 0 && r.FD() < 0 {
			return "no path"
		}
	case Rename, Link:
		if r.Path() < 0 || r.Path2() < 0 {
			return "not two paths"
		}
	case Pipe:
		if r.Pos(ArgFDPair) < 0 {
			return "no fd pair"
		}
	case Mmap:
		if r.FD() < 0 || r.PosOf(ProtFlags) < 0 || r.PosOf(MmapFlags) < 0 {
			return "no fd, prot or flags"
		}
	case Msync:
		if r.Pos(ArgAddr) < 0 || r.PosOf(MsyncFlags) < 0 {
			return "no address or flags"
		}
	case Getcwd:
		if r.Pos(ArgBuf) < 0 {
			return "no buffer"
		}
	}
	if r.Effect == Open && r.Flags() >= 0 && r.Args[r.Flags()].Table != OpenFlags {
		return "an open's flags must be open flags"
	}
	if r.RetFD && r.Path() < 0 {
		return "returns an fd on its path, but names none"
	}
	return ""
}

// TestEffectsHaveRows: every effect class is some call's.
func TestEffectsHaveRows(t *testing.T) {
	has := map[Effect]bool{}
	for _, r := range Rows() {
		has[r.Effect] = true
	}
	for e := None; e < numEffects; e++ {
		if !has[e] {
			t.Errorf("no row has effect %s", e)
		}
		if e.String() == "" {
			t.Errorf("effect %d has no name", e)
		}
	}
}

// TestPositions pins the positions the model reads of a few calls, as
// strace prints them.
func TestPositions(t *testing.T) {
	for _, tc := range []struct {
		name                                 string
		fd, dirfd, path, dirfd2, path2, data int
		offset, offPtr, offOut, flags, stat  int
	}{
		{"openat", -1, 0, 1, -1, -1, -1, -1, -1, -1, 2, -1},
		{"creat", -1, -1, 0, -1, -1, -1, -1, -1, -1, -1, -1},
		{"pwrite64", 0, -1, -1, -1, -1, 1, 3, -1, -1, -1, -1},
		{"pwritev2", 0, -1, -1, -1, -1, 1, 3, -1, -1, 4, -1},
		{"renameat2", -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, -1},
		{"symlinkat", -1, 1, 2, -1, -1, -1, -1, -1, -1, -1, -1},
		{"copy_file_range", 2, -1, -1, -1, -1, -1, -1, 3, -1, -1, -1},
		{"sendfile", 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
		{"splice", 2, -1, -1, -1, -1, -1, -1, 3, -1, -1, -1},
		{"mmap", 4, -1, -1, -1, -1, -1, 5, -1, -1, 2, -1},
		{"newfstatat", -1, 0, 1, -1, -1, -1, -1, -1, -1, 3, 2},
		{"statx", -1, 0, 1, -1, -1, -1, -1, -1, -1, 2, 4},
		{"_llseek", 0, -1, -1, -1, -1, -1, 1, -1, 2, -1, -1},
		{"recvmsg", -1, -1, -1, -1, -1, 1, -1, -1, -1, -1, -1},
	} {
		r := Lookup(tc.name).Row()
		got := []int{r.FD(), r.Dirfd(), r.Path(), r.Dirfd2(), r.Path2(), r.Data(), r.Offset(), r.OffsetPtr(), r.OffsetOut(), r.Flags(), r.Stat()}
		want := []int{tc.fd, tc.dirfd, tc.path, tc.dirfd2, tc.path2, tc.data, tc.offset, tc.offPtr, tc.offOut, tc.flags, tc.stat}
		if !slices.Equal(got, want) {
			t.Errorf("%s: positions fd, dirfd, path, dirfd2, path2, data, offset, offPtr, offOut, flags, stat = %v, want %v", tc.name, got, want)
		}
	}
}

// TestFlagTables: each table's single-bit names give a translation that
// is one to one on every architecture, aliases agree, and a multi-bit
// name is made of single-bit names of the same architecture or means the
// same everywhere.
func TestFlagTables(t *testing.T) {
	for _, tab := range flagTables {
		for a := AMD64; a < numArches; a++ {
			byBit := map[uint64]string{}
			for _, f := range tab.Flags() {
				v := f.on(a)
				if v == Absent || v == 0 {
					continue
				}
				if tab.enum {
					continue
				}
				if bits.OnesCount64(v) == 1 {
					if other, ok := byBit[v]; ok && canonOf(f) != tab.canon[other] {
						t.Errorf("%s on %s: %s and %s share bit %#x but differ in crashsim's bits", tab.Name(), a, f.Name, other, v)
					}
					byBit[v] = f.Name
					if got := tab.FromArch(v, a); got != canonOf(f) {
						t.Errorf("%s on %s: %s (%#x) reads as %#x, want %#x", tab.Name(), a, f.Name, v, got, canonOf(f))
					}
					continue
				}
				if got := tab.FromArch(v, a); got != canonOf(f) {
					t.Errorf("%s on %s: %s (%#x) reads as %#x, want %#x: a multi-bit name must be made of the architecture's own bits", tab.Name(), a, f.Name, v, got, canonOf(f))
				}
			}
		}
		if tab.enum {
			for _, f := range tab.Flags() {
				vals := map[uint64]bool{}
				for a := AMD64; a < numArches; a++ {
					if v := f.on(a); v != Absent {
						vals[v] = true
					}
				}
				if len(vals) != 1 {
					t.Errorf("%s: %s has different values on different architectures, which an enum cannot translate", tab.Name(), f.Name)
				}
			}
		}
	}
}

// flagTables are the tables the tests go through.
var flagTables = []*FlagTable{OpenFlags, AtFlags, RenameFlags, FallocFlags, RWFFlags, FcntlCmds, FDFlags, CloseRangeFlags,
	SeekWhence, ProtFlags, MmapFlags, MsyncFlags, SyncFileRangeFlags, CloneFlags}

// TestFlagTablesListed: every table a row uses is one the tests go
// through.
func TestFlagTablesListed(t *testing.T) {
	for _, r := range Rows() {
		for _, a := range r.Args {
			if a.Table != nil && !slices.Contains(flagTables, a.Table) {
				t.Errorf("%s: table %s is not in flagTables", r.Name, a.Table.Name())
			}
		}
	}
}

// TestBits: names decode the same on every architecture; numbers decode
// with the architecture's values.
func TestBits(t *testing.T) {
	for _, tc := range []struct {
		text   string
		arch   Arch
		want   uint64
		wantOK bool
	}{
		{"O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", Unknown, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, true},
		{"O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", ARM64, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, true},
		{"O_RDONLY|O_DIRECT", ARM64, O_DIRECT, true},
		{"0x80241", AMD64, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, true},
		{"0x4000", AMD64, O_DIRECT, true},
		{"0x4000", I386, O_DIRECT, true},
		{"0x4000", ARM64, O_DIRECTORY, true},
		{"0x10000", ARM64, O_DIRECT, true},
		{"0x10000", AMD64, O_DIRECTORY, true},
		{"0x10000", Unknown, O_DIRECTORY, true},
		{"0x8000", ARM64, O_NOFOLLOW, true},
		{"0x20000", ARM64, O_LARGEFILE, true},
		{"0x20000", AMD64, O_NOFOLLOW, true},
		{"020040000", ARM64, O_TMPFILE, true}, // __O_TMPFILE|O_DIRECTORY as arm64 has them
		{"O_RDWR|0x10000", ARM64, O_RDWR | O_DIRECT, true},
		{"O_WRONLY|O_BOGUS", AMD64, O_WRONLY, false},
		{"", AMD64, 0, true},
	} {
		got, ok := OpenFlags.Bits(tc.text, tc.arch)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("OpenFlags.Bits(%q, %s) = %#o, %v; want %#o, %v", tc.text, tc.arch, got, ok, tc.want, tc.wantOK)
		}
	}
	if got, _ := FcntlCmds.Bits("1030", ARM64); got != F_DUPFD_CLOEXEC {
		t.Errorf("fcntl command 1030 on arm64 = %d", got)
	}
	if got, _ := MmapFlags.Bits("MAP_SHARED|MAP_FIXED", ARM64); got&MAP_TYPE != MAP_SHARED {
		t.Errorf("MAP_SHARED|MAP_FIXED: type %#x", got&MAP_TYPE)
	}
}

// TestAmbiguous: only numbers whose bits move between architectures are
// ambiguous.
func TestAmbiguous(t *testing.T) {
	for text, want := range map[string]bool{
		"0x80241":           false, // O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC: the same bits everywhere
		"O_RDONLY|O_DIRECT": false,
		"0x90800":           true, // O_DIRECTORY on amd64, O_DIRECT on arm64
		"0x4000":            true,
		"O_RDONLY|0x8000":   true,
		"0":                 false,
	} {
		if got := OpenFlags.Ambiguous(text); got != want {
			t.Errorf("OpenFlags.Ambiguous(%q) = %v", text, got)
		}
	}
	for _, tab := range flagTables {
		if tab != OpenFlags && tab.Varies() {
			t.Errorf("%s varies between architectures: check its values, and that the watcher reads it", tab.Name())
		}
	}
}

// TestEvidence: the calls a trace holds and its personality lines narrow
// down its architecture.
func TestEvidence(t *testing.T) {
	for _, tc := range []struct {
		calls []string
		modes []string
		want  Arch
	}{
		{nil, nil, Unknown},
		{[]string{"openat", "write", "fsync"}, nil, Unknown},
		{[]string{"newfstatat"}, nil, Unknown}, // amd64 or arm64
		{[]string{"execve", "arch_prctl", "openat", "newfstatat"}, nil, AMD64},
		{[]string{"open", "rename"}, nil, AMD64}, // x86, with the values amd64 and i386 share
		{[]string{"execve", "mmap2", "_llseek"}, nil, I386},
		{[]string{"arch_prctl", "newfstatat", "mmap2"}, nil, AMD64}, // a 32-bit program under a 64-bit shell
		{[]string{"mmap2", "newfstatat"}, nil, AMD64},               // the 32-bit process's lines first
		{[]string{"newfstatat", "mmap2", "openat"}, nil, AMD64},
		{[]string{"mmap2"}, []string{"AArch64"}, I386}, // evidence against itself: the first stands
		{[]string{"pread", "openat"}, nil, Unknown},    // no architecture crashsim reads prints pread
		{nil, []string{"x32"}, AMD64},
		{nil, []string{"AArch64"}, ARM64},
		{[]string{"openat"}, []string{"32-bit"}, ARM64},
		{nil, []string{"32 bit", "64 bit"}, Unknown},
		{[]string{"newfstatat"}, []string{"AArch64"}, ARM64},
	} {
		var e Evidence
		for _, c := range tc.calls {
			e.Call(Lookup(c))
		}
		for _, m := range tc.modes {
			e.Personality(m)
		}
		if got := e.Arch(); got != tc.want {
			t.Errorf("calls %v, modes %v: Arch = %s, want %s", tc.calls, tc.modes, got, tc.want)
		}
	}
}

func TestParseArch(t *testing.T) {
	for s, want := range map[string]Arch{"amd64": AMD64, "x86_64": AMD64, "arm64": ARM64, "aarch64": ARM64, "386": I386, "i686": I386} {
		if got, err := ParseArch(s); err != nil || got != want {
			t.Errorf("ParseArch(%q) = %s, %v", s, got, err)
		}
		if want.String() != "amd64" && want.String() != "arm64" && want.String() != "386" {
			t.Errorf("%d.String() = %q", want, want.String())
		}
	}
	if _, err := ParseArch("riscv64"); err == nil {
		t.Error("riscv64 parsed")
	}
}
