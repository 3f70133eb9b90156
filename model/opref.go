package model

import (
	"math"
	"strings"
	"sync"
)

// opRef is a Ref as a pending data or entry operation keeps it: a check
// of many unsynced files keeps one of each per file and model, and the
// 64 bytes of a Ref were a third of them. The event's place, line and
// process fit in 32 bits each; the trace file, syscall name and distance
// to the line that ends the call (most often none), the same for a great
// many events, are one entry of a process-wide table, key its index. A
// Ref too big for that (seq is wideRef) has an entry of its own, which
// holds it whole. At 16 bytes a pending write fits the 80-byte size class
// and a create with its one name change the 80-byte one, where a 32-byte
// opRef put them in the 96- and 112-byte classes.
type opRef struct {
	seq, line uint32
	pid       int32
	key       uint32 // index in refTable; 0 is the zero refKey
}

// wideRef in opRef.seq says the key holds seq, line and pid.
const wideRef = math.MaxUint32

// refKey is what opRef keeps in refTable.
type refKey struct {
	file, syscall string
	endDelta      int // EndLine - Line
	// wide: seq, line and pid are the Ref's, which opRef could not hold.
	wide           bool
	seq, line, pid int
}

// refTable holds every refKey an opRef was made with, never letting one
// go: there are a few for each trace file, syscall and end-line distance
// (a Ref that opRef cannot hold in 32 bits, past four billion lines, adds
// one each). An index is 4 bytes where a unique.Handle is 8, which makes
// room for the process in opRef.
var refTable = struct {
	sync.RWMutex
	keys  []refKey
	index map[refKey]uint32
}{keys: []refKey{{}}, index: map[refKey]uint32{{}: 0}}

// refIndex returns k's index in refTable, adding it.
func refIndex(k refKey) uint32 {
	refTable.RLock()
	i, ok := refTable.index[k]
	refTable.RUnlock()
	if ok {
		return i
	}
	refTable.Lock()
	defer refTable.Unlock()
	if i, ok := refTable.index[k]; ok {
		return i
	}
	if len(refTable.keys) >= math.MaxUint32 {
		panic("model: too many distinct events for opRef")
	}
	// The table keeps the strings: copies, not slices of a larger buffer.
	k.file, k.syscall = strings.Clone(k.file), strings.Clone(k.syscall)
	i = uint32(len(refTable.keys))
	refTable.keys = append(refTable.keys, k)
	refTable.index[k] = i
	return i
}

// refKeyAt returns the refKey of index i.
func refKeyAt(i uint32) refKey {
	if i == 0 {
		return refKey{}
	}
	refTable.RLock()
	k := refTable.keys[i]
	refTable.RUnlock()
	return k
}

// refKeys remembers the last few keys a model made, so that a program's
// writes do not each ask the process-wide table.
type refKeys struct {
	keys [8]refKey
	idx  [8]uint32
	next int
}

func (c *refKeys) index(k refKey) uint32 {
	for i := range c.keys {
		if c.idx[i] != 0 && c.keys[i] == k {
			return c.idx[i]
		}
	}
	i := refIndex(k)
	c.keys[c.next], c.idx[c.next] = k, i
	c.next = (c.next + 1) % len(c.keys)
	return i
}

// packRef makes r an opRef.
func (m *Model) packRef(r Ref) opRef {
	k := refKey{file: r.File, syscall: r.Syscall, endDelta: r.EndLine - r.Line}
	if r.Seq >= 0 && r.Seq < wideRef && r.Line >= 0 && r.Line <= math.MaxUint32 && r.PID >= math.MinInt32 && r.PID <= math.MaxInt32 {
		return opRef{seq: uint32(r.Seq), line: uint32(r.Line), pid: int32(r.PID), key: m.refKeys.index(k)}
	}
	k.wide, k.seq, k.line, k.pid = true, r.Seq, r.Line, r.PID
	return opRef{seq: wideRef, key: m.refKeys.index(k)}
}

// ref is the Ref r was made of.
func (r *opRef) ref() Ref {
	k := refKeyAt(r.key)
	seq, line, pid := int(r.seq), int(r.line), int(r.pid)
	if k.wide {
		seq, line, pid = k.seq, k.line, k.pid
	}
	return Ref{Seq: seq, File: k.file, Line: line, EndLine: line + k.endDelta, PID: pid, Syscall: k.syscall}
}

// seqOf is ref().Seq, without building the Ref.
func (r *opRef) seqOf() int {
	if r.seq == wideRef {
		return refKeyAt(r.key).seq
	}
	return int(r.seq)
}
