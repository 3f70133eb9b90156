package replacefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeString(s string) func(*os.File) error {
	return func(f *os.File) error { _, err := f.WriteString(s); return err }
}

// TestWrite: durable or not, the name holds the new content whole with the
// asked mode and no temp file is left; a failed write leaves the old file.
// (Whether the fsyncs happen is not visible to a test; report's test and
// the oracle cover the durable use.)
func TestWrite(t *testing.T) {
	for _, opt := range []Options{{Durable: true}, {Perm: 0o600}} {
		dir := t.TempDir()
		name := filepath.Join(dir, "f")
		os.WriteFile(name, []byte("old"), 0o666)
		if err := Write(name, writeString("new"), opt); err != nil {
			t.Fatal(err)
		}
		want := opt.Perm
		if want == 0 {
			want = 0o644
		}
		b, _ := os.ReadFile(name)
		fi, _ := os.Stat(name)
		entries, _ := os.ReadDir(dir)
		if string(b) != "new" || fi.Mode().Perm() != want || len(entries) != 1 {
			t.Errorf("%+v: content %q, mode %v, %d entries; want new, %v, no temp", opt, b, fi.Mode().Perm(), len(entries), want)
		}
		if err := Write(name, func(f *os.File) error { return os.ErrInvalid }, opt); err == nil {
			t.Errorf("%+v: a failed write reported no error", opt)
		}
		b, _ = os.ReadFile(name)
		entries, _ = os.ReadDir(dir)
		if string(b) != "new" || len(entries) != 1 {
			t.Errorf("%+v, after a failed write: content %q, %d entries", opt, b, len(entries))
		}
	}
}

// TestAdversarialSymlink: a link planted at the name (issue 14, case 1) is
// refused and its target keeps its content; so is a link that appears
// between Create and Commit.
func TestAdversarialSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "important")
	os.WriteFile(target, []byte("precious"), 0o600)
	name := filepath.Join(dir, "run.strace")
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
	err := Write(name, writeString("trace"), Options{})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("write through a link: err %v, want a refusal naming the link", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("the link's target holds %q", b)
	}

	late := filepath.Join(dir, "late")
	f, err := Create(late, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("trace")
	os.Symlink(target, late)
	if err := f.Commit(); !errors.Is(err, ErrRefused) {
		t.Errorf("a link planted before Commit: err %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("the late link's target holds %q", b)
	}
	if _, err := os.Stat(f.TempName()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temp file is left after a refused commit: %v", err)
	}
}

// TestAdversarialNotRegular: a directory, a fifo or a device at the name
// is refused, nothing is left beside it, and a missing directory is one
// error that names it.
func TestAdversarialNotRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{sub, fifo, "/dev/null"} {
		err := Write(name, writeString("x"), Options{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: err %v, want a refusal", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries in the directory, want the 2 made by the test", len(entries))
	}
	err := Write("/nodir/x.strace", writeString("x"), Options{})
	if err == nil || err.Error() != "cannot write /nodir/x.strace: directory /nodir does not exist" {
		t.Errorf("missing directory: err %v", err)
	}
}

// TestAdversarialCreateNew: the streaming writer refuses a planted link,
// replaces a regular file by a new one with the asked mode, and does not
// open a file that appears at the name after its check.
func TestAdversarialCreateNew(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "important")
	os.WriteFile(target, []byte("precious"), 0o644)
	link := filepath.Join(dir, "link.strace")
	os.Symlink(target, link)
	if _, err := CreateNew(link, 0o600); !errors.Is(err, ErrRefused) {
		t.Errorf("CreateNew through a link: err %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("the link's target holds %q", b)
	}
	old := filepath.Join(dir, "old.strace")
	os.WriteFile(old, []byte("last run"), 0o666)
	f, err := CreateNew(old, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	f.Close()
	b, _ := os.ReadFile(old)
	fi, _ := os.Stat(old)
	if string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file: %q mode %v, want new 0600", b, fi.Mode().Perm())
	}
	if _, err := CreateNew("/nodir/x.strace", 0o600); err == nil || err.Error() != "cannot write /nodir/x.strace: directory /nodir does not exist" {
		t.Errorf("missing directory: err %v", err)
	}
}

// TestCheckEscapesNames: a symbolic link planted where a report goes,
// whose target holds a newline and terminal escapes, is refused with the
// target escaped: it must not print a forged line of crashsim's, nor
// retitle or clear the terminal.
func TestCheckEscapesNames(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "report.txt")
	if err := os.Symlink("/x\n/tmp/t.strace:1: fsync-failed: FORGED\x1b]0;pwned\a\x1b[2J", name); err != nil {
		t.Fatal(err)
	}
	err := Check(name)
	if err == nil || !errors.Is(err, ErrRefused) {
		t.Fatalf("Check(%s) = %v, want it refused", name, err)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\n\x1b\a") || !strings.Contains(msg, `\n/tmp/t.strace:1: fsync-failed: FORGED\x1b]0;pwned\x07\x1b[2J`) {
		t.Errorf("message %q: want the target escaped", msg)
	}
}
