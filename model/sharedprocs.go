package model

import "github.com/crashsim/crashsim/parser"

// The models of one check (Options.Shared) replay the same events through
// the same processes: fd tables, cwds, offsets and open flags are the
// trace's, the same under every persistence model. Up to sharedProcsMax
// of them share one process model rather than each keeping its own, so
// that an event's fd bookkeeping (a new Handle for each open, the tables'
// map updates) is done once, not once a model.
//
// What differs between them is the inode a Handle's fd reaches: each
// model has its own Inodes. A shared Handle keeps each model's in
// Handle.nodes, by the model's place among the sharers (Model.slot).
//
// The first model to apply an event updates the process model
// (Procs.Apply) and the others take its answer (the Handle an open made)
// from the memo the models share for the event (flagMemo). An event's own
// Procs.Apply changes no fd table entry that the model's side of the same
// event reads (the calls that make, close, dup or change fds are not the
// calls that read or write through them), so the models after the first
// see the tables as the first did; the offset of the fd an event reads or
// writes through is the exception, and the first model to move it keeps
// what it was before (flagMemo.offH) for the others.

// sharedProcsMax is how many models share one process model: check runs
// at most four (model.Persistences). A Shared's models past it keep their
// own.
const sharedProcsMax = 4

// node is the model's inode of h.
func (m *Model) node(h *Handle) *Inode {
	if !m.sharedProcs {
		return h.Node
	}
	return h.nodes[m.slot]
}

// setNode makes ino the model's inode of h, and h.Node, which the code
// that resolved h through the model reads, and returns it.
func (m *Model) setNode(h *Handle, ino *Inode) *Inode {
	if m.sharedProcs {
		h.nodes[m.slot] = ino
	}
	h.Node = ino
	return ino
}

// loadNode puts the model's inode of h in h.Node, brought back first if
// retired, and returns it: what a Handle resolved through the model
// carries while the model works on the event (another model sharing the
// process model may have left its own there).
func (m *Model) loadNode(h *Handle) *Inode {
	return m.setNode(h, m.live(m.node(h)))
}

// procsApply is Procs.Apply, once per event for the models sharing the
// process model: the first to apply the event applies it, the others
// take the Handle it returned.
func (m *Model) procsApply(ev *parser.Event, paths []string) *Handle {
	if !m.sharedProcs {
		return m.procs.Apply(ev, paths)
	}
	f := m.procs.flags
	f.at(ev)
	if !f.procsDone {
		f.procsDone, f.newH = true, m.procs.Apply(ev, paths)
	}
	return f.newH
}

// offset is h's offset as it was before the event being applied.
func (p *Procs) offset(h *Handle) int64 {
	switch f := p.flags; h {
	case f.offH:
		return f.offPrev
	case f.offH2:
		return f.offPrev2
	}
	return h.Offset
}

// setOffset moves h's offset to off, keeping what it was for the models
// after this one (see offset). An event moves at most two offsets: a
// copy's, of the fd it writes and of the fd it reads.
func (p *Procs) setOffset(h *Handle, off int64) {
	if f := p.flags; f != &p.ownFlags && f.offH != h && f.offH2 != h {
		if f.offH == nil {
			f.offH, f.offPrev = h, h.Offset
		} else {
			f.offH2, f.offPrev2 = h, h.Offset
		}
	}
	h.Offset = off
}
