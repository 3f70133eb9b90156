package explore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// relPath maps a trace path to its place below root: ok is false for a
// path outside root, a relative one, or one that climbs out with "..".
func relPath(root, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// errSymlinkParent says a write would go through a symlink.
var errSymlinkParent = errors.New("a parent is a symlink")

// parentOK checks every directory between dir (trusted) and dir/rel's
// parent with Lstat, creating missing ones. It reports false when a parent
// is not a directory (the state has a file there: the entry cannot exist),
// and errSymlinkParent when one is a symlink.
func parentOK(dir, rel string) (bool, error) {
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	cur := dir
	for _, part := range parts {
		if part == "." || part == "" {
			continue
		}
		if part == ".." {
			return false, fmt.Errorf("%s: refusing a path with ..", rel)
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return false, err
			}
			continue
		case err != nil:
			return false, err
		case fi.Mode()&fs.ModeSymlink != 0:
			return false, fmt.Errorf("%s: %w", cur, errSymlinkParent)
		case !fi.IsDir():
			return false, nil
		}
	}
	return true, nil
}

// CopyTree copies src into dst (which exists): directories, regular files
// and symlinks (as symlinks, never followed); other kinds are left out.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(t, to)
		case d.Type().IsRegular():
			return copyFile(p, to)
		}
		return nil
	})
}

// hashTree hashes a directory tree: names, kinds, file bytes and symlink
// targets, in sorted order. Two states with the same hash look the same to
// any checker that reads names and contents. A file is hashed by the
// sum of its bytes (contentHash), which known gives without reading for the inodes it
// holds (the base's files, linked into every state).
func hashTree(dir string, known map[fileKey][32]byte) ([32]byte, error) {
	recs, err := walkRecords(dir, ".", known, nil)
	if err != nil {
		return [32]byte{}, err
	}
	var sum treeSum
	for _, r := range recs {
		sum.add(r, 1)
	}
	return sum.key(), nil
}
