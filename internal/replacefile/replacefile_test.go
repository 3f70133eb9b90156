package replacefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: durable or not, the name holds the new content whole with
// mode 0644 and no temp file is left; a failed write leaves the old file.
// (Whether the fsyncs happen is not visible to a test; report's test and
// the oracle cover the durable use.)
func TestWrite(t *testing.T) {
	for _, durable := range []bool{true, false} {
		dir := t.TempDir()
		name := filepath.Join(dir, "f")
		os.WriteFile(name, []byte("old"), 0o600)
		if err := Write(name, func(f *os.File) error { _, err := f.WriteString("new"); return err }, durable); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(name)
		fi, _ := os.Stat(name)
		entries, _ := os.ReadDir(dir)
		if string(b) != "new" || fi.Mode().Perm() != 0o644 || len(entries) != 1 {
			t.Errorf("durable %v: content %q, mode %v, %d entries; want new, 0644, no temp", durable, b, fi.Mode().Perm(), len(entries))
		}
		if err := Write(name, func(f *os.File) error { return os.ErrInvalid }, durable); err == nil {
			t.Errorf("durable %v: a failed write reported no error", durable)
		}
		b, _ = os.ReadFile(name)
		entries, _ = os.ReadDir(dir)
		if string(b) != "new" || len(entries) != 1 {
			t.Errorf("durable %v, after a failed write: content %q, %d entries", durable, b, len(entries))
		}
	}
}
