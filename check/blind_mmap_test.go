package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestSharedMmapNeverSynced: a file mapped shared and writable is a blind
// spot whatever follows, and when nothing synced it after the mapping
// (rrdtool update) the warning says that whatever was stored there can
// be lost; a sync that covers it after the mapping takes that back.
func TestSharedMmapNeverSynced(t *testing.T) {
	const (
		head = "100 execve(\"/usr/bin/upd\", [\"upd\"], 0x7ffd /* 3 vars */) = 0\n" +
			"100 openat(AT_FDCWD, \"/w/db\", O_RDWR) = 3\n" +
			"100 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000\n"
		tail  = "100 munmap(0x7f0000000000, 4096) = 0\n100 close(3) = 0\n100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
		words = "nothing synced it after the mapping"
	)
	for _, tc := range []struct {
		name, between string
		says          bool
	}{
		{"never synced", "", true},
		{"msync MS_ASYNC only", "100 msync(0x7f0000000000, 4096, MS_ASYNC) = 0\n", true},
		{"another file synced", "100 openat(AT_FDCWD, \"/w/log\", O_WRONLY) = 4\n100 fsync(4) = 0\n", true},
		{"msync MS_SYNC", "100 msync(0x7f0000000000, 4096, MS_SYNC) = 0\n", false},
		{"fsync of the file", "100 fsync(3) = 0\n", false},
		{"sync", "100 sync() = 0\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.strace")
			if err := os.WriteFile(p, []byte(head+tc.between+tail), 0o644); err != nil {
				t.Fatal(err)
			}
			res := runWithArch(t, p, parser.Arch(0))
			defer res.Close()
			var msg string
			for _, w := range res.Warnings {
				if w.ID == BlindSharedMmap {
					msg = w.Message
				}
			}
			if msg == "" {
				t.Fatalf("no %s: %v", BlindSharedMmap, res.Warnings)
			}
			if strings.Contains(msg, words) != tc.says {
				t.Errorf("message %q: says %q %v, want %v", msg, words, !tc.says, tc.says)
			}
		})
	}
}
