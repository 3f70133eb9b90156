package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestTruncateToItsOwnSize: a truncation that changes neither the size
// nor any byte, in the page cache or on disk, is no pending change under
// any model (RocksDB cuts its synced MANIFEST to its own size on close:
// a crash after it leaves the file as the program saw it, not an
// "earlier" version with the same bytes). One to the size the program
// sees while a write is still pending stays pending, and one that moves
// the size is a change as before, as is one of a file written at an
// offset the trace does not give, whose size the model knows only from
// below.
func TestTruncateToItsOwnSize(t *testing.T) {
	const synced = "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n" +
		"10 write(3, \"abc\", 3) = 3\n" +
		"10 fdatasync(3) = 0\n" +
		"10 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 4\n" +
		"10 fsync(4) = 0\n"
	const syncedEmpty = "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n" +
		"10 fsync(3) = 0\n" +
		"10 openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 4\n" +
		"10 fsync(4) = 0\n"
	const syncedThroughStdout = "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</d/f>\n" +
		"10 close(1</dev/null>) = 0\n" +
		"10 close(3</d/f>) = 0\n" +
		"10 write(1</d/f>, \"x\\n\", 2) = 2\n" +
		"10 sync() = 0\n"
	for _, c := range []struct {
		name     string
		text     string
		pending  bool
		versions int
		outcomes string
	}{
		{"ftruncate to the synced size", synced + "10 ftruncate(3, 3) = 0\n10 close(3) = 0\n", false, 2, "latest"},
		{"truncate to the synced size", synced + "10 truncate(\"/d/f\", 3) = 0\n", false, 2, "latest"},
		{"O_TRUNC of a synced empty file", syncedEmpty + "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_TRUNC) = 5\n", false, 1, "latest"},
		{"ftruncate shorter", synced + "10 ftruncate(3, 1) = 0\n", true, 3, "earlier latest"},
		// A shell's "echo x > f" under -e trace=!dup2: the trace made f
		// and the echo wrote it through fd 1, where no call shown put it,
		// at an offset the trace does not give. f holds those bytes: a
		// cut after the sync changes it.
		{"O_TRUNC of a file written through an fd never opened", syncedThroughStdout + "10 openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_TRUNC) = 5\n", true, 3, "earlier latest"},
		{"ftruncate longer", synced + "10 ftruncate(3, 8) = 0\n", true, 3, ""},
		{"ftruncate to the size with a write pending", synced + "10 pwrite64(3, \"xyz\", 3, 3) = 3\n10 ftruncate(3, 6) = 0\n", true, 4, ""},
	} {
		for _, p := range Persistences {
			m := replayTextWith(t, c.text, parser.Options{}, Options{Persistence: p})
			n := m.nameOf("/d/f")
			if n == nil || n.Cache == nil {
				t.Fatalf("%s under %s: no file /d/f", c.name, p)
			}
			if got := n.Cache.DataPending(); got != c.pending {
				t.Errorf("%s under %s: data pending %v, want %v", c.name, p, got, c.pending)
			}
			// The trace's opening O_TRUNC of a file it may not have made
			// is one version, the write another.
			if got := n.Cache.Versions(); got != c.versions {
				t.Errorf("%s under %s: %d versions, want %d", c.name, p, got, c.versions)
			}
			if c.outcomes == "" {
				continue
			}
			var got string
			for i, o := range m.Crash("/d/f", 256).Outcomes {
				if i > 0 {
					got += " "
				}
				got += string(o)
			}
			if got != c.outcomes {
				t.Errorf("%s under %s: a crash leaves %q, want %q", c.name, p, got, c.outcomes)
			}
		}
	}
}
