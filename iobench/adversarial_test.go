package iobench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdversarialForeignFile: a file iobench did not write is refused in
// every mode that writes FILE, untouched, unless Force; a file iobench
// wrote is its own to write again (issue 14, case 3).
func TestAdversarialForeignFile(t *testing.T) {
	for _, m := range []Mode{Buffered, FsyncEvery, ReplacePlain, ReplaceFsync, ReplaceAtomic} {
		t.Run(string(m), func(t *testing.T) {
			c := inTemp(t, func(c *Config) { c.Mode = m })
			os.WriteFile(c.Path, []byte("precious"), 0o644)
			_, _, err := run(t, c)
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not written by iobench") {
				t.Fatalf("over a foreign file: err %v, want a *UsageError saying so", err)
			}
			if b, _ := os.ReadFile(c.Path); string(b) != "precious" {
				t.Fatalf("the foreign file now holds %d bytes", len(b))
			}
			c.Force = true
			if _, _, err := run(t, c); err != nil {
				t.Fatalf("with Force: %v", err)
			}
			c.Force = false
			if _, _, err := run(t, c); err != nil {
				t.Errorf("over its own file: %v", err)
			}
			if v, err := getMark(c.Path); err != nil || v != string(m) {
				t.Errorf("mark %q (%v), want %q", v, err, m)
			}
		})
	}
}

// TestAdversarialLinkAtFile: a link at FILE is refused even with Force,
// and its target keeps its content; so is a link at FILE.d.
func TestAdversarialLinkAtFile(t *testing.T) {
	for _, m := range []Mode{Buffered, ReplaceAtomic, CreateFile} {
		c := inTemp(t, func(c *Config) { c.Mode, c.Force = m, true })
		target := filepath.Join(filepath.Dir(c.Path), "target")
		os.WriteFile(target, []byte("precious"), 0o644)
		link := c.Path
		if m == CreateFile {
			os.Mkdir(target+".d", 0o755)
			os.WriteFile(filepath.Join(target+".d", "f000000"), []byte("precious"), 0o644)
			target = filepath.Join(target+".d", "f000000")
			link = createDir(c.Path)
			os.Symlink(filepath.Dir(target), link)
		} else {
			os.Symlink(target, link)
		}
		_, _, err := run(t, c)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: err %v, want a refusal of the link", m, err)
		}
		if b, _ := os.ReadFile(target); string(b) != "precious" {
			t.Errorf("%s: the link's target holds %d bytes", m, len(b))
		}
	}
}

// TestAdversarialAtomicTempName: a link planted at the temp name an
// earlier version used (.NAME.iobench-tmp) is not followed, and each run's
// temp name is new (issue 14, case 2).
func TestAdversarialAtomicTempName(t *testing.T) {
	c := inTemp(t, func(c *Config) { c.Mode = ReplaceAtomic })
	dir := filepath.Dir(c.Path)
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("precious"), 0o644)
	os.Symlink(target, filepath.Join(dir, ".bench.bin.iobench-tmp"))
	if _, _, err := run(t, c); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("the planted link's target holds %d bytes", len(b))
	}
	if fi, err := os.Lstat(c.Path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("FILE after the run: %v %v, want a regular file", fi.Mode(), err)
	}
	a, _ := tempName(c.Path)
	b, _ := tempName(c.Path)
	if a == b || filepath.Dir(a) != dir {
		t.Errorf("temp names %s and %s: want two different names in %s", a, b, dir)
	}
	// A name taken at the temp name is an error, not followed.
	if err := saveAtomic(c.Path, filepath.Join(dir, ".bench.bin.iobench-tmp"), dir, make([]byte, 10)); err == nil {
		t.Error("saveAtomic over a planted link succeeded")
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("saveAtomic wrote through the link: target holds %d bytes", len(b))
	}
}

// TestAdversarialHugeOffset: an offset past any file's end is a usage
// error before anything exists (issue 14, case 3).
func TestAdversarialHugeOffset(t *testing.T) {
	c := inTemp(t, func(c *Config) { c.Offset = 9223372036854775000 })
	_, _, err := run(t, c)
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v, want a *UsageError", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(c.Path)); len(entries) != 0 {
		t.Errorf("%d entries left", len(entries))
	}
}
