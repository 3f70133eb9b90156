package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// namesRef is what an inode's names were when Inode kept them in a plain
// slice: the behaviour attach and detach must keep now that one name is
// a shared array and more live in inodeMore.
type namesRef struct {
	names    []string
	path     string
	named    bool // lastPath and paths hold the history
	lastPath string
	paths    []string
}

func (r *namesRef) lastOf() string {
	if r.named {
		return r.lastPath
	}
	return r.path
}

func (r *namesRef) pathsOf() []string {
	if r.named {
		return r.paths
	}
	if len(r.names) == 0 {
		return nil
	}
	return r.names[:1]
}

func (r *namesRef) history() {
	if !r.named {
		r.lastPath, r.paths, r.named = r.lastOf(), slices.Clone(r.pathsOf()), true
	}
}

func (r *namesRef) attach(p string) {
	if len(r.names) == 0 && len(r.pathsOf()) == 0 {
		*r = namesRef{names: []string{p}, path: p}
		return
	}
	if r.path == p && !r.named {
		return
	}
	r.history()
	if !slices.Contains(r.names, p) {
		r.names = append(r.names, p)
	}
	r.path, r.lastPath = p, p
	if len(r.paths) == 0 || r.paths[len(r.paths)-1] != p {
		r.paths = append(r.paths, p)
	}
}

func (r *namesRef) detach(p string) {
	if len(r.names) == 1 && r.names[0] == p {
		r.history()
	}
	if i := slices.Index(r.names, p); i >= 0 {
		r.names = slices.Delete(r.names, i, i+1)
	}
	if r.path == p {
		r.path = ""
		if len(r.names) > 0 {
			r.path = r.names[0]
		}
	}
}

// TestInodeNamesAsSlice runs random attaches and detaches (new files,
// renames, hard links, unlinks, links back) on the inodes of two models
// that share their one-name arrays, as a check's models do, and compares
// Names, Path, LastPath, Paths and HasName with what a plain slice gives
// after every step. It also checks that no shared one-name array was
// written: another inode, or the other model's, reads it.
func TestInodeNamesAsSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shared := new(Shared)
	models := []*Model{New(Options{Shared: shared}), New(Options{Shared: shared})}
	paths := []string{"/d/a", "/d/b", "/d/c", "/e/a", "/e/d"}
	type pair struct {
		m   *Model
		ino *Inode
		ref *namesRef
	}
	var inodes []pair
	arrays := map[*[1]string]string{}
	for step := range 5000 {
		if len(inodes) == 0 || r.IntN(50) == 0 {
			// A new file in both models, as one create applied to each.
			p := paths[r.IntN(len(paths))]
			for _, m := range models {
				ino := m.newInode(false, false)
				m.attach(ino, p)
				ref := new(namesRef)
				ref.attach(p)
				inodes = append(inodes, pair{m, ino, ref})
			}
		} else {
			x := inodes[r.IntN(len(inodes))]
			p := paths[r.IntN(len(paths))]
			if r.IntN(2) == 0 {
				x.m.attach(x.ino, p)
				x.ref.attach(p)
			} else {
				x.m.detach(x.ino, p)
				x.ref.detach(p)
			}
		}
		for i, x := range inodes {
			if x.ino.name1 != nil {
				if v, ok := arrays[x.ino.name1]; ok && v != x.ino.name1[0] {
					t.Fatalf("step %d: a shared one-name array changed from %q to %q", step, v, x.ino.name1[0])
				}
				arrays[x.ino.name1] = x.ino.name1[0]
			}
			got := fmt.Sprintf("names %q path %q last %q paths %q", x.ino.Names(), x.ino.Path, x.ino.LastPath(), x.ino.Paths())
			want := fmt.Sprintf("names %q path %q last %q paths %q", x.ref.names, x.ref.path, x.ref.lastOf(), x.ref.pathsOf())
			if got != want {
				t.Fatalf("step %d, inode %d:\n got %s\nwant %s", step, i, got, want)
			}
			for _, p := range paths {
				if x.ino.HasName(p) != slices.Contains(x.ref.names, p) {
					t.Fatalf("step %d, inode %d: HasName(%q) = %v, names %q", step, i, p, x.ino.HasName(p), x.ref.names)
				}
			}
		}
		if len(inodes) > 40 {
			inodes = inodes[2:]
		}
	}
	if len(arrays) < 20 {
		t.Fatalf("only %d one-name arrays seen: the test did not exercise sharing", len(arrays))
	}
}
