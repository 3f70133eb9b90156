package explore

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCopyKeepsHoles: a state file a trace wrote far into (one pwrite at
// 1 GiB) is copied as it is, a hole and a byte, by both copies explore
// makes: copied whole, each state took a gigabyte of the work directory.
// A zeroed range (fallocate's ZERO_RANGE, replayed) takes no space either.
func TestCopyKeepsHoles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	const far = 1 << 30
	if _, err := f.WriteAt([]byte("a"), far); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if blocks(t, src) > 1024 {
		t.Skip("this filesystem keeps no holes")
	}
	check := func(name string) {
		t.Helper()
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != far+1 {
			t.Errorf("%s: size %d, want %d", filepath.Base(name), fi.Size(), far+1)
		}
		if b := blocks(t, name); b > 1024 {
			t.Errorf("%s: %d blocks of 512 bytes, want the hole kept", filepath.Base(name), b)
		}
		g, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		b := make([]byte, 2)
		if n, _ := g.ReadAt(b, far-1); n != 2 || b[0] != 0 || b[1] != 'a' {
			t.Errorf("%s: bytes %q at the end, want \"\\x00a\"", filepath.Base(name), b[:n])
		}
	}
	if err := copyFile(src, filepath.Join(dir, "copy")); err != nil {
		t.Fatal(err)
	}
	check(filepath.Join(dir, "copy"))
	if _, err := copyHashing(src, filepath.Join(dir, "hashed")); err != nil {
		t.Fatal(err)
	}
	check(filepath.Join(dir, "hashed"))

	z, err := os.OpenFile(filepath.Join(dir, "zeroed"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := zeroRange(z, 0, far, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := z.WriteAt([]byte("a"), far); err != nil {
		t.Fatal(err)
	}
	check(z.Name())
}

func blocks(t *testing.T, name string) int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(name, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks
}
