package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestHadContentUnsureWritten: a file opened O_CREAT with no listing is
// unsure (it may not have existed before the trace), so a cut of it tells
// nothing of what it held before; but once the trace wrote it, it holds
// those bytes, and a cut of it cuts data (HadContent), as it does for a
// file in a directory the trace made. Cut before any write, it is still
// no file known to hold data.
func TestHadContentUnsureWritten(t *testing.T) {
	const open = "10 openat(AT_FDCWD, \"/d/f\", O_RDWR|O_CREAT, 0600) = 3\n"
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"written, synced, cut", open + "10 pwrite64(3, \"abc\", 3, 0) = 3\n10 fdatasync(3) = 0\n10 ftruncate(3, 0) = 0\n", true},
		{"written, cut", open + "10 pwrite64(3, \"abc\", 3, 0) = 3\n10 ftruncate(3, 0) = 0\n", true},
		{"in a directory the trace made", "10 mkdir(\"/d\", 0700) = 0\n" + open + "10 pwrite64(3, \"abc\", 3, 0) = 3\n10 ftruncate(3, 0) = 0\n", true},
		{"cut, never written", open + "10 ftruncate(3, 0) = 0\n", false},
	} {
		for _, p := range Persistences {
			m := replayTextWith(t, c.text, parser.Options{}, Options{Persistence: p})
			n := m.nameOf("/d/f")
			if n == nil || n.Cache == nil {
				t.Fatalf("%s under %s: no file /d/f", c.name, p)
			}
			if got := n.Cache.HadContent; got != c.want {
				t.Errorf("%s under %s: HadContent %v, want %v", c.name, p, got, c.want)
			}
		}
	}
}
