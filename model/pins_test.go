package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestPinsOnlyWeak: with Options.PinsOnly a retired inode keeps its weak
// pointer only when the caller pinned it or an fd still holds it, and
// those come back as the very same Inode; one settled, closed and not
// pinned is rebuilt from its record when it comes back.
func TestPinsOnlyWeak(t *testing.T) {
	const trace = `1 mkdir("/t", 0755) = 0
1 openat(AT_FDCWD, "/", O_RDONLY|O_DIRECTORY) = 3
1 fsync(3) = 0
1 close(3) = 0
1 openat(AT_FDCWD, "/t/a", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4
1 write(4, "x", 1) = 1
1 fsync(4) = 0
1 close(4) = 0
1 openat(AT_FDCWD, "/t/b", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5
1 write(5, "x", 1) = 1
1 fsync(5) = 0
1 openat(AT_FDCWD, "/t/c", O_WRONLY|O_CREAT|O_EXCL, 0644) = 6
1 write(6, "x", 1) = 1
1 fsync(6) = 0
1 close(6) = 0
1 openat(AT_FDCWD, "/t", O_RDONLY|O_DIRECTORY) = 7
1 fsync(7) = 0
1 close(7) = 0
`
	made := map[string]*Inode{}
	m := New(Options{Persistence: Posix, Retire: true, RetireBatch: 1, PinsOnly: true, Observe: func(m *Model, e *Effect) {
		if e.Kind == EffEntry && e.Entry.Kind == EntryCreate {
			made[e.Inode.Path] = e.Inode
			if e.Inode.Path == "/t/c" {
				m.Pin(e.Inode)
			}
		}
	}})
	defer m.opt.Shared.Close()
	r := parser.NewReader(strings.NewReader(trace), "t", parser.Options{})
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		m.Apply(ev)
	}
	for _, p := range []string{"/t/a", "/t/b", "/t/c"} {
		if ino := made[p]; ino == nil || !ino.retired {
			t.Fatalf("%s is not retired", p)
		}
	}
	for p, want := range map[string]bool{"/t/a": false, "/t/b": true, "/t/c": true} {
		if _, kept := m.weaks.get(int32(made[p].ID)); kept != want {
			t.Errorf("%s: weak pointer kept %v, want %v", p, kept, want)
		}
	}
	for p, same := range map[string]bool{"/t/a": false, "/t/b": true, "/t/c": true} {
		ino := made[p]
		got := m.reviveID(ino.ID)
		if (got == ino) != same {
			t.Errorf("%s came back as the same Inode: %v, want %v", p, got == ino, same)
		}
		if got.ID != ino.ID || got.Path != p || got.Size != 1 {
			t.Errorf("%s came back as inode %d %q size %d", p, got.ID, got.Path, got.Size)
		}
	}
}
