package parser

import (
	"golang.org/x/sys/unix"
)

// longLine holds a line longer than the Reader's buffer, in anonymous
// memory of its own that grows with mremap(2). Growing moves page tables,
// not bytes, so a line of n bytes costs n bytes of memory: a slice grown
// by doubling holds the old copy and the new one while it grows, and
// leaves each smaller copy to the garbage collector, which is how a 2.2 GB
// line took over 6 GB. Once a line of more than keepLong bytes is parsed,
// its pages go back to the kernel at once (MADV_DONTNEED), not when a
// collection comes round; the mapping itself goes with free.
//
// Nothing outlives the line that is read from it: the parser copies what
// it keeps (see lineParser.intern), as it does from the bufio buffer. A
// stale read after release would see zeros, never fault.
type longLine struct {
	mem []byte // the mapping, nil until the first long line
	n   int    // bytes of the current line
}

// keepLong is how much of a long line's memory stays with the Reader for
// the next one.
const keepLong = 4 * readBlock

// add appends b, growing the mapping by doubling, but never past bound
// bytes. An error means the memory could not be had; the line is dropped
// then.
func (l *longLine) add(b []byte, bound int) error {
	need := l.n + len(b)
	if need > len(l.mem) {
		size := roundPage(min(max(2*len(l.mem), need, readBlock), max(bound, need)))
		var mem []byte
		var err error
		if l.mem == nil {
			mem, err = unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		} else {
			mem, err = unix.Mremap(l.mem, size, unix.MREMAP_MAYMOVE)
		}
		if err != nil {
			// The line is given up: its memory goes back before anything
			// else needs some (the error's message, for one).
			l.free()
			return err
		}
		l.mem = mem
	}
	l.n += copy(l.mem[l.n:], b)
	return nil
}

// size is the memory the buffer holds: mapped, touched or not.
func (l *longLine) size() int { return len(l.mem) }

// bytes is the line gathered so far.
func (l *longLine) bytes() []byte { return l.mem[:l.n:l.n] }

// reset starts the next line, giving back the pages of a large last one.
func (l *longLine) reset() {
	if l.n > keepLong {
		unix.Madvise(l.mem[:roundPage(l.n)], unix.MADV_DONTNEED)
	}
	l.n = 0
}

// free unmaps the memory.
func (l *longLine) free() {
	if l.mem != nil {
		unix.Munmap(l.mem)
	}
	l.mem, l.n = nil, 0
}

func roundPage(n int) int {
	const page = 4096 // a multiple of every page size Linux uses
	return (n + page - 1) &^ (page - 1)
}
