package explore

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/crashsim/crashsim/model"
)

// populate fills a new state directory with the snapshot: links to the
// base, or (CopyStates) a copy of its own.
func (e *explorer) populate(dir string) error {
	if e.opt.CopyStates {
		return CopyTree(e.base.dir, dir)
	}
	return e.base.populate(dir)
}

// onDurable applies data ops that became durable to the inode's durable
// copy, before the model forgets them.
func (e *explorer) onDurable(ino *model.Inode, ops []model.DataOp) {
	if e.durErr != nil || ino.Dir {
		return
	}
	dc := e.durableOf(ino)
	if dc.err != nil {
		return // never needed, unless a state names it: said then
	}
	f, err := os.OpenFile(dc.path, os.O_RDWR, 0)
	if err != nil {
		e.durErr = err
		return
	}
	defer f.Close()
	for _, op := range ops {
		if err := applyOp(f, e.data, op, wholeBytes(op), false); err != nil {
			// Keep replaying: the error matters only for a state that
			// needs this file, and the copy is now wrong for all of them.
			dc.err = err
			return
		}
	}
}

// durableOf returns the inode's durable copy, making it on first use: the
// snapshot's file at the inode's first name for a file from before the
// trace, else an empty file.
func (e *explorer) durableOf(ino *model.Inode) *durableCopy {
	if dc, ok := e.durable[ino.ID]; ok {
		return dc
	}
	dc := &durableCopy{path: filepath.Join(e.work, "durable", fmt.Sprint(ino.ID))}
	e.durable[ino.ID] = dc
	if !ino.Initial || ino.Unsure && !e.inSnapshot(ino) {
		// Made in the trace, or opened with O_CREAT where the trace
		// cannot tell whether it existed and the snapshot does not hold
		// it: it starts empty, as a file the program created.
		f, err := createNew(dc.path)
		if err != nil {
			e.durErr = err
			dc.err = err
			return dc
		}
		f.Close()
		return dc
	}
	first := ""
	if len(ino.Paths()) > 0 {
		first = ino.Paths()[0]
	}
	rel, ok := relPath(e.opt.Root, first)
	if !ok {
		// A link to it or a rename of it named it below the root; check
		// says so first (blind-no-data).
		dc.err = fmt.Errorf("%s existed before the trace outside the root, and the initial snapshot holds only what is below the root: no state that holds its bytes can be built", first)
		return dc
	}
	src := filepath.Join(e.opt.Initial, rel)
	fi, err := os.Lstat(src)
	if e.opt.Initial == "" || err != nil || !fi.Mode().IsRegular() {
		dc.err = fmt.Errorf("%s existed before the trace, but the initial snapshot does not hold it as a file: pass --initial DIR with the files as they were before the run", first)
		return dc
	}
	if err := copyFile(src, dc.path); err != nil {
		e.durErr = err
		dc.err = err
	}
	return dc
}

// snapshotDir reports whether rel, named ino in a state, is a directory
// from before the trace that the program opened without O_DIRECTORY and
// never wrote (PostgreSQL fsyncs pg_commit_ts so): the model cannot tell
// it from a file, the snapshot can. The state holds it as the snapshot
// does.
func (e *explorer) snapshotDir(ino *model.Inode, rel string) bool {
	return ino != nil && !ino.Dir && ino.Initial && ino.Versions() == 0 && e.base.kind[rel] == 'd' && e.firstName(ino) == rel
}

// firstName is the inode's first name relative to the root, "" when it
// has none or lies outside.
func (e *explorer) firstName(ino *model.Inode) string {
	if len(ino.Paths()) == 0 {
		return ""
	}
	rel, ok := relPath(e.opt.Root, ino.Paths()[0])
	if !ok {
		return ""
	}
	return rel
}

// symlinkOf reports whether ino is a symlink, and its target: one the
// trace made, or one from before the trace that the snapshot holds as a
// symlink at its first name. A state holds either as a symlink with that
// target, made anew and never followed: its target may lie anywhere, the
// state directory or the user's files (/etc/passwd).
func (e *explorer) symlinkOf(ino *model.Inode) (string, bool) {
	if t, ok := e.links[ino.ID]; ok {
		return t, true
	}
	if !ino.Initial || ino.Dir {
		return "", false
	}
	rel := e.firstName(ino)
	if rel == "" || e.base.kind[rel] != 'l' {
		return "", false
	}
	return e.base.target[rel], true
}

// inSnapshot reports whether the initial snapshot holds ino's first name
// as a file.
func (e *explorer) inSnapshot(ino *model.Inode) bool {
	if e.opt.Initial == "" || len(ino.Paths()) == 0 {
		return false
	}
	rel, ok := relPath(e.opt.Root, ino.Paths()[0])
	if !ok {
		return false
	}
	fi, err := os.Lstat(filepath.Join(e.opt.Initial, rel))
	return err == nil && fi.Mode().IsRegular()
}

// build applies a joint crash state to a state directory that holds the
// snapshot: every tracked path as the state has it, a path below a
// directory the state leaves missing not at all.
func (e *explorer) build(dir string, c *cand, line int) error {
	for _, p := range c.sp.Paths() {
		rel, ok := relPath(e.opt.Root, p)
		if !ok || rel == "." {
			continue // the root itself is the state directory
		}
		ino, there := c.js.Name(p)
		if !there {
			// A directory missing in this state takes its entries with
			// it: a name whose parent never reached the disk is not there.
			continue
		}
		var cs *model.PathState
		if ino != nil {
			if s, ok := c.js.Content(ino.ID); ok {
				cs = &s
			}
		}
		e.touched = append(e.touched, rel)
		if err := e.place(dir, rel, ino, cs, line); err != nil {
			return err
		}
	}
	return nil
}

// place makes dir/rel hold ino (nil: missing), with its pending data ops
// applied as ps says (nil: all of them).
func (e *explorer) place(dir, rel string, ino *model.Inode, ps *model.PathState, line int) error {
	ok, err := parentOK(dir, rel)
	if err != nil {
		return fmt.Errorf("line %d: refusing to write %s: %w", line, rel, err)
	}
	if !ok {
		return nil // a parent is a file in this state: the name cannot exist
	}
	if e.snapshotDir(ino, rel) {
		return nil
	}
	target := filepath.Join(dir, rel)
	fi, err := os.Lstat(target)
	exists := err == nil
	if ino != nil && ino.Dir {
		if exists && fi.IsDir() {
			return nil
		}
		if exists {
			if err := os.RemoveAll(target); err != nil {
				return err
			}
		}
		return os.Mkdir(target, 0o755)
	}
	if exists {
		if err := os.RemoveAll(target); err != nil {
			return err
		}
	}
	if ino == nil {
		return nil
	}
	if t, ok := e.symlinkOf(ino); ok {
		return os.Symlink(t, target)
	}
	return e.writeFile(target, ino, ps, line)
}

// writeFile makes the new file target hold ino's durable content with
// its pending data ops applied as ps says (nil: all of them).
func (e *explorer) writeFile(target string, ino *model.Inode, ps *model.PathState, line int) error {
	dc := e.durableOf(ino)
	if dc.err != nil {
		return fmt.Errorf("line %d: %w", line, dc.err)
	}
	fd, err := copyOpen(dc.path, target)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), target)
	defer f.Close()
	for i, op := range ino.MaybeOps() {
		bytes, sizeOnly := wholeBytes(op), false
		if ps != nil {
			bytes, sizeOnly = ps.Persists(i, op)
		}
		if err := applyOp(f, e.data, op, bytes, sizeOnly); err != nil {
			return err
		}
	}
	return f.Close()
}
