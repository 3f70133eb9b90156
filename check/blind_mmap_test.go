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
			msg := mmapMessage(res.Warnings)
			if msg == "" {
				t.Fatalf("no %s: %v", BlindSharedMmap, res.Warnings)
			}
			if strings.Contains(msg, words) != tc.says {
				t.Errorf("message %q: says %q %v, want %v", msg, words, !tc.says, tc.says)
			}
		})
	}
}

// TestSharedMmapMovedIn: the Go linker fills its output outside the root
// (in /tmp) through a shared writable mapping, then renames it into the
// root. The file's bytes in scope were stored through memory, which no
// line shows: the blind spot, named by both names, as for a file mapped
// in scope. It used to be none, and explore built the file as zeros and
// called them what the program saw. A file mapped outside that stays
// outside is not one.
func TestSharedMmapMovedIn(t *testing.T) {
	const (
		mapped = "100 openat(AT_FDCWD, \"/w/tmp/a.out\", O_RDWR|O_CREAT|O_EXCL, 0777) = 3\n" +
			"100 ftruncate(3, 16) = 0\n" +
			"100 mmap(NULL, 16, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000\n" +
			"100 munmap(0x7f0000000000, 16) = 0\n100 fsync(3) = 0\n100 close(3) = 0\n"
		end = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	)
	for _, tc := range []struct {
		name, move string
		blind      bool
	}{
		{"renamed into the root", "100 rename(\"/w/tmp/a.out\", \"/w/root/hello\") = 0\n", true},
		{"linked into the root", "100 link(\"/w/tmp/a.out\", \"/w/root/hello\") = 0\n", true},
		{"renamed outside", "100 rename(\"/w/tmp/a.out\", \"/w/tmp/hello\") = 0\n", false},
	} {
		res := runText(t, mapped+tc.move+end, Options{Roots: []string{"/w/root"}, Existed: func(p string) (bool, bool) { return p == "/w/root" || p == "/w/tmp", true }})
		msg := mmapMessage(res.Warnings)
		if (msg != "") != tc.blind {
			t.Errorf("%s: %s %q, want it %v", tc.name, BlindSharedMmap, msg, tc.blind)
			continue
		}
		if tc.blind && (!strings.Contains(msg, "/w/tmp/a.out, named /w/root/hello from line 7 on") || strings.Contains(msg, "nothing synced it")) {
			t.Errorf("%s: %q", tc.name, msg)
		}
	}
}

// TestSharedMmapStillNeverSynced: a program that never syncs gets one
// problem for the program ("never calls fsync"), not one a file, even
// with a file mapped shared and writable: stores into memory hide writes,
// not syncs, which strace prints. Darcs, Kyoto Cabinet and go build (its
// linker's output) got hundreds of problems of their own.
func TestSharedMmapStillNeverSynced(t *testing.T) {
	const text = "100 openat(AT_FDCWD, \"/w/db\", O_RDWR) = 3\n" +
		"100 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000\n" +
		"100 openat(AT_FDCWD, \"/w/a\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4\n100 write(4, \"a\", 1) = 1\n" +
		"100 openat(AT_FDCWD, \"/w/b\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5\n100 write(5, \"b\", 1) = 1\n" +
		"100 close(4) = 0\n100 close(5) = 0\n100 munmap(0x7f0000000000, 4096) = 0\n100 close(3) = 0\n" +
		"100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	res := runText(t, text, Options{Roots: []string{"/w"}, Existed: func(p string) (bool, bool) { return p == "/w" || p == "/w/db", true }})
	if mmapMessage(res.Warnings) == "" {
		t.Fatalf("no %s: %v", BlindSharedMmap, res.Warnings)
	}
	if len(res.Unsynced) == 0 {
		t.Errorf("the program never synced, and the result does not say so: %v (blind spots %v)", res.Unsynced, res.Warnings)
	}
}

// mmapMessage is the message of the blind-shared-mmap among ws, "" when
// there is none.
func mmapMessage(ws []BlindWarning) string {
	for _, w := range ws {
		if w.ID == BlindSharedMmap {
			return w.Message
		}
	}
	return ""
}
