package parser

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDigest: a trace's digest is its bytes', an -ff set's its members',
// and a pipe has none.
func TestDigest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	digest := func(p string) string {
		d, err := Digest(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(d, "sha256:") || len(d) != 7+64 {
			t.Fatalf("digest %q", d)
		}
		return d
	}
	a, b := digest(write("a", "fsync(3) = 0\n")), digest(write("b", "fsync(4) = 0\n"))
	if a == b || a != digest(write("a2", "fsync(3) = 0\n")) {
		t.Errorf("digests %s, %s: not the bytes'", a, b)
	}
	write("set.10", "1.0 fsync(3) = 0\n")
	write("set.11", "2.0 fsync(4) = 0\n")
	one := digest(filepath.Join(dir, "set"))
	// The same bytes in other members are another trace.
	write("set.10", "1.0 fsync(3) = 0\n2.0 fsync(4) = 0\n")
	write("set.11", "")
	if one == digest(filepath.Join(dir, "set")) {
		t.Error("bytes moved between members keep the digest")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Close()
	if d, err := Digest("/dev/fd/" + strconv.Itoa(int(r.Fd()))); err == nil {
		t.Errorf("a pipe's digest: %s", d)
	}
}
