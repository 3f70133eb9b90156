package explore

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// A state directory is reused from one candidate state to the next while
// the candidates are duplicates (or another shard's): building a state
// changes only the tracked paths (place writes at and below a path and
// creates its missing parents), so undoing those changes makes the
// directory the base's again, at a cost that depends on what differs, not
// on the size of the tree. Hashing a candidate likewise reads the base's
// part of the tree from records made once and walks only the changed
// parts. A state a checker ran on is reused the same way when the
// checker changed nothing outside the placed paths: no entry created,
// removed or renamed in a directory there (each directory's mtime, size
// and link count are as before the run; the kernel's fine-grained
// timestamps make a change right after our look show), no private copy
// changed, and no linked file changed (base.verify, which stops the run).
// Otherwise the directory is removed and a new one filled from the base.

// record is one entry's part of a tree's hash: the sha256 of its name,
// kind and content (a file's bytes by their own sha256, a symlink's
// target).
type record struct {
	rel string
	sum [32]byte
}

// recordOf makes the record of the entry at p (named rel in its tree).
func recordOf(rel, p string, known map[fileKey][32]byte) (record, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return record{}, err
	}
	switch {
	case fi.IsDir():
		return recordFor(rel, 'd', 0, nil, ""), nil
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return record{}, err
		}
		return recordFor(rel, 'l', 0, nil, t), nil
	}
	key, ok := keyOf(fi)
	sum, found := known[key]
	if !ok || !found {
		if sum, err = hashFile(p); err != nil {
			return record{}, err
		}
	}
	return recordFor(rel, 'f', fi.Size(), sum[:], ""), nil
}

// recordFor makes the record of an entry: a directory ('d'), a symlink
// ('l') to target, or a file ('f') of size bytes whose contentHash is sum.
func recordFor(rel string, kind byte, size int64, sum []byte, target string) record {
	b := make([]byte, 0, len(rel)+len(target)+56)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(rel)))
	b = append(b, rel...)
	b = append(b, kind)
	switch kind {
	case 'l':
		b = binary.LittleEndian.AppendUint64(b, uint64(len(target)))
		b = append(b, target...)
	case 'f':
		b = binary.LittleEndian.AppendUint64(b, uint64(size))
		b = append(b, sum...)
	}
	return record{rel: rel, sum: sha256.Sum256(b)}
}

// treeSum is a tree's hash before its last step: the sum of its records'
// hashes, as four 64-bit lanes. A tree holds each name once, so the sum
// of the set is as good a key as a hash of the sorted list, and one
// record in or out changes it by that record alone: a state's sum is the
// base's, less the base's records where the state differs, plus the
// state's own records there.
type treeSum [4]uint64

func (t *treeSum) add(r record, sign uint64) {
	for i := range t {
		t[i] += sign * binary.LittleEndian.Uint64(r.sum[8*i:])
	}
}

// key is the tree's hash.
func (t *treeSum) key() [32]byte {
	var b [32]byte
	for i, v := range t {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return sha256.Sum256(b[:])
}

// walkRecords appends the records of dir/rel and everything below it.
func walkRecords(dir, rel string, known map[fileKey][32]byte, out []record) ([]record, error) {
	top := filepath.Join(dir, rel)
	if _, err := os.Lstat(top); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return out, nil // missing in this state, or below a file
	}
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rec, err := recordOf(r, p, known)
		if err != nil {
			return err
		}
		out = append(out, rec)
		return nil
	})
	return out, err
}

// roots returns where building a state changed its directory, given the
// paths it placed: for each, its highest ancestor that the base does not
// hold as a directory (place created it), or the path itself. A root
// below another is left out.
func (b *base) roots(touched []string) []string {
	var roots []string
	for _, rel := range touched {
		root := rel
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			a := strings.Join(parts[:i], "/")
			if b.kind[a] != 'd' {
				root = a
				break
			}
		}
		roots = append(roots, root)
	}
	sort.Strings(roots)
	out := roots[:0]
	for _, r := range roots {
		if n := len(out); n > 0 && (r == out[n-1] || strings.HasPrefix(r, out[n-1]+"/")) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// under reports whether rel is one of roots or below one.
func under(rel string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(rel, r) && (len(rel) == len(r) || rel[len(r)] == '/') {
			return true
		}
	}
	return false
}

// hashState hashes a state directory built from the base by placing
// touched: the base's sum, less the base's records below the changed
// roots, plus the records of the changed roots walked. It equals hashTree
// of the same directory.
func (b *base) hashState(dir string, touched []string) ([32]byte, error) {
	sum := b.sum
	var walked []record
	var err error
	for _, root := range b.roots(touched) {
		for _, r := range b.recordsUnder(root) {
			sum.add(r, ^uint64(0))
		}
		if walked, err = walkRecords(dir, root, b.known, walked[:0]); err != nil {
			return [32]byte{}, err
		}
		for _, r := range walked {
			sum.add(r, 1)
		}
	}
	return sum.key(), nil
}

// recordsUnder returns the base's records of root and below it (the
// records are sorted by name: root, then a run of root/...).
func (b *base) recordsUnder(root string) []record {
	recs := b.records
	var out []record
	i := sort.Search(len(recs), func(i int) bool { return recs[i].rel >= root })
	if i < len(recs) && recs[i].rel == root {
		out = append(out, recs[i])
	}
	prefix := root + "/"
	for j := sort.Search(len(recs), func(i int) bool { return recs[i].rel >= prefix }); j < len(recs) && strings.HasPrefix(recs[j].rel, prefix); j++ {
		out = append(out, recs[j])
	}
	return out
}

// revert undoes the placing of touched in dir: each changed root is
// removed and what the base holds there is made again.
func (b *base) revert(dir string, touched []string) error {
	roots := b.roots(touched)
	for _, root := range roots {
		if err := os.RemoveAll(filepath.Join(dir, root)); err != nil {
			return err
		}
	}
	watched := b.dirs.watched(dir)
	for _, e := range b.entries {
		if under(e.rel, roots) {
			if err := b.make(dir, e); err != nil {
				return err
			}
			if e.kind == 'd' && watched && !b.dirs.watch(dir, e.rel) {
				watched = false // now seal looks at every directory
			}
		}
	}
	if watched {
		b.dirs.take(dir) // the changes just made
	}
	return nil
}

// A directory's stamp: what creating, removing or renaming an entry in it
// changes, and what a chmod, chown or new attribute of it does (its mode
// and change time).
type dirStamp struct {
	mtime, ctime time.Time
	mode         fs.FileMode
	size         int64
	nlink        uint64
}

func dirStampOf(p string) (dirStamp, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return dirStamp{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirStamp{}, false
	}
	return dirStamp{fi.ModTime(), time.Unix(st.Ctim.Unix()), fi.Mode(), fi.Size(), uint64(st.Nlink)}, true
}

// seal records, before a checker runs on a state, what tells afterwards
// whether the checker changed the state outside the paths the build
// placed (which revert makes again in any case): the stamps of the
// directories there and of the private copies there.
type seal struct {
	touched []string
	roots   []string
	watched bool // b.dirs reports the directories' changes
	dirs    []dirStamp
	files   []stamp
}

func (b *base) seal(dir string, touched []string) (*seal, bool) {
	s := &seal{touched: append([]string(nil), touched...), roots: b.roots(touched)}
	if b.dirs.watched(dir) {
		b.dirs.take(dir) // the build's own changes
		s.watched = true
		for _, e := range b.entries {
			if e.kind == 'c' && !under(e.rel, s.roots) {
				fi, err := os.Lstat(filepath.Join(dir, e.rel))
				if err != nil {
					return nil, false
				}
				s.files = append(s.files, stampOf(fi))
			}
		}
		return s, true
	}
	ds, ok := dirStampOf(dir)
	if !ok {
		return nil, false
	}
	s.dirs = append(s.dirs, ds)
	for _, e := range b.entries {
		if under(e.rel, s.roots) {
			continue
		}
		switch e.kind {
		case 'd':
			ds, ok := dirStampOf(filepath.Join(dir, e.rel))
			if !ok {
				return nil, false
			}
			s.dirs = append(s.dirs, ds)
		case 'c':
			fi, err := os.Lstat(filepath.Join(dir, e.rel))
			if err != nil {
				return nil, false
			}
			s.files = append(s.files, stampOf(fi))
		}
	}
	return s, true
}

// changes reports what the checker changed in dir outside the placed
// paths, as more paths for revert to undo, or false when that cannot be
// told (no inotify: then only an unchanged directory is reused) or
// undone (the state directory itself changed). (The linked files are the
// base's: verify checks those.)
//
// With inotify, each entry named in an event outside the placed paths is
// undone: removed, and what the base holds there made again. A renamed
// directory names both its names in its parent, so events reported
// later under its old name are undone with it; a private copy written
// without an event (through a mapping) shows in its stamp.
func (b *base) changes(dir string, s *seal) ([]string, bool) {
	if s.watched {
		rels, lost := b.dirs.take(dir)
		if lost {
			return nil, false
		}
		var extra []string
		for _, rel := range rels {
			if rel == "." {
				return nil, false
			}
			if !under(rel, s.roots) {
				extra = append(extra, rel)
			}
		}
		f := 0
		for _, e := range b.entries {
			if e.kind == 'c' && !under(e.rel, s.roots) {
				fi, err := os.Lstat(filepath.Join(dir, e.rel))
				if err != nil || stampOf(fi) != s.files[f] {
					extra = append(extra, e.rel)
				}
				f++
			}
		}
		return extra, true
	}
	return nil, b.unchanged(dir, s)
}

// unchanged reports, from the stamps seal took, whether dir is as seal
// found it outside the placed paths.
func (b *base) unchanged(dir string, s *seal) bool {
	if ds, ok := dirStampOf(dir); !ok || ds != s.dirs[0] {
		return false
	}
	d, f := 1, 0
	for _, e := range b.entries {
		if under(e.rel, s.roots) {
			continue
		}
		switch e.kind {
		case 'd':
			if ds, ok := dirStampOf(filepath.Join(dir, e.rel)); !ok || ds != s.dirs[d] {
				return false
			}
			d++
		case 'c':
			fi, err := os.Lstat(filepath.Join(dir, e.rel))
			if err != nil || stampOf(fi) != s.files[f] {
				return false
			}
			f++
		}
	}
	return true
}
