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
