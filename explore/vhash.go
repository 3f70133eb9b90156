package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/model"
)

// The first replay hashes every candidate state without writing it: it
// works out what place would leave below the roots a state changes (see
// reuse.go), the way build does it on disk, and adds up the records as
// hashState would read them. The bytes of each file content are written
// and hashed once per crash point, whatever the number of states that
// hold it. The second replay builds the states it checks on disk and
// hashes them there: a difference stops the run as a bug.

// vnode is an entry a virtual build placed: a directory, a file of size
// bytes with that sha256, or a symlink; kind 0 is a name removed.
type vnode struct {
	kind   byte
	size   int64
	sum    [32]byte
	target string
}

// vbuild is a state built in memory over the base.
type vbuild struct {
	b    *base
	over map[string]vnode // what the build placed or removed
	tomb map[string]bool  // removed with everything below: the base's entries there are gone
}

// contentKey names a file content at one crash point.
type contentKey struct {
	ino  int
	kind model.StateKind
	j    int
	mask uint32
	torn int64
	all  bool
}

type content struct {
	size int64
	sum  [32]byte
}

// present reports the kind of the entry at rel in the build (0: none).
func (v *vbuild) present(rel string) byte {
	if n, ok := v.over[rel]; ok {
		return n.kind
	}
	for q := rel; ; q = filepath.Dir(q) {
		if v.tomb[q] {
			return 0
		}
		if !strings.Contains(q, "/") {
			break
		}
	}
	switch k := v.b.kind[rel]; k {
	case 'c', 'f':
		return 'f'
	default:
		return k
	}
}

// remove removes rel and everything below it, as os.RemoveAll.
func (v *vbuild) remove(rel string) {
	for q := range v.over {
		if q == rel || strings.HasPrefix(q, rel+"/") {
			delete(v.over, q)
		}
	}
	v.over[rel] = vnode{}
	v.tomb[rel] = true
}

// vhash hashes candidate c as build and hashState would, without
// writing it.
func (e *explorer) vhash(c *cand) ([32]byte, error) {
	v := &vbuild{b: e.base, over: map[string]vnode{}, tomb: map[string]bool{}}
	e.touched = e.touched[:0]
	for _, p := range c.sp.Paths() {
		rel, ok := relPath(e.opt.Root, p)
		if !ok || rel == "." {
			continue
		}
		ino, there := c.js.Name(p)
		if !there {
			continue
		}
		e.touched = append(e.touched, rel)
		if err := e.vplace(v, c, rel, ino); err != nil {
			return [32]byte{}, err
		}
	}
	sum := e.base.sum
	for _, root := range e.base.roots(e.touched) {
		for _, r := range e.base.recordsUnder(root) {
			sum.add(r, ^uint64(0))
			if _, placed := v.over[r.rel]; !placed && v.present(r.rel) != 0 {
				sum.add(r, 1) // still there, unchanged
			}
		}
		for rel, n := range v.over {
			if n.kind == 0 || rel != root && !strings.HasPrefix(rel, root+"/") {
				continue
			}
			sum.add(recordFor(rel, n.kind, n.size, n.sum[:], n.target), 1)
		}
	}
	return sum.key(), nil
}

// vplace is place in memory.
func (e *explorer) vplace(v *vbuild, c *cand, rel string, ino *model.Inode) error {
	parts := strings.Split(filepath.Dir(rel), "/")
	cur := ""
	for _, part := range parts {
		if part == "." || part == "" {
			continue
		}
		if part == ".." {
			return fmt.Errorf("line %d: refusing to write %s: %s: refusing a path with ..", c.ref.Line, rel, rel)
		}
		if cur == "" {
			cur = part
		} else {
			cur += "/" + part
		}
		switch v.present(cur) {
		case 0:
			v.over[cur] = vnode{kind: 'd'}
		case 'l':
			return fmt.Errorf("line %d: refusing to write %s: %s: %w", c.ref.Line, rel, cur, errSymlinkParent)
		case 'd':
		default:
			return nil // a parent is a file in this state: the name cannot exist
		}
	}
	if e.snapshotDir(ino, rel) {
		return nil
	}
	k := v.present(rel)
	if ino != nil && ino.Dir {
		if k == 'd' {
			return nil
		}
		if k != 0 {
			v.remove(rel)
		}
		v.over[rel] = vnode{kind: 'd'}
		return nil
	}
	if k != 0 {
		v.remove(rel)
	}
	if ino == nil {
		return nil
	}
	if t, ok := e.symlinkOf(ino); ok {
		v.over[rel] = vnode{kind: 'l', target: t}
		return nil
	}
	cs, ok := c.js.Content(ino.ID)
	key := contentKey{ino: ino.ID, kind: cs.Kind, j: cs.J, mask: cs.Mask, torn: cs.TornBytes, all: !ok}
	got, ok := e.contents[key]
	if !ok {
		var ps *model.PathState
		if !key.all {
			ps = &cs
		}
		var err error
		if got, err = e.hashContent(ino, ps, c.ref.Line); err != nil {
			return err
		}
		e.contents[key] = got
	}
	v.over[rel] = vnode{kind: 'f', size: got.size, sum: got.sum}
	return nil
}

// hashContent writes a file content to a scratch file and hashes it.
func (e *explorer) hashContent(ino *model.Inode, ps *model.PathState, line int) (content, error) {
	scratch := filepath.Join(e.work, "scratch")
	if err := os.Remove(scratch); err != nil && !os.IsNotExist(err) {
		return content{}, err
	}
	if err := e.writeFile(scratch, ino, ps, line); err != nil {
		return content{}, err
	}
	fi, err := os.Lstat(scratch)
	if err != nil {
		return content{}, err
	}
	sum, err := hashFile(scratch)
	return content{fi.Size(), sum}, err
}
