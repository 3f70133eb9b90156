package model

import (
	"math"
	"unique"
)

// opRef is a Ref as a pending data or entry operation keeps it: a check
// of many unsynced files keeps one of each per file and model, and the
// 64 bytes of a Ref were a third of them. The trace file and syscall
// name, the same for a great many events, are one interned handle; the
// process and the line that ends the call (most often the line itself)
// fit in 32 bits each, else the handle holds them too.
type opRef struct {
	seq, line int
	endDelta  int32 // EndLine - Line
	pid       int32
	key       unique.Handle[refKey]
}

// refKey is what opRef interns.
type refKey struct {
	file, syscall string
	// wide: pid and endLine are the Ref's, which opRef could not hold.
	wide         bool
	pid, endLine int
}

// refKeys remembers the last few handles a model made, so that a
// program's writes do not each ask the process-wide table.
type refKeys struct {
	keys [4]refKey
	hs   [4]unique.Handle[refKey]
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
	d := r.EndLine - r.Line
	if d >= math.MinInt32 && d <= math.MaxInt32 && r.PID >= math.MinInt32 && r.PID <= math.MaxInt32 {
		return opRef{seq: r.Seq, line: r.Line, endDelta: int32(d), pid: int32(r.PID),
			key: m.refKeys.handle(refKey{file: r.File, syscall: r.Syscall})}
	}
	return opRef{seq: r.Seq, line: r.Line,
		key: m.refKeys.handle(refKey{file: r.File, syscall: r.Syscall, wide: true, pid: r.PID, endLine: r.EndLine})}
}

// ref is the Ref r was made of.
func (r *opRef) ref() Ref {
	var k refKey
	if r.key != (unique.Handle[refKey]{}) {
		k = r.key.Value()
	}
	if k.wide {
		return Ref{Seq: r.seq, File: k.file, Line: r.line, EndLine: k.endLine, PID: k.pid, Syscall: k.syscall}
	}
	return Ref{Seq: r.seq, File: k.file, Line: r.line, EndLine: r.line + int(r.endDelta), PID: int(r.pid), Syscall: k.syscall}
}
