package model_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/model"
)

// TestWriteInitialLimit: a listing round-trips through ReadInitial, and a
// tree larger than the limit is refused, not cut short.
func TestWriteInitialLimit(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a", "d/b", "d/e/c"} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// root, a, d, d/b, d/e, d/e/c
	var buf bytes.Buffer
	n, err := model.WriteInitialLimit(&buf, root, 6)
	if err != nil || n != 6 {
		t.Fatalf("WriteInitialLimit(6) = %d, %v; want 6 entries", n, err)
	}
	l, err := model.ReadInitial(&buf, "listing")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "d", "d/b", "d/e", "d/e/c"} {
		if existed, known := l.Existed(filepath.Join(root, p)); !existed || !known {
			t.Errorf("%s: existed %v, known %v; want listed", p, existed, known)
		}
	}
	if existed, known := l.Existed(filepath.Join(root, "new")); existed || !known {
		t.Errorf("new: existed %v, known %v; want known absent", existed, known)
	}
	// Each regular file's size, as a stat at the start would show it;
	// none for a directory.
	for _, p := range []string{"a", "d/b", "d/e/c"} {
		if n, ok := l.Size(filepath.Join(root, p)); !ok || n != int64(len(p)) {
			t.Errorf("%s: size %d, %v; want %d", p, n, ok, len(p))
		}
	}
	if n, ok := l.Size(filepath.Join(root, "d")); ok {
		t.Errorf("the directory d has size %d in the listing, want none", n)
	}
	buf.Reset()
	if _, err := model.WriteInitialLimit(&buf, root, 5); !errors.Is(err, model.ErrTooManyEntries) {
		t.Errorf("WriteInitialLimit(5) on 6 entries: %v, want ErrTooManyEntries", err)
	}
}

// TestListingSizeLines: a "size" line lists its path and gives its size;
// a bad one names its line.
func TestListingSizeLines(t *testing.T) {
	l, err := model.ReadInitial(strings.NewReader("root /d\nsize 12 /d/a\n/d/b\n"), "listing")
	if err != nil {
		t.Fatal(err)
	}
	if existed, known := l.Existed("/d/a"); !existed || !known {
		t.Errorf("/d/a: existed %v, known %v; want listed", existed, known)
	}
	if n, ok := l.Size("/d/a"); !ok || n != 12 {
		t.Errorf("/d/a: size %d, %v; want 12", n, ok)
	}
	if _, ok := l.Size("/d/b"); ok {
		t.Error("/d/b has a size, though its line gave none")
	}
	for _, bad := range []string{"size x /d/a", "size -1 /d/a", "size 12", "size 12 d/a"} {
		_, err := model.ReadInitial(strings.NewReader("root /d\n"+bad+"\n"), "listing")
		if err == nil || !strings.HasPrefix(err.Error(), "listing:2:1: ") {
			t.Errorf("%q: error %v, want one at listing:2:1", bad, err)
		}
	}
}

// TestListingFDs: "fd" lines round-trip, and bad ones name their line.
func TestListingFDs(t *testing.T) {
	var buf bytes.Buffer
	want := []model.InitialFD{
		{FD: 1, Offset: 0, Flags: 0o100001, Path: "/tmp/out.txt"},
		{FD: 2, Offset: 42, Flags: 0o102001, Path: "/tmp/a\nb"},
	}
	for _, f := range want {
		if err := model.WriteFD(&buf, f); err != nil {
			t.Fatal(err)
		}
	}
	l, err := model.ReadInitial(&buf, "listing")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.FDs) != len(want) || l.FDs[0] != want[0] || l.FDs[1] != want[1] {
		t.Errorf("FDs = %+v, want %+v", l.FDs, want)
	}
	for _, bad := range []string{"fd 1 0 /x", "fd one 0 0 /x", "fd 1 -3 0 /x", "fd 1 0 0 rel/x"} {
		_, err := model.ReadInitial(strings.NewReader("# c\n"+bad+"\n"), "l")
		if err == nil || !strings.HasPrefix(err.Error(), "l:2:1: ") {
			t.Errorf("%q: err = %v, want one at l:2:1", bad, err)
		}
	}
}

// TestListingArch: an "arch" line says which machine the listing (and
// its trace) comes from; the flags of its "fd" lines, that machine's
// numbers as /proc/PID/fdinfo shows them, read in crashsim's bits.
func TestListingArch(t *testing.T) {
	var buf bytes.Buffer
	model.WriteArch(&buf, syscalls.ARM64)
	// O_WRONLY|O_APPEND|O_DIRECT|O_LARGEFILE as arm64 numbers them.
	model.WriteFD(&buf, model.InitialFD{FD: 1, Flags: 0o602001, Path: "/tmp/out.bin"})
	l, err := model.ReadInitial(&buf, "listing")
	if err != nil {
		t.Fatal(err)
	}
	if l.Arch != syscalls.ARM64 {
		t.Errorf("Arch = %s", l.Arch)
	}
	want := uint64(syscalls.O_WRONLY | syscalls.O_APPEND | syscalls.O_DIRECT | syscalls.O_LARGEFILE)
	if len(l.FDs) != 1 || l.FDs[0].Flags != want {
		t.Errorf("FDs = %+v, want flags %#o", l.FDs, want)
	}
	// Without an arch line the numbers are amd64's, as before.
	l, err = model.ReadInitial(strings.NewReader("fd 1 0 0200001 /tmp/out.bin\n"), "listing")
	if err != nil || l.Arch != syscalls.Unknown || l.FDs[0].Flags != syscalls.O_WRONLY|syscalls.O_DIRECTORY {
		t.Errorf("no arch line: %+v, %v", l, err)
	}
	if _, err := model.ReadInitial(strings.NewReader("arch sparc\n"), "l"); err == nil || !strings.HasPrefix(err.Error(), "l:1:1: unknown architecture") {
		t.Errorf("arch sparc: err = %v", err)
	}
}
