package check

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestTruncatedNotSynced: a file that held data, cut shorter and not
// written after, with the cut never made durable, is data-not-synced: a
// crash can undo the cut. Synced after the cut, or cut and never known to
// hold data, it is not; cut and written again, the writes' finding is
// the one.
func TestTruncatedNotSynced(t *testing.T) {
	const (
		open  = `1 openat(AT_FDCWD, "/w/q", O_WRONLY) = 3`
		cut   = `1 ftruncate(3, 0) = 0`
		sync  = `1 fsync(3) = 0`
		write = `1 write(3, "x", 1) = 1`
		mkNew = `1 openat(AT_FDCWD, "/w/new", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`
		cutNe = `1 ftruncate(4, 0) = 0`
		// /w/u: whether it existed before, nobody knows (no listing of it).
		mkUnk  = `1 openat(AT_FDCWD, "/w/u", O_WRONLY|O_CREAT, 0644) = 5`
		cutUnk = `1 ftruncate(5, 0) = 0`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		want  string // a part of the message, "" for no finding
	}{
		{"cut, never synced", []string{open, cut}, "its truncation to 0 bytes was never made durable"},
		{"cut, synced", []string{open, cut, sync}, ""},
		{"cut and written", []string{open, cut, write}, "1 write (1 byte) written and never made durable"},
		{"cut a file that held nothing", []string{mkNew, cutNe}, ""},
		{"cut a file that may not have existed", []string{mkUnk, cutUnk}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			for _, m := range []model.Persistence{model.Posix, model.Ext4} {
				res := runText(t, text, Options{Models: []model.Persistence{m}, Existed: func(p string) (bool, bool) { return p == "/w" || p == "/w/q", p != "/w/u" }})
				got := ""
				for f, err := range res.Findings() {
					if err != nil {
						t.Fatal(err)
					}
					if f.Rule.ID == DataNotSynced {
						got = f.Message
						if f.State == nil {
							t.Errorf("%s: no crash state", m)
						}
					}
				}
				if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
					t.Errorf("%s: data-not-synced %q, want %q", m, got, tc.want)
				}
			}
		})
	}
}

// TestTruncatedNotSyncedZeros: a file given space (fallocate, or a
// truncation up), written at its start, synced, then cut back to its data
// with the cut never made durable can be left, on disk, its data followed
// by the zeros of the space it was given: no byte written is lost, and
// the finding says so, as a warning. Where the cut took bytes written or
// held before the trace, a crash brings them back: the error stays.
func TestTruncatedNotSyncedZeros(t *testing.T) {
	const (
		// A new file, its name made durable (a crash leaves it), and one
		// whose name is not.
		mk    = "1 openat(AT_FDCWD, \"/w/seg\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 4\n1 fsync(4) = 0\n"
		mkNew = "1 openat(AT_FDCWD, \"/w/seg\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n"
		old   = "1 openat(AT_FDCWD, \"/w/seg\", O_WRONLY) = 3\n1 fstat(3, {st_mode=S_IFREG|0644, st_size=100, ...}) = 0\n"
		alloc = "1 fallocate(3, 0, 0, 1048576) = 0\n"
		grow  = "1 ftruncate(3, 1048576) = 0\n"
		head  = "1 pwrite64(3, \"HEADER__record-1\", 16, 0) = 16\n"
		sync  = "1 fsync(3) = 0\n"
		zeros = "its first 16 bytes followed by zeros up to 1048576 bytes"
	)
	for _, c := range []struct {
		name, text string
		sev        Severity
		want       string
	}{
		{"fallocated, written, synced, cut to the data", mk + alloc + head + sync + "1 ftruncate(3, 16) = 0\n", Warning, zeros},
		{"grown by ftruncate, written, synced, cut to the data", mk + grow + head + sync + "1 ftruncate(3, 16) = 0\n", Warning, zeros},
		{"written, fallocated, synced, cut to the data", mk + head + alloc + sync + "1 ftruncate(3, 16) = 0\n", Warning, zeros},
		{"name not durable either", mkNew + alloc + head + sync + "1 ftruncate(3, 16) = 0\n", Warning, zeros},
		{"cut inside the data", mk + alloc + head + sync + "1 ftruncate(3, 8) = 0\n", Error, "earlier version"},
		{"data written past the cut", mk + alloc + head + "1 pwrite64(3, \"tail\", 4, 4096) = 4\n" + sync + "1 ftruncate(3, 16) = 0\n", Error, "earlier version"},
		{"cut into what the file held before", old + alloc + head + sync + "1 ftruncate(3, 16) = 0\n", Error, "earlier version"},
		{"cut to what the file held before", old + alloc + head + sync + "1 ftruncate(3, 100) = 0\n", Warning, "its first 100 bytes followed by zeros"},
		// Stores through a shared mapping may have filled the space.
		{"mapped shared and writable", mk + alloc + head + "1 mmap(NULL, 1048576, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f0000000000\n" + sync + "1 ftruncate(3, 16) = 0\n", Error, "earlier version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, m := range []model.Persistence{model.Posix, model.Ext4} {
				res := runText(t, c.text, Options{Models: []model.Persistence{m}, Existed: func(p string) (bool, bool) { return p == "/w" || p == "/w/seg" && c.text[:len(old)] == old, true }})
				var got *Finding
				for f, err := range res.Findings() {
					if err != nil {
						t.Fatal(err)
					}
					if f.Rule.ID == DataNotSynced {
						got = f
					}
				}
				if got == nil {
					t.Fatalf("%s: no data-not-synced", m)
				}
				if got.Rule.Severity != c.sev || !strings.Contains(got.Message, c.want) {
					t.Errorf("%s: %v %q, want %v %q", m, got.Rule.Severity, got.Message, c.sev, c.want)
				}
				if c.sev == Warning && (got.State == nil || !strings.Contains(got.State.Words, c.want)) {
					t.Errorf("%s: state %+v does not say %q", m, got.State, c.want)
				}
			}
		})
	}
}
