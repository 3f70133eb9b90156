package model

import (
	"fmt"
	"runtime"
)

// A retired inode keeps a weak pointer (keepWeak) so that, while
// something outside the model's tables still holds the Inode, the same
// object comes back. Making one cost most of a retirement (weak.Make adds
// a record to the object's span, and each collection visits it), and
// for a file settled and closed nothing holds the Inode any more: check's
// rules keep the few inodes a finding is about, an fd the file it is open
// on. With Options.PinsOnly the model takes the caller at its word that
// the inodes it keeps are those it pinned (Pin), finds the ones the fd
// tables hold at each retirement pass, and keeps a weak pointer for those
// only: another retired inode that comes back is rebuilt from its record,
// which nobody can tell from the object retired.

// fdScanMax is the most fd table entries a retirement pass looks through
// for the inodes they hold; past it, every inode retired in the pass
// keeps its weak pointer.
const fdScanMax = 1 << 14

// Pin tells a model with Options.PinsOnly that the caller keeps ino past
// the event, so that it stays the very Inode the model brings back after
// retiring it.
func (m *Model) Pin(ino *Inode) {
	if ino == nil || !m.opt.PinsOnly {
		return
	}
	if m.pins == nil {
		m.pins = map[int]struct{}{}
	}
	m.pins[ino.ID] = struct{}{}
}

// heldByFD notes, for the retirement pass about to run, the model's
// inodes the fd tables hold (fdHeld), or that it did not look (fdAll).
// Threads sharing a table have it looked through once each: few programs
// have many, and past fdScanMax entries in all it gives up.
func (m *Model) heldByFD() {
	if !m.opt.PinsOnly || len(m.candInodes) == 0 {
		return
	}
	m.fdAll = false
	n := 0
	for _, pr := range m.procs.procs {
		if n += pr.files.n; n > fdScanMax {
			m.fdAll = true
			clear(m.fdHeld)
			return
		}
		for _, e := range pr.files.all {
			for _, h := range [2]*Handle{e.h, e.prevH} {
				if h == nil {
					continue
				}
				if ino := m.node(h); ino != nil {
					if m.fdHeld == nil {
						m.fdHeld = map[*Inode]struct{}{}
					}
					m.fdHeld[ino] = struct{}{}
				}
			}
		}
	}
}

// mayBeHeld reports whether something outside the model's tables may
// hold ino, which is being retired: always, without Options.PinsOnly.
func (m *Model) mayBeHeld(ino *Inode) bool {
	if !m.opt.PinsOnly || m.fdAll {
		return true
	}
	if _, ok := m.fdHeld[ino]; ok {
		return true
	}
	_, ok := m.pins[ino.ID]
	return ok
}

// auditRetired keeps a weak pointer to retired inode ino, which nobody
// pinned, for Options.AuditPins, and notes it for auditPass.
func (m *Model) auditRetired(id int32, ino *Inode) {
	m.unpinned = append(m.unpinned, id)
	m.keepWeak(id, ino)
}

// auditPass panics when an inode the last retirement pass retired,
// unpinned, is still held by something outside the model after a
// collection: were it to come back, the model would rebuild it as
// another object, which the holder could tell apart from its own (a map
// keyed by *Inode misses).
func (m *Model) auditPass() {
	if len(m.unpinned) == 0 {
		return
	}
	runtime.GC()
	for _, id := range m.unpinned {
		if ino := m.held(int(id)); ino != nil && !m.staleOpHolds(ino) {
			panic(fmt.Sprintf("model: inode %d (%s), retired unpinned, is still held: the caller keeps it without Model.Pin", id, ino.LastPath()))
		}
		// As without the audit: rebuilt from its record if it comes back.
		m.weaks.clear(id)
	}
	m.unpinned = m.unpinned[:0]
}

// staleOpHolds reports whether an entry op made durable but still in a
// directory's list of pending ones (they leave it at its next look:
// pendingInDir) names ino: the model reads no durable op's inodes, so the
// reference is memory kept a while, not an object told apart.
func (m *Model) staleOpHolds(ino *Inode) bool {
	for _, ops := range m.pendingByDir {
		for _, op := range ops {
			if !op.Durable {
				continue
			}
			for _, c := range op.Changes {
				if c.Old == ino || c.New == ino {
					return true
				}
			}
		}
	}
	return false
}
