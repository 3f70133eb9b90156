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

// record is what hashing a tree feeds for one entry.
type record struct {
	rel string
	b   []byte
}

// recordOf makes the record of the entry at p (named rel in its tree).
func recordOf(rel, p string, known map[fileKey][32]byte) (record, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return record{}, err
	}
	var n [8]byte
	b := make([]byte, 0, len(rel)+48)
	binary.LittleEndian.PutUint64(n[:], uint64(len(rel)))
	b = append(b, n[:]...)
	b = append(b, rel...)
	switch {
	case fi.IsDir():
		b = append(b, 'd')
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return record{}, err
		}
		b = append(b, 'l')
		binary.LittleEndian.PutUint64(n[:], uint64(len(t)))
		b = append(b, n[:]...)
		b = append(b, t...)
	default:
		b = append(b, 'f')
		binary.LittleEndian.PutUint64(n[:], uint64(fi.Size()))
		b = append(b, n[:]...)
		key, ok := keyOf(fi)
		sum, found := known[key]
		if !ok || !found {
			if sum, err = hashFile(p); err != nil {
				return record{}, err
			}
		}
		b = append(b, sum[:]...)
	}
	return record{rel: rel, b: b}, nil
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

// recordLess orders records: the tree's own record first, the others by
// name.
func recordLess(a, b record) bool {
	if (a.rel == ".") != (b.rel == ".") {
		return a.rel == "."
	}
	return a.rel < b.rel
}

// sumRecords hashes records in recordLess order.
func sumRecords(recs []record) [32]byte {
	sort.Slice(recs, func(i, j int) bool { return recordLess(recs[i], recs[j]) })
	return sumSorted(recs, nil)
}

// sumSorted hashes two sorted runs of records merged.
func sumSorted(a, b []record) [32]byte {
	h := sha256.New()
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || len(a) > 0 && recordLess(a[0], b[0]) {
			h.Write(a[0].b)
			a = a[1:]
		} else {
			h.Write(b[0].b)
			b = b[1:]
		}
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
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
// touched: the base's records outside the changed roots, the changed
// roots walked. It equals hashTree of the same directory.
func (b *base) hashState(dir string, touched []string) ([32]byte, error) {
	roots := b.roots(touched)
	kept := b.records
	if len(roots) > 0 {
		kept = make([]record, 0, len(b.records))
		for _, r := range b.records {
			if !under(r.rel, roots) {
				kept = append(kept, r)
			}
		}
	}
	var walked []record
	var err error
	for _, root := range roots {
		if walked, err = walkRecords(dir, root, b.known, walked); err != nil {
			return [32]byte{}, err
		}
	}
	sort.Slice(walked, func(i, j int) bool { return recordLess(walked[i], walked[j]) })
	return sumSorted(kept, walked), nil
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
	for _, e := range b.entries {
		if under(e.rel, roots) {
			if err := b.make(dir, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// A directory's stamp: what creating, removing or renaming an entry in it
// changes.
type dirStamp struct {
	mtime time.Time
	size  int64
	nlink uint64
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
	return dirStamp{fi.ModTime(), fi.Size(), uint64(st.Nlink)}, true
}

// seal records, before a checker runs on a state, what tells afterwards
// whether the checker changed the state outside the paths the build
// placed (which revert makes again in any case): the stamps of the
// directories there and of the private copies there.
type seal struct {
	touched []string
	roots   []string
	dirs    []dirStamp
	files   []stamp
}

func (b *base) seal(dir string, touched []string) (*seal, bool) {
	s := &seal{touched: append([]string(nil), touched...), roots: b.roots(touched)}
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

// unchanged reports whether dir is as seal found it, outside the placed
// paths. (The linked files are the base's: verify checks those.)
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
