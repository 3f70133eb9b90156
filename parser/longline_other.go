//go:build !linux

package parser

// longLine holds a line longer than the Reader's buffer (see the Linux
// version): here a slice grown by doubling up to a bound.
type longLine struct {
	buf []byte
}

// keepLong is how much of a long line's memory stays with the Reader for
// the next one.
const keepLong = 4 * readBlock

func (l *longLine) add(b []byte, bound int) error {
	need := len(l.buf) + len(b)
	if need > cap(l.buf) {
		c := min(max(2*cap(l.buf), need, readBlock), max(bound, need))
		grown := make([]byte, len(l.buf), c)
		copy(grown, l.buf)
		l.buf = grown
	}
	l.buf = append(l.buf, b...)
	return nil
}

func (l *longLine) size() int { return cap(l.buf) }

func (l *longLine) bytes() []byte { return l.buf }

func (l *longLine) reset() {
	if cap(l.buf) > keepLong {
		l.buf = nil
		return
	}
	l.buf = l.buf[:0]
}

func (l *longLine) free() { l.buf = nil }
