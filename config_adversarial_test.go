package crashsim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// loadWithin is LoadConfig, failing the test instead of hanging it when
// the read does not come back (a fifo used to block it forever).
func loadWithin(t *testing.T, name, dir string) (*Config, error) {
	t.Helper()
	type result struct {
		c   *Config
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := LoadConfig(name, dir)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-time.After(time.Minute):
		t.Fatalf("LoadConfig(%q, %q) did not return in a minute", name, dir)
		return nil, nil
	}
}

// TestAdversarialConfigNotFile: a config that is a link to a device, a
// fifo or a directory is refused, found or named, before a byte is read
// (/dev/zero took 3.7 GB and kept growing; a fifo blocked forever), and
// so is a regular file past MaxConfigSize. A pipe named on the command
// line is read.
func TestAdversarialConfigNotFile(t *testing.T) {
	top := t.TempDir()
	fifo := filepath.Join(top, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(top, "big.toml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxConfigSize+1); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct{ target, want string }{
		{"/dev/zero", "is a character device (a link to /dev/zero)"},
		{"/dev/urandom", "is a character device (a link to /dev/urandom)"},
		{fifo, "is a named pipe"},
		{top, "is a directory"},
		{big, "is larger than 16 MiB: not a config a person wrote"},
	} {
		dir := filepath.Join(top, fmt.Sprint(i))
		os.Mkdir(dir, 0o755)
		link := filepath.Join(dir, ConfigName)
		if err := os.Symlink(tc.target, link); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"", link} {
			_, err := loadWithin(t, name, dir)
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("config -> %s (named %q): %v, want a usage error saying %q", tc.target, name, err, tc.want)
			}
		}
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.WriteString("fail_on = \"never\"\n")
		w.Close()
	}()
	c, err := loadWithin(t, fmt.Sprintf("/proc/self/fd/%d", r.Fd()), top)
	if err != nil || c.FailOn != "never" {
		t.Errorf("a config on a pipe named on the command line: %+v, %v", c, err)
	}
}

// TestAdversarialConfigDangling: a config that is a link to nothing is an
// error; it used to be skipped for the config of a directory above.
func TestAdversarialConfigDangling(t *testing.T) {
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, ConfigName), []byte("fail_on = \"never\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(top, "sub")
	os.Mkdir(sub, 0o755)
	os.Symlink("gone.toml", filepath.Join(sub, ConfigName))
	c, err := loadWithin(t, "", sub)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "is a symbolic link to gone.toml, which does not exist") {
		t.Errorf("a dangling config: %+v, %v; want a usage error", c, err)
	}
}

// TestAdversarialConfigOwner: a config found in a directory above that
// belongs to another user is refused, saying whose it is and how to
// accept it; so is one reached by a link another user made. Named, it
// is read. Another user's config silenced every finding of root's run
// (issue 28).
func TestAdversarialConfigOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a file of another user needs root")
	}
	const nobody = 65534
	top := t.TempDir()
	os.Chmod(top, 0o1777)
	sub := filepath.Join(top, "work")
	os.Mkdir(sub, 0o755)
	theirs := filepath.Join(top, ConfigName)
	if err := os.WriteFile(theirs, []byte("ignore = [\"**\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	_, err := loadWithin(t, "", sub)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "refusing config "+theirs+": it belongs to uid 65534") || !strings.Contains(err.Error(), "--config "+theirs) {
		t.Errorf("another user's config: %v; want a refusal that says whose it is and how to accept it", err)
	}
	if c, err := loadWithin(t, theirs, sub); err != nil || len(c.Ignore) != 1 {
		t.Errorf("another user's config, named: %+v, %v", c, err)
	}

	// A link of theirs to root's own file.
	mine := filepath.Join(top, "mine.toml")
	os.WriteFile(mine, []byte("ignore = [\"**\"]\n"), 0o644)
	os.Remove(theirs)
	os.Symlink(mine, theirs)
	if err := os.Lchown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if _, err := loadWithin(t, "", sub); err == nil || !strings.Contains(err.Error(), "it is a symbolic link made by uid 65534") {
		t.Errorf("another user's link to root's config: %v; want a refusal", err)
	}

	// Root's own, found: read.
	os.Remove(theirs)
	os.Rename(mine, theirs)
	if c, err := loadWithin(t, "", sub); err != nil || c == nil {
		t.Errorf("root's own config: %+v, %v", c, err)
	}
}

// TestAdversarialConfigEcho: a message quotes a value of the config in a
// few dozen bytes at most, escaped: a 100,000-part unknown key was
// echoed whole, a line of 200 KB.
func TestAdversarialConfigEcho(t *testing.T) {
	long := "a" + strings.Repeat(".b", 100_000)
	huge := strings.Repeat("x", 100_000)
	for _, tc := range []struct{ text, want string }{
		{long + " = 1\n", `unknown key "a.b.b.b`},
		{"ignore = [\"[" + huge + "\"]\n", `ignore: bad glob "[xxx`},
		{"model = [\"" + huge + "\"]\n", `model: unknown persistence model "xxx`},
		{"fail_on = \"" + huge + "\"\n", `fail_on: unknown severity "xxx`},
		{"[[suppress]]\nrule = \"" + huge + "\"\nreason = \"r\"\n", `[[suppress]]: no rule "xxx`},
		{"[[suppress]]\nrule = \"" + huge + "\"\n", `[[suppress]] of "xxx`},
		{"model = [\"\\u001b[2J\"]\n", `unknown persistence model "\x1b[2J"`},
		{"fail_on = \"" + huge + "\n", `test.toml:1:`},
	} {
		_, err := parseConfig("test.toml", []byte(tc.text))
		if err == nil {
			t.Errorf("%.40q: no error", tc.text)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || len(msg) > 400 || strings.ContainsAny(msg, "\n\x1b") {
			t.Errorf("%.40q: %d-byte error %.300q, want one line of at most 400 bytes with %q", tc.text, len(msg), msg, tc.want)
		}
	}
}

// manySuppress is a config of n [[suppress]] entries, each of its own
// path.
func manySuppress(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[[suppress]]\nrule = \"data-not-synced\"\npath = \"data/file-%d.db\"\nreason = \"rebuilt at start\"\n\n", i)
	}
	return []byte(b.String())
}

// TestAdversarialConfigManySuppress: 20,000 suppressions are read (the
// line of each was found by a search of the whole file per entry: 45 s),
// and a mistake in the last one names its line.
func TestAdversarialConfigManySuppress(t *testing.T) {
	raw := manySuppress(20_000)
	c, err := parseConfig("many.toml", raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Suppress) != 20_000 {
		t.Fatalf("%d suppressions, want 20000", len(c.Suppress))
	}
	raw = append(raw, "[[suppress]]\nrule = \"data-not-synced\"\n"...)
	_, err = parseConfig("many.toml", raw)
	if want := fmt.Sprintf("many.toml:%d: [[suppress]] of data-not-synced needs a reason", 20_000*5+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a mistake in entry 20,001: %v, want %q", err, want)
	}
}

// BenchmarkConfigSuppress reads a config of 20,000 suppressions.
func BenchmarkConfigSuppress(b *testing.B) {
	raw := manySuppress(20_000)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := parseConfig("many.toml", raw); err != nil {
			b.Fatal(err)
		}
	}
}
