package explore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// A base is explore's own copy of the initial snapshot, made once, from
// which every state directory is built. A state gets its own directories
// and symlinks, a private copy of each file the trace names (opens,
// stats, renames: the program, and so most likely its checker, reads and
// writes those; SQLite rolls a hot journal back into the database when
// it opens it), and a hard link to the base's copy of every other file.
// Building a state then costs a link, not a copy, per file the trace never
// names, and hashing it reads only the files that differ from the base.
// place unlinks a name before it writes a file there, so a state's own
// bytes never reach a shared inode.
//
// A hard link shares the inode. What keeps a checker's writes to a linked
// file from reaching other states:
//   - the base is explore's copy in its work directory, never the user's
//     snapshot, so nothing a checker does reaches the user's files;
//   - after each checker run, verify compares every linked base file with
//     what it was (size, modification time, mode, inode); a change stops
//     the exploration with an error naming the file, since states checked
//     at the same time may have read the change. --copy-states
//     (Options.CopyStates) gives every state private copies of all files.
//
// The base is not made read-only: that would not stop root, and would
// change what a checker sees. Nor does it keep the snapshot's modes or
// owners: files are 0644 and directories 0755, owned by crashsim, so that
// a jailed checker (another user) can read every state, and the trace's
// chmod calls are not modelled. An overlay mount would
// protect the base even from root, but needs root, a mount namespace and
// an unmount on every way out; reflinks need a filesystem that has them
// (the default work directory is tmpfs).
type base struct {
	dir     string
	entries []baseEntry          // in walk order: a directory before its entries
	known   map[fileKey][32]byte // a base file's inode → its content hash
	kind    map[string]byte      // rel → the entry's kind
	target  map[string]string    // rel → a symlink entry's target
	// watch reports writes to the linked files (inotify IN_MODIFY), so
	// that verify need not look at each; nil when inotify is not there.
	watch   *watcher
	records []record // each entry's and the tree's own, sorted by name
	sum     treeSum  // of the records
	// dirs reports changes in the state directories' directories (seal);
	// nil without inotify.
	dirs *dirWatcher
}

type baseEntry struct {
	rel    string
	kind   byte // 'd', 'f' (linked), 'c' (copied) or 'l'
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
// each file's inode and content hash. Files for which private(rel) holds
// are copied into each state, the others linked.
func newBase(snapshot, dir string, private func(rel string) bool) (*base, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	b := &base{dir: dir, known: map[fileKey][32]byte{}, kind: map[string]byte{}, target: map[string]string{}}
	if snapshot != "" {
		if err := b.copyIn(snapshot, private); err != nil {
			return nil, err
		}
	}
	b.watch = newWatcher(dir, b.entries)
	b.dirs = newDirWatcher()
	b.records = append(b.records, recordFor(".", 'd', 0, nil, ""))
	for _, e := range b.entries {
		b.kind[e.rel] = e.kind
		if e.kind == 'l' {
			b.target[e.rel] = e.target
		}
	}
	sort.Slice(b.records, func(i, j int) bool { return b.records[i].rel < b.records[j].rel })
	for _, r := range b.records {
		b.sum.add(r, 1)
	}
	return b, nil
}

// copyIn copies snapshot into the base, hashing each file as it copies
// it, and records the base's entries.
func (b *base) copyIn(snapshot string, private func(rel string) bool) error {
	err := filepath.WalkDir(snapshot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == snapshot {
			return err
		}
		rel, err := filepath.Rel(snapshot, p)
		if err != nil {
			return err
		}
		to := filepath.Join(b.dir, rel)
		e := baseEntry{rel: rel}
		switch {
		case d.IsDir():
			e.kind = 'd'
			if err := os.Mkdir(to, 0o755); err != nil {
				return err
			}
			b.records = append(b.records, recordFor(rel, 'd', 0, nil, ""))
		case d.Type()&fs.ModeSymlink != 0:
			e.kind = 'l'
			if e.target, err = os.Readlink(p); err != nil {
				return err
			}
			if err := os.Symlink(e.target, to); err != nil {
				return err
			}
			b.records = append(b.records, recordFor(rel, 'l', 0, nil, e.target))
		case d.Type().IsRegular():
			e.kind = 'c'
			if !private(rel) {
				e.kind = 'f'
			}
			sum, err := copyHashing(p, to)
			if err != nil {
				return err
			}
			fi, err := os.Lstat(to)
			if err != nil {
				return err
			}
			key, ok := keyOf(fi)
			if !ok {
				return fmt.Errorf("%s: no inode number", to)
			}
			e.key, e.stamp = key, stampOf(fi)
			// A private copy's inode is never a state's: only the
			// linked files are ever looked up.
			b.known[key] = sum
			b.records = append(b.records, recordFor(rel, 'f', fi.Size(), sum[:], ""))
		default:
			return nil // other kinds are left out
		}
		b.entries = append(b.entries, e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("explore: copy of the initial snapshot: %w", err)
	}
	return nil
}

// populate fills an empty state directory from the base: directories and
// symlinks of its own, hard links to the base's files.
func (b *base) populate(dir string) error {
	rels := []string{"."}
	for _, e := range b.entries {
		if err := b.make(dir, e); err != nil {
			return err
		}
		if e.kind == 'd' {
			rels = append(rels, e.rel)
		}
	}
	b.dirs.watch(dir, rels...)
	return nil
}

// forget is called before a state directory is removed.
func (b *base) forget(dir string) { b.dirs.forget(dir) }

func (b *base) close() {
	b.watch.close()
	b.dirs.close()
}

// make makes one entry of the base in a state directory.
func (b *base) make(dir string, e baseEntry) error {
	to := filepath.Join(dir, e.rel)
	switch e.kind {
	case 'd':
		return os.Mkdir(to, 0o755)
	case 'l':
		return os.Symlink(e.target, to)
	case 'f':
		return os.Link(filepath.Join(b.dir, e.rel), to)
	case 'c':
		return copyFile(filepath.Join(b.dir, e.rel), to)
	}
	return nil
}

// errBaseChanged says a checker wrote a file that states share.
var errBaseChanged = errors.New("changed a file that explore shares between states")

// verify reports a linked base file that is no longer what newBase
// recorded: one that inotify saw written, or, without inotify, one whose
// size, mtime, mode or inode changed.
func (b *base) verify() error {
	if b.watch != nil {
		if rel, ok := b.watch.changed(); ok {
			return b.changedError(rel)
		}
		return nil
	}
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
		return b.changedError(e.rel)
	}
	return nil
}

func (b *base) changedError(rel string) error {
	{
		return fmt.Errorf("%s: the checker %w by hard link, a file the trace never names (it was written, truncated or chmodded in place); states checked at the same time may have seen the change, so the exploration stops: make the checker leave files it did not create unchanged, or pass --copy-states to give every state a private copy of every file", rel, errBaseChanged)
	}
}

// tracePaths reads the trace once before the exploration and returns
// which snapshot files it names (relative to the root): every name the
// model knows at the end, and every earlier name of its inodes. Without a
// snapshot, or with CopyStates, nothing is read; without a trace name to
// read again, every file counts as named (private copies).
func tracePaths(opt Options) (func(rel string) bool, error) {
	all := func(string) bool { return true }
	if opt.Initial == "" || opt.CopyStates {
		return all, nil
	}
	if opt.Trace == "" {
		return all, nil
	}
	s, err := parser.Open(opt.Trace, parser.Options{})
	if err != nil {
		return nil, fmt.Errorf("explore: %w", err)
	}
	defer s.Close()
	existed := opt.Existed
	if existed == nil {
		existed = ExistedIn(opt.Root, opt.Initial)
	}
	m := model.New(model.Options{Persistence: opt.Persistence, Existed: existed, InitialSize: initialSize(opt), Cwd: opt.Cwd, FDs: opt.FDs, NameFiles: opt.NameFiles})
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		m.Apply(ev)
	}
	named := map[string]bool{}
	add := func(p string) {
		if rel, ok := relPath(opt.Root, p); ok {
			named[rel] = true
		}
	}
	for p := range m.Names() {
		add(p)
	}
	for _, ino := range m.Inodes() {
		for _, p := range ino.Paths() {
			add(p)
		}
	}
	return func(rel string) bool { return named[rel] }, nil
}
