package inputfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpen: a regular file, and a link to one, open from either origin
// and read as they are.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	os.WriteFile(name, []byte("content"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(name, link)
	for _, n := range []string{name, link} {
		for _, o := range []Origin{Found, Named} {
			f, err := Open(n, o)
			if err != nil {
				t.Fatalf("Open(%s, %d): %v", n, o, err)
			}
			b, err := ReadAll(f, 100)
			f.Close()
			if err != nil || string(b) != "content" {
				t.Errorf("Open(%s, %d) read %q, %v", n, o, b, err)
			}
		}
	}
	if _, err := Open(filepath.Join(dir, "missing"), Named); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestAdversarialNotFile: devices, a directory, a named pipe (which
// nothing writes to: an open that blocked would hang the test) and files
// of /proc are refused from either origin, directly or through a link,
// saying what they are; none is read.
func TestAdversarialNotFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"/dev/zero":         "a character device",
		"/dev/urandom":      "a character device",
		dir:                 "a directory",
		fifo:                "a named pipe",
		"/proc/self/status": "a file of /proc",
		"/proc/kcore":       "a file of /proc",
	} {
		if _, err := os.Stat(name); err != nil {
			continue // no /proc/kcore in some containers
		}
		link := filepath.Join(dir, "link-"+strings.ReplaceAll(name, "/", "_"))
		if err := os.Symlink(name, link); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{name, link} {
			for _, o := range []Origin{Found, Named} {
				f, err := Open(n, o)
				if err == nil {
					f.Close()
					t.Errorf("Open(%s, %d): no error", n, o)
					continue
				}
				var nf *NotFileError
				if !errors.As(err, &nf) || !errors.Is(err, ErrNotFile) || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), n+" is ") {
					t.Errorf("Open(%s, %d): %v, want a NotFileError saying %q", n, o, err, want)
				}
			}
		}
	}
}

// TestPipe: a pipe the shell made (here os.Pipe, read as /dev/fd/N, as
// bash's <(cmd) gives it) is read when named on the command line, and
// refused when crashsim found it.
func TestPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write([]byte("piped"))
		w.Close()
	}()
	name := "/proc/self/fd/" + itoa(int(r.Fd()))
	if _, err := Open(name, Found); !errors.Is(err, ErrNotFile) || !strings.Contains(err.Error(), "named on the command line") {
		t.Errorf("a found pipe: %v, want a refusal", err)
	}
	f, err := Open(name, Named)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := ReadAll(f, 100)
	if err != nil || string(b) != "piped" {
		t.Errorf("read %q, %v", b, err)
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestAdversarialReadAll: a file over the limit is refused without
// reading it (a regular file says its size) or after limit+1 bytes (a
// pipe does not).
func TestAdversarialReadAll(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "big")
	os.WriteFile(name, bytes.Repeat([]byte("x"), 4097), 0o644)
	f, _ := Open(name, Named)
	defer f.Close()
	if _, err := ReadAll(f, 4096); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "larger than 4 KiB") {
		t.Errorf("a file of 4097 bytes, limit 4096: %v", err)
	}
	if pos, _ := f.Seek(0, 1); pos != 0 {
		t.Errorf("read %d bytes of a file known to be too large", pos)
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	go func() {
		// An endless writer: ReadAll must stop on its own.
		for {
			if _, err := w.Write(make([]byte, 1<<16)); err != nil {
				return
			}
		}
	}()
	p, err := Open("/proc/self/fd/"+itoa(int(r.Fd())), Named)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadAll(p, 1<<20)
	p.Close()
	r.Close()
	w.Close()
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("an endless pipe: %v, want ErrTooLarge", err)
	}
}

// TestCapped: a stream is read whole up to its limit, and an error
// follows the limit's last byte.
func TestCapped(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{10, 11} {
		name := filepath.Join(dir, "f")
		os.WriteFile(name, bytes.Repeat([]byte("x"), n), 0o644)
		f, _ := Open(name, Named)
		b, err := io.ReadAll(Capped(f, 10))
		f.Close()
		switch {
		case n == 10 && (err != nil || len(b) != 10):
			t.Errorf("10 bytes, limit 10: read %d, %v", len(b), err)
		case n == 11 && (!errors.Is(err, ErrTooLarge) || len(b) != 10):
			t.Errorf("11 bytes, limit 10: read %d, %v; want 10 and ErrTooLarge", len(b), err)
		}
	}
}
