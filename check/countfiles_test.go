package check

import (
	"bytes"
	"hash/maphash"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestCountFiles: countFiles, which compares names only where their
// hashes meet, counts what a set of the names counts, on every fixture
// and a trace of many files replaced by rename, with the real hash and
// with one under which every two names of one length collide.
func TestCountFiles(t *testing.T) {
	var saves bytes.Buffer
	if _, err := gentrace.WriteFiles(&saves, gentrace.FilesOptions{Files: 500, PerDir: 50}); err != nil {
		t.Fatal(err)
	}
	// A lock file opened with O_CREAT and never written: the open may
	// have created it, so it counts (it has a name-not-synced finding).
	lock := []byte("1 openat(AT_FDCWD, \"/data/lock\", O_RDONLY|O_CREAT, 0644) = 3\n1 close(3) = 0\n")
	texts := map[string][]byte{"files": saves.Bytes(), "lock": lock}
	for _, tr := range fixtures.Traces(t, "../fixtures/traces") {
		b, err := os.ReadFile(tr)
		if err != nil {
			t.Fatal(err)
		}
		texts[tr] = b
	}
	defer func(h func(maphash.Seed, string) uint64) { nameHash = h }(nameHash)
	counted, shared := 0, 0
	for name, text := range texts {
		m := model.New(model.Options{})
		r := parser.NewReader(bytes.NewReader(text), name, parser.Options{})
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			m.Apply(ev)
		}
		for _, scope := range []Options{{}, {Ignore: []string{"*.tmp", "*.json"}}} {
			want := map[string]bool{}
			byName := 0
			m.EachInode(func(ino *model.Inode) {
				if (ino.Modified || ino.Unsure) && !ino.Dir && scope.inScope(ino.Name()) {
					if want[ino.Name()] {
						byName++
					}
					want[ino.Name()] = true
				}
			})
			for _, collide := range []bool{false, true} {
				nameHash = maphash.String
				if collide {
					nameHash = func(_ maphash.Seed, s string) uint64 { return uint64(len(s)) }
				}
				if got := countFiles(m, &scope, nil); got != len(want) {
					t.Errorf("%s (ignore %v, collisions %v): countFiles %d, names %d", filepath.Base(name), scope.Ignore, collide, got, len(want))
				}
			}
			if name == "lock" && len(want) != 1 {
				t.Errorf("lock: %d files in scope, want 1 (the file an O_CREAT open may have made)", len(want))
			}
			counted += len(want)
			shared += byName
		}
	}
	if counted == 0 || shared == 0 {
		t.Fatalf("%d files counted, %d of them named by more than one inode: the test exercised nothing", counted, shared)
	}
}
