package parser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAdversarialTraceNotFile: a trace that is a device (a link to
// /dev/zero was read up to the line limit) or a named pipe (an open that
// waited forever) is refused before it is read, and so is a member of an
// -ff set that is one.
func TestAdversarialTraceNotFile(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.strace")
	os.Symlink("/dev/zero", zero)
	fifo := filepath.Join(dir, "fifo.strace")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "set")
	os.WriteFile(prefix+".100", []byte("1700000000.000001 close(3) = 0\n"), 0o644)
	if err := unix.Mkfifo(prefix+".101", 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{zero, "zero.strace is a character device (a link to /dev/zero)"},
		{fifo, "fifo.strace is a named pipe"},
		{prefix, "set.101 is a named pipe"},
	} {
		s, err := Open(tc.path, Options{})
		if err == nil {
			// A member is opened when its turn comes.
			for err == nil {
				_, err = s.Next()
			}
			s.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.path, err, tc.want)
		}
	}
}

// TestSetOf: a file named PREFIX.PID with other PREFIX.PID files beside it
// is one file of an -ff set; alone, or named otherwise, it is a trace.
func TestSetOf(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"t.100", "t.101", "t.102", "t.x", "u.5", "v.log", "w.+7", "w.8"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(n string) string { return filepath.Join(dir, n) }
	for _, tc := range []struct {
		path, prefix string
		others       []string
	}{
		{"t.101", "t", []string{"t.100", "t.102"}},
		{"t.100", "t", []string{"t.101", "t.102"}},
		{"t.x", "", nil},
		{"u.5", "", nil},   // alone: a trace of its own
		{"v.log", "", nil}, // not a pid
		{"w.+7", "", nil},  // not as strace names a member
		{"t", "", nil},     // the prefix itself (parser.IsSet)
	} {
		prefix, others := SetOf(at(tc.path))
		var want []string
		for _, o := range tc.others {
			want = append(want, at(o))
		}
		wantPrefix := ""
		if tc.prefix != "" {
			wantPrefix = at(tc.prefix)
		}
		if prefix != wantPrefix || !slices.Equal(others, want) {
			t.Errorf("SetOf(%s) = %q, %q; want %q, %q", tc.path, prefix, others, wantPrefix, want)
		}
	}
}
