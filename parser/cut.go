package parser

import "fmt"

// A call strace cuts in two with -f may be cut inside an argument, not
// only between two: a decoder that prints part of a struct as the call
// starts and the rest as it returns leaves the struct open when another
// process's line comes between.
//
//	4321  ioctl(10, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=0 <unfinished ...>
//	4322  futex(0x7f00, FUTEX_WAKE_PRIVATE, 1) = 1
//	4321  <... ioctl resumed>, memory=V4L2_MEMORY_MMAP, length=4096}) = 0
//
// So may a value printed changed by the call (clone3's struct, "ENTRY =>
// EXIT"): the exit value comes with the resumed half.
//
//	111  clone3({flags=CLONE_VM, exit_signal=0} <unfinished ...>
//	111  <... clone3 resumed> => {parent_tid=[112]}, 88) = 112
//
// The first half reads the open value as far as it goes (each struct or
// array left open has More set) and the Reader keeps its text in an
// openCut. The resumed half is read joined to that text, as the one line
// strace would have printed had nothing come between, so that the call
// gets the arguments the uncut line gives.

// openCut is what the first half of a call cut short right after an
// argument (inside it or at its end) left open: the argument's text, for
// the resumed half to go on from.
type openCut struct {
	arg  int    // the argument's position
	text []byte // its text on the first half's line, up to the mark
	// closers are the brackets left open, outermost first ("}]" for
	// "{a=[1"); none when the argument ended before the mark.
	closers []byte
	// text[:split] is at file offset off, text[split:] at off2 (a
	// diagnostic cut the first half's line in two).
	off, off2 int64
	split     int
	line      int // the first half's line
}

// fileOff maps an index in c.text to its offset in the trace file.
func (c *openCut) fileOff(i int) int64 {
	if i >= c.split {
		return c.off2 + int64(i-c.split)
	}
	return c.off + int64(i)
}

// openers names the brackets closers close, outermost first: "{[" for "}]".
func openers(closers []byte) string {
	b := make([]byte, len(closers))
	for i, c := range closers {
		switch c {
		case '}':
			b[i] = '{'
		case ']':
			b[i] = '['
		default:
			b[i] = '('
		}
	}
	return string(b)
}

// cutMark reports whether b[i] starts a mark that cuts a call short inside
// brackets: "<unfinished ...>" (or strace 4.x's ptrace mark) or
// "<detached ...>".
func cutMark(b []byte, i int) bool {
	return unfinishedMark(b, i) > 0 || hasPrefix(b[i:], detachedText)
}

// cutInside ends the compound v at the mark at b[i] that cuts the call
// short inside it: its other elements are not known (More), and closer
// is noted as left open (l.closers, innermost first).
func (l *lineParser) cutInside(v *Value, i int, closer byte) int {
	v.More = true
	l.closers = append(l.closers, closer)
	return i
}

// arrowAt reports whether "=>" starts at b[k] after spaces: the resumed
// half brings the exit value of the argument its first half ended with.
func arrowAt(b []byte, k int) bool {
	k = skipSpaces(b, k)
	return hasPrefix(b[k:], "=>")
}

// closesCut checks that the resumed half at b[k:] closes the brackets c
// left open, in their order, before the line ends: every later bracket
// opened on the way must be closed by its own kind. It stops (no error)
// at what it cannot scan on its own (an unterminated string or comment or
// annotation) and at a mark cutting the call short again; the reading of
// the joined text reports those.
func (l *lineParser) closesCut(c *openCut, name string, k int) *Error {
	b := l.text
	stack := append(l.stack[:0], c.closers...)
	defer func() { l.stack = stack[:0] }()
	for i := k; i < len(b); {
		switch ch := b[i]; ch {
		case '"':
			e := scanString(b, i)
			if e < 0 {
				return nil
			}
			i = e
			continue
		case '/':
			if isCommentAt(b, i) {
				e := commentEnd(b, i)
				if e < 0 {
					return nil
				}
				i = e
				continue
			}
		case '<':
			if shiftAt(b, i) {
				i += 2
				continue
			}
			if cutMark(b, i) {
				return nil
			}
			if i > k {
				// After a value's text, as scanArgs takes it: a -y
				// annotation, whose path may hold any bracket.
				switch b[i-1] {
				case ' ', '(', '[', '{', ',':
				default:
					e := annotationEnd(b, i)
					if e < 0 {
						return nil
					}
					i = e
					continue
				}
			}
		case '(':
			stack = append(stack, ')')
		case '[':
			stack = append(stack, ']')
		case '{':
			stack = append(stack, '}')
		case ')', ']', '}':
			want := stack[len(stack)-1]
			if ch != want {
				return l.errorf(i, "expected %q, found %q: the resumed half of %s does not close what its first half (line %d) left open (%q)", want, ch, name, c.line, openers(c.closers))
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil
			}
		}
		i++
	}
	l.eolErr = true
	return l.errorf(len(b), "line ended inside what the first half of %s (line %d) left open (%q): expected %q", name, c.line, openers(c.closers), stack[len(stack)-1])
}

// joinCut makes the text to read a resumed half from: c's text, then
// the resumed half from b[k]. Indices below len(c.text) are on the first
// half's line (fileOff, errorf map them); the others on this one.
func (l *lineParser) joinCut(c *openCut, k int) {
	t := append(l.joinBuf[:0], c.text...)
	t = append(t, l.text[k:]...)
	l.joinBuf = t
	l.joinLine, l.text = l.text, t
	l.joinLen, l.joinAt, l.joined = len(c.text), k, c
}

// unjoin goes back to the resumed half's own line after joinCut (l.joined
// stays, for the Reader).
func (l *lineParser) unjoin() {
	if l.joinLen > 0 || l.joinLine != nil {
		l.text, l.joinLine = l.joinLine, nil
		l.joinLen, l.joinAt = 0, 0
	}
}

// noteCut keeps what the first half of pid's call, just read, left open
// (lp.openArg), or forgets what an earlier call of pid's left. An
// argument that ended before the mark is kept only when it is a struct or
// an array, whose exit value the resumed half may bring ("=> {...}"):
// most calls left unfinished end after a plain value (futex's NULL), and
// keep nothing.
func (r *Reader) noteCut(pid int) {
	r.dropCut(pid)
	lp := &r.lp
	if lp.openArg < 0 {
		return
	}
	start, end := lp.openStart, lp.openEnd
	for end > start && lp.text[end-1] == ' ' {
		end--
	}
	if len(lp.closers) == 0 && (end == start || lp.text[end-1] != '}' && lp.text[end-1] != ']') {
		return
	}
	var c *openCut
	if n := len(r.freeCuts); n > 0 {
		c, r.freeCuts = r.freeCuts[n-1], r.freeCuts[:n-1]
	} else {
		c = new(openCut)
	}
	c.arg = lp.openArg
	c.text = append(c.text[:0], lp.text[start:end]...)
	c.closers = c.closers[:0]
	for k := len(lp.closers) - 1; k >= 0; k-- {
		c.closers = append(c.closers, lp.closers[k])
	}
	c.off, c.split, c.off2 = lp.fileOff(start), len(c.text), 0
	if start < lp.splitAt && end > lp.splitAt {
		c.split, c.off2 = lp.splitAt-start, lp.off2
	}
	c.line = r.line
	if r.cuts == nil {
		r.cuts = map[int]*openCut{}
	}
	r.cuts[pid] = c
	if len(c.closers) > 0 {
		r.bracketCuts++
	}
}

// liveCut is what pid's pending call left open, nil for nothing.
func (r *Reader) liveCut(pid int) *openCut {
	if len(r.cuts) == 0 {
		return nil
	}
	return r.cuts[pid]
}

// dropCut forgets what pid's pending call left open, if anything.
func (r *Reader) dropCut(pid int) {
	if len(r.cuts) == 0 {
		return
	}
	c := r.cuts[pid]
	if c == nil {
		return
	}
	delete(r.cuts, pid)
	if len(c.closers) > 0 {
		r.bracketCuts--
	}
	r.freeCuts = append(r.freeCuts, c)
}

// mayJoin reports whether a resumed half may be read joined to what its
// first half left open, which the quick lane does not do: some pending
// call is cut inside brackets. (quickCall passes no resumed half that
// brings an exit value, "<... clone3 resumed> => {...".)
func (r *Reader) mayJoin() bool { return r.bracketCuts > 0 }

// joinedElsewhere is the error for a resumed half read joined to what
// the first half of another process's call left open: the reader placed
// the two halves in different processes.
func joinedElsewhere(ev *Event, c *openCut) *Error {
	return &Error{Pos: ev.Pos, Msg: fmt.Sprintf("%s resumed inside an argument the first half on line %d left open, but in another process", ev.Name, c.line)}
}
