package model_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		if err := os.WriteFile(full, nil, 0o644); err != nil {
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
	buf.Reset()
	if _, err := model.WriteInitialLimit(&buf, root, 5); !errors.Is(err, model.ErrTooManyEntries) {
		t.Errorf("WriteInitialLimit(5) on 6 entries: %v, want ErrTooManyEntries", err)
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
