package explore

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A base is explore's own copy of the initial snapshot, made once, from
// which every state directory is built: each state gets its own
// directories and symlinks, and a hard link to the base's copy of every
// regular file. Building a state then costs a link per file instead of a
// copy of its bytes, and hashing it reads only the files that differ from
// the base (place replaces a linked file by a new one before writing to
// it, so a state's own bytes never reach a shared inode).
//
// A hard link shares the inode, so what protects the base from a checker
// that writes a linked file in place:
//   - the base is explore's copy in its work directory, never the user's
//     snapshot, so nothing a checker does reaches the user's files;
//   - base files have no write permission, so a checker that is not root
//     and does not chmod them gets EACCES when it opens one for writing;
//   - after each checker run, verify compares every base file with what
//     it was (size, modification time, mode, inode); a change stops the
//     exploration with an error naming the file, since states checked at
//     the same time may have read the changed bytes. --copy-states
//     (Options.CopyStates) gives every state a private copy instead.
//
// An overlay mount would protect the base even from root, but needs root,
// a mount namespace and an unmount on every way out; reflinks need a
// filesystem that has them (the default work directory is tmpfs).
type base struct {
	dir     string
	entries []baseEntry          // in walk order: a directory before its entries
	known   map[fileKey][32]byte // a base file's inode → its content hash
}

type baseEntry struct {
	rel    string
	kind   byte // 'd', 'f' or 'l'
	target string
	key    fileKey
	stamp  stamp
}

// fileKey names an inode.
type fileKey struct{ dev, ino uint64 }

// stamp is what a write to a file changes.
type stamp struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

func keyOf(fi fs.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), st.Ino}, true
}

func stampOf(fi fs.FileInfo) stamp {
	return stamp{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
}

// newBase copies snapshot into dir (which does not exist) and records
// each file's inode and content hash.
func newBase(snapshot, dir string) (*base, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	b := &base{dir: dir, known: map[fileKey][32]byte{}}
	if snapshot == "" {
		return b, nil
	}
	if err := CopyTree(snapshot, dir); err != nil {
		return nil, fmt.Errorf("explore: copy of the initial snapshot: %w", err)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		e := baseEntry{rel: rel}
		switch {
		case d.IsDir():
			e.kind = 'd'
		case d.Type()&fs.ModeSymlink != 0:
			e.kind = 'l'
			if e.target, err = os.Readlink(p); err != nil {
				return err
			}
		case d.Type().IsRegular():
			e.kind = 'f'
			if err := os.Chmod(p, 0o444); err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			key, ok := keyOf(fi)
			if !ok {
				return fmt.Errorf("%s: no inode number", p)
			}
			sum, err := hashFile(p)
			if err != nil {
				return err
			}
			e.key, e.stamp = key, stampOf(fi)
			b.known[key] = sum
		default:
			return nil
		}
		b.entries = append(b.entries, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("explore: base: %w", err)
	}
	return b, nil
}

// populate fills an empty state directory from the base: directories and
// symlinks of its own, hard links to the base's files.
func (b *base) populate(dir string) error {
	for _, e := range b.entries {
		to := filepath.Join(dir, e.rel)
		var err error
		switch e.kind {
		case 'd':
			err = os.Mkdir(to, 0o755)
		case 'l':
			err = os.Symlink(e.target, to)
		case 'f':
			err = os.Link(filepath.Join(b.dir, e.rel), to)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errBaseChanged says a checker wrote a file that states share.
var errBaseChanged = errors.New("changed a file that explore shares between states")

// verify reports a base file that is no longer what newBase recorded.
func (b *base) verify() error {
	for _, e := range b.entries {
		if e.kind != 'f' {
			continue
		}
		p := filepath.Join(b.dir, e.rel)
		fi, err := os.Lstat(p)
		if err == nil {
			if key, _ := keyOf(fi); key == e.key && stampOf(fi) == e.stamp {
				continue
			}
		}
		return fmt.Errorf("%s: the checker %w by hard link (it was written, truncated or chmodded in place); states checked at the same time may have seen the change, so the exploration stops: make the checker leave files it did not create unchanged, or pass --copy-states to give every state a private copy of every file", e.rel, errBaseChanged)
	}
	return nil
}

func hashFile(p string) ([32]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
