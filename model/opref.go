package model

import (
	"math"
	"unique"
)

// opRef is a Ref as a pending data or entry operation keeps it: a check
// of many unsynced files keeps one of each per file and model, and the
// 64 bytes of a Ref were a third of them. The trace file, syscall name,
// process and the distance to the line that ends the call (most often
// none), the same for a great many events, are one interned handle; the
// event's place and line fit in 32 bits each, else (seq is wideRef) the
// handle holds them too. At 16 bytes a pending write fits the 80-byte
// size class and a create with its one name change the 112-byte one,
// where a 32-byte opRef put them in the 96- and 128-byte classes.
type opRef struct {
	seq, line uint32
	key       unique.Handle[refKey]
}

// wideRef in opRef.seq says the handle holds the seq and line.
const wideRef = math.MaxUint32

// refKey is what opRef interns.
type refKey struct {
	file, syscall string
	pid, endDelta int // endDelta: EndLine - Line
	// wide: seq and line are the Ref's, which opRef could not hold.
	wide      bool
	seq, line int
}

// refKeys remembers the last few handles a model made, so that a
// program's writes do not each ask the process-wide table.
type refKeys struct {
	keys [8]refKey
	hs   [8]unique.Handle[refKey]
	next int
}

func (c *refKeys) handle(k refKey) unique.Handle[refKey] {
	for i := range c.keys {
		if c.keys[i] == k && c.hs[i] != (unique.Handle[refKey]{}) {
			return c.hs[i]
		}
	}
	h := unique.Make(k)
	c.keys[c.next], c.hs[c.next] = k, h
	c.next = (c.next + 1) % len(c.keys)
	return h
}

// packRef makes r an opRef.
func (m *Model) packRef(r Ref) opRef {
	k := refKey{file: r.File, syscall: r.Syscall, pid: r.PID, endDelta: r.EndLine - r.Line}
	if r.Seq >= 0 && r.Seq < wideRef && r.Line >= 0 && r.Line <= math.MaxUint32 {
		return opRef{seq: uint32(r.Seq), line: uint32(r.Line), key: m.refKeys.handle(k)}
	}
	k.wide, k.seq, k.line = true, r.Seq, r.Line
	return opRef{seq: wideRef, key: m.refKeys.handle(k)}
}

// ref is the Ref r was made of.
func (r *opRef) ref() Ref {
	var k refKey
	if r.key != (unique.Handle[refKey]{}) {
		k = r.key.Value()
	}
	seq, line := int(r.seq), int(r.line)
	if k.wide {
		seq, line = k.seq, k.line
	}
	return Ref{Seq: seq, File: k.file, Line: line, EndLine: line + k.endDelta, PID: k.pid, Syscall: k.syscall}
}

// seqOf is ref().Seq, without building the Ref.
func (r *opRef) seqOf() int {
	if r.seq == wideRef {
		return r.key.Value().seq
	}
	return int(r.seq)
}
