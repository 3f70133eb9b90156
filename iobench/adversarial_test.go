package iobench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
	if err := saveAtomic(c.Path, filepath.Join(dir, ".bench.bin.iobench-tmp"), make([]byte, 10)); err == nil {
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

// runGuarded is run, failing the test instead of hanging when Run blocks
// (an open of a fifo waits for a reader that never comes).
func runGuarded(t *testing.T, c Config) (string, []string, error) {
	t.Helper()
	type result struct {
		out   string
		warns []string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		var out bytes.Buffer
		var warns []string
		err := Run(c, &out, func(msg string) { warns = append(warns, msg) })
		done <- result{out.String(), warns, err}
	}()
	select {
	case r := <-done:
		return r.out, r.warns, r.err
	case <-time.After(time.Minute):
		t.Fatalf("%s %s: Run has not returned after a minute: blocked opening it?", c.Mode, c.Path)
		return "", nil, nil
	}
}

func entryNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestAdversarialNotRegular: a FILE that is a directory, a fifo or a device
// is refused before it is opened, with or without Force, as a usage error
// (exit 2) that creates nothing. A fifo used to block the run forever under
// --force, a directory was an I/O error (exit 1), and a device under
// --force was written (issue 28).
func TestAdversarialNotRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "adir")
	fifo := filepath.Join(dir, "fifo")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{sub, sub + " is a directory"},
		{fifo, fifo + " is a fifo"},
		{"/dev/null", "/dev/null is a character device"},
	}
	// A block device node with no driver behind it (0:0): opening it fails
	// with ENXIO, so even a broken refusal cannot write to a disk.
	blk := filepath.Join(dir, "blk")
	if err := unix.Mknod(blk, unix.S_IFBLK|0o600, int(unix.Mkdev(0, 0))); err == nil {
		cases = append(cases, struct{ path, want string }{blk, blk + " is a block device"})
	} else {
		t.Logf("no block device case: mknod: %v", err)
	}
	before := entryNames(t, dir)
	for _, tc := range cases {
		for _, m := range []Mode{Buffered, Direct, ReplaceFsync, ReplaceAtomic} {
			for _, force := range []bool{false, true} {
				c := DefaultConfig()
				c.Mode, c.Path, c.SizeMB, c.Count, c.Force = m, tc.path, 1, 2, force
				_, warns, err := runGuarded(t, c)
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s force=%t %s: err = %v, want a *UsageError saying %q", m, force, tc.path, err, tc.want)
				}
				if len(warns) > 0 {
					t.Errorf("%s force=%t %s: warnings %q before the refusal", m, force, tc.path, warns)
				}
			}
		}
	}
	if after := entryNames(t, dir); !slices.Equal(before, after) {
		t.Errorf("entries %q after the refusals, want %q", after, before)
	}
	if names := entryNames(t, sub); len(names) != 0 {
		t.Errorf("the directory FILE now holds %q", names)
	}
}

// TestAdversarialBlockDeviceInDev: a block device under /dev is refused as
// what it is; it used to draw the warning "/dev is on tmpfs", since the
// check looked at the filesystem /dev/sda's node sits on.
func TestAdversarialBlockDeviceInDev(t *testing.T) {
	entries, _ := os.ReadDir("/dev")
	var dev string
	for _, e := range entries {
		if e.Type()&fs.ModeDevice != 0 && e.Type()&fs.ModeCharDevice == 0 {
			dev = filepath.Join("/dev", e.Name())
			break
		}
	}
	if dev == "" {
		t.Skip("no block device in /dev")
	}
	c := DefaultConfig()
	c.Path, c.SizeMB = dev, 1 // no Force: nothing would be written even before the fix
	_, warns, err := runGuarded(t, c)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), dev+" is a block device") {
		t.Errorf("err = %v, want a *UsageError saying %s is a block device", err, dev)
	}
	if len(warns) > 0 {
		t.Errorf("warnings %q: a refused target has no filesystem to warn about", warns)
	}
}

// TestAdversarialCreateDirNotOurs: the create modes' FILE.d holding a file
// iobench did not make, or being a file itself, is a usage error (exit 2,
// it was an I/O error) that touches nothing.
func TestAdversarialCreateDirNotOurs(t *testing.T) {
	for name, plant := range map[string]func(d string) error{
		"foreign file": func(d string) error {
			if err := os.Mkdir(d, 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(d, "notes.txt"), []byte("precious"), 0o644)
		},
		"foreign file beside old runs": func(d string) error {
			if err := os.Mkdir(d, 0o755); err != nil {
				return err
			}
			os.WriteFile(filepath.Join(d, "f000000"), nil, 0o644)
			return os.WriteFile(filepath.Join(d, "notes.txt"), []byte("precious"), 0o644)
		},
		"subdirectory": func(d string) error { return os.MkdirAll(filepath.Join(d, "f000001"), 0o755) },
		"a file":       func(d string) error { return os.WriteFile(d, []byte("precious"), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			c := inTemp(t, func(c *Config) { c.Mode = CreateFileDir })
			d := createDir(c.Path)
			if err := plant(d); err != nil {
				t.Fatal(err)
			}
			parent := entryNames(t, filepath.Dir(d))
			var inside []string
			if fi, _ := os.Stat(d); fi.IsDir() {
				inside = entryNames(t, d)
			}
			_, _, err := run(t, c)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a *UsageError", err)
			}
			if got := entryNames(t, filepath.Dir(d)); !slices.Equal(got, parent) {
				t.Errorf("beside FILE.d: %q, want %q", got, parent)
			}
			if inside != nil {
				if got := entryNames(t, d); !slices.Equal(got, inside) {
					t.Errorf("in FILE.d: %q, want %q", got, inside)
				}
			}
		})
	}
}

// TestAdversarialLongInputsCut: a path or a mode name of any length is
// repeated in a message cut to its head and tail, and one with a control
// character is quoted, so that a message stays one readable line.
func TestAdversarialLongInputsCut(t *testing.T) {
	long := strings.Repeat("x", 100000)
	c := DefaultConfig()
	c.Mode = Mode(long)
	_, _, err := run(t, c)
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "(100000 bytes)") {
		t.Errorf("unknown mode: a %d-byte message, want it cut and the length said", len(fmt.Sprint(err)))
	}
	c = DefaultConfig()
	c.Path = filepath.Join(t.TempDir(), "no", long)
	_, _, err = run(t, c)
	if err == nil || len(err.Error()) > 400 || !strings.HasSuffix(err.Error(), ": file name too long") {
		t.Errorf("long path: %.300v (%d bytes), want a short message with the errno", err, len(fmt.Sprint(err)))
	}
	c = inTemp(t, func(c *Config) {})
	c.Path = filepath.Join(filepath.Dir(c.Path), "a\nb")
	os.Mkdir(c.Path, 0o755)
	_, _, err = run(t, c)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `a\nb"`) {
		t.Errorf("a name with a newline: %q, want it quoted on one line", err)
	}
}

// TestAdversarialInterruptRemovesFiles: a run stopped by its context ends
// with ErrInterrupted at its next block, file or save, and removes what it
// made: FILE, or FILE.d and the files in it.
func TestAdversarialInterruptRemovesFiles(t *testing.T) {
	for _, m := range []Mode{Buffered, FsyncEvery, ReplacePlain, ReplaceFsync, CreateFile, CreateRename} {
		t.Run(string(m), func(t *testing.T) {
			c := inTemp(t, func(c *Config) { c.Mode, c.SizeMB, c.Count = m, 64, 1000 })
			dir := filepath.Dir(c.Path)
			r := &runner{cfg: c, out: new(bytes.Buffer)}
			opens := 0
			r.open = func(path string, flags int, perm uint32) (int, error) {
				// Stop once the run has made a few files, or its one file.
				if opens++; opens == 3 || (m == Buffered || m == FsyncEvery) {
					r.stopped.Store(true)
				}
				return unix.Open(path, flags, perm)
			}
			err := r.run()
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("err = %v, want ErrInterrupted", err)
			}
			if opens == 0 {
				t.Fatal("the run opened nothing")
			}
			if names := entryNames(t, dir); len(names) != 0 {
				t.Errorf("left %q", names)
			}
		})
	}
	// Stopped before it starts: nothing is made.
	c := inTemp(t, func(c *Config) { c.Mode = ReplaceAtomic })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RunContext(ctx, c, new(bytes.Buffer), nil); !errors.Is(err, ErrInterrupted) {
		t.Errorf("err = %v, want ErrInterrupted", err)
	}
	if names := entryNames(t, filepath.Dir(c.Path)); len(names) != 0 {
		t.Errorf("left %q", names)
	}
}
