package parser

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
)

// readArch reads a trace with Options.Arch set to arch and returns its
// events.
func readArch(t *testing.T, path string, arch Arch) []*Event {
	t.Helper()
	s, err := Open(path, Options{Arch: arch})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var evs []*Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

// TestArm64TraceDecodes: the hand-made arm64 trace, recorded with -X raw,
// decodes with arm64's values when told its architecture, and with
// amd64's, marked unknown, when not: the trace itself does not say.
func TestArm64TraceDecodes(t *testing.T) {
	const trace = "../fixtures/arch/arm64-raw.strace"
	find := func(evs []*Event, name, path string) *Event {
		for _, ev := range evs {
			if ev.Name == name && ev.Arg(1).Str == path {
				return ev
			}
		}
		t.Fatalf("no %s of %s", name, path)
		return nil
	}
	arm := readArch(t, trace, syscalls.ARM64)
	tmp := find(arm, "openat", "/srv/app/data.tmp")
	dir := find(arm, "openat", "/srv/app")
	if tmp.Arch != syscalls.ARM64 || tmp.Call.Effect() != syscalls.Open {
		t.Errorf("openat: Arch %s, effect %s", tmp.Arch, tmp.Call.Effect())
	}
	if got, ok := tmp.Bits(2, OpenFlags); !ok || got != syscalls.O_WRONLY|syscalls.O_CREAT|syscalls.O_TRUNC|syscalls.O_CLOEXEC|syscalls.O_DIRECT {
		t.Errorf("data.tmp's flags on arm64 = %#o, %v; want O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC|O_DIRECT", got, ok)
	}
	if got, _ := dir.Bits(2, OpenFlags); got != syscalls.O_RDONLY|syscalls.O_CLOEXEC|syscalls.O_DIRECTORY {
		t.Errorf("the directory's flags on arm64 = %#o; want O_CLOEXEC|O_DIRECTORY", got)
	}

	unknown := readArch(t, trace, syscalls.Unknown)
	for _, ev := range unknown {
		if ev.Arch != syscalls.Unknown {
			t.Fatalf("line %d: the trace shows no architecture, yet it is read as %s", ev.Pos.Line, ev.Arch)
		}
	}
	tmp = find(unknown, "openat", "/srv/app/data.tmp")
	if got, _ := tmp.Bits(2, OpenFlags); got&syscalls.O_DIRECT != 0 || got&syscalls.O_DIRECTORY == 0 {
		t.Errorf("data.tmp's flags read as amd64's = %#o; want O_DIRECTORY and no O_DIRECT", got)
	}
}

// TestArchFromTrace: events carry the architecture the trace had shown by
// their line, from calls only some architectures have and from
// personality lines, with or without a pid and a time before them, in
// one file or across an -ff set.
func TestArchFromTrace(t *testing.T) {
	arch := func(evs []*Event) string {
		var b []string
		for _, ev := range evs {
			b = append(b, ev.Name+":"+ev.Arch.String())
		}
		return strings.Join(b, " ")
	}
	for _, tc := range []struct {
		name, trace, want string
	}{
		{"calls", "1 openat(AT_FDCWD, \"a\", O_RDONLY) = 3\n1 arch_prctl(ARCH_SET_FS, 0x7f) = 0\n1 newfstatat(3, \"\", {st_size=1}, AT_EMPTY_PATH) = 0\n1 close(3) = 0\n",
			"openat:unknown arch_prctl:amd64 newfstatat:amd64 close:amd64"},
		{"32-bit calls", "mmap2(NULL, 4096, PROT_READ, MAP_PRIVATE, 3, 0) = 0xf7f00000\nclose(3) = 0\n",
			"mmap2:386 close:386"},
		{"x32 personality with pid and time", "9 1.5 [ Process PID=9 runs in x32 mode. ]\n9 1.6 close(3) = 0\n",
			"close:amd64"},
		{"old arm64 personality", "[ Process PID=9 runs in AArch64 mode. ]\nclose(3) = 0\n",
			"close:arm64"},
		{"32 bit mode says nothing of the host", "[pid 9] [ Process PID=9 runs in 32 bit mode. ]\n[pid 9] close(3) = 0\n",
			"close:unknown"},
	} {
		path := filepath.Join(t.TempDir(), "trace")
		if err := os.WriteFile(path, []byte(tc.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := arch(readArch(t, path, syscalls.Unknown)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if got := arch(readArch(t, path, syscalls.ARM64)); strings.Contains(got, "amd64") || strings.Contains(got, "386") || strings.Contains(got, "unknown") {
			t.Errorf("%s with Options.Arch arm64: %s", tc.name, got)
		}
	}

	// An -ff set: one member shows x86-64, the other's events read so too.
	dir := t.TempDir()
	prefix := filepath.Join(dir, "t")
	os.WriteFile(prefix+".10", []byte("1700000000.000001 arch_prctl(ARCH_SET_FS, 0x7f) = 0\n1700000000.000002 newfstatat(AT_FDCWD, \"x\", {st_size=1}, 0) = 0\n"), 0o644)
	os.WriteFile(prefix+".11", []byte("1700000000.000003 openat(AT_FDCWD, \"y\", 0x4000) = 3\n"), 0o644)
	if got := arch(readArch(t, prefix, syscalls.Unknown)); got != "arch_prctl:amd64 newfstatat:amd64 openat:amd64" {
		t.Errorf("-ff set: %s", got)
	}
}

// TestCallRows: a call's event carries its row, joined halves included;
// other events and unknown names carry none.
func TestCallRows(t *testing.T) {
	evs, _, _ := parseText(t, "5 fsync(3 <unfinished ...>\n6 frobnicate(1) = 0\n5 <... fsync resumed>) = 0\n6 --- SIGCHLD {si_signo=SIGCHLD} ---\n6 +++ exited with 0 +++\n")
	want := []syscalls.Effect{syscalls.None, syscalls.Fsync, syscalls.None, syscalls.None}
	if len(evs) != len(want) {
		t.Fatalf("%d events", len(evs))
	}
	for i, ev := range evs {
		if ev.Call.Effect() != want[i] || (ev.Call != 0) != (ev.Name == "fsync") {
			t.Errorf("%s (%s): call %q of class %s", ev.Name, ev.Kind, ev.Call.Name(), ev.Call.Effect())
		}
	}
}
