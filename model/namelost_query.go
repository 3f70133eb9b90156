package model

import "slices"

// NameLostWithLast returns a crash state at the current crash point in
// which path p names none of the inodes kept (p missing, a directory
// above it missing, or another inode there) that the persistence model
// admits together with the last event's metadata change on disk: a
// removal, or a change of size. False when there is none. A rule asks it
// when the last event destroyed data that a copy at p holds (kept: the
// copy, and the file it was made from when that is still whole
// elsewhere): can that destruction reach the disk while the copy's name
// has not? p must name one of kept in the page cache.
//
// Under posix pending operations persist in any subset: any crash state
// of p without them. The ordered models commit metadata in program
// order, so the last event's change on disk brings every pending entry
// operation with it (each came before), and p names what the program
// sees.
func (m *Model) NameLostWithLast(p string, maxStates int, kept ...*Inode) (PathState, bool) {
	if m.opt.Persistence.Ordered() {
		return PathState{}, false
	}
	return m.CrashFirst(p, maxStates, func(s PathState) bool {
		return !slices.ContainsFunc(kept, func(k *Inode) bool { return k != nil && k.ID == s.Inode })
	})
}
