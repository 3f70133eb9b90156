package parser_test

import (
	"bufio"
	"bytes"
	"io"
	"strconv"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// The floor scanner is the yardstick of the parser's speed: a reader of
// strace lines that does no more than the model needs, and nothing else.
// It finds each line's pid, call and return value (with its errno and fd
// annotation), and for the argument positions model.ArgPositions names
// it keeps what the model reads: a number's value, an fd's or a
// directory's -y path, a string's text (unescaped when it holds an
// escape), the span of a struct; every path and errno is interned to an
// ID. It builds no Value, checks nothing it need not (no error with a
// column, no warning, no note of an old strace) and joins no split call:
// an unfinished half and its resumed half are two records. It is what a
// fixed-size event decoded straight from the line would cost, so that
// BenchmarkParseRealShaped/floor says how far the parser is from its own
// floor; TestFloorScannerAgrees holds it to the parser's reading, so that
// the floor is not a scanner that skips work the model needs.
//
// It lives in a test file: nothing in the product reads it.

// floorArg is one argument position the model reads.
type floorArg struct {
	start, end int32  // its span in the line
	num        int64  // its value, when isNum
	path       uint32 // its -y annotation or its string, interned, when hasPath
	size       int64  // a stat buffer's st_size, when hasSize
	isNum      bool
	hasPath    bool
	hasSize    bool
}

// floorEvent is one line's record. It is reused for the next line.
type floorEvent struct {
	line     int
	pid      int
	call     syscalls.Call
	name     []byte // the call's name as printed (for calls the table lacks)
	resumed  bool   // "<... name resumed>"
	finished bool   // the line ends in ") = RET" (not "<unfinished ...>")
	retKnown bool   // RET is a number, not "?"
	ret      int64
	errno    uint32 // interned, 0 for none
	retAnno  uint32 // interned -y annotation of a returned fd, 0 for none
	nargs    int    // argument positions recorded (up to the last wanted)
	args     [8]floorArg
}

// floorCall is a call's row and the positions the model reads of it.
type floorCall struct {
	call syscalls.Call
	want parser.ArgSet
}

// floorScanner reads lines into one floorEvent.
type floorScanner struct {
	ids     map[string]uint32
	names   []string // ids[names[i]] == i
	calls   map[string]floorCall
	scratch []byte
	ev      floorEvent
}

func newFloorScanner() *floorScanner {
	f := &floorScanner{ids: map[string]uint32{}, names: []string{""}, calls: map[string]floorCall{}}
	for _, c := range syscalls.Calls() {
		f.calls[c.Name()] = floorCall{c, model.ArgPositions(c.Name())}
	}
	return f
}

// intern returns the ID of b, giving it one the first time.
func (f *floorScanner) intern(b []byte) uint32 {
	if id, ok := f.ids[string(b)]; ok {
		return id
	}
	s := string(b)
	id := uint32(len(f.names))
	f.names = append(f.names, s)
	f.ids[s] = id
	return id
}

// scan reads every line of r, calling fn with each call line's record.
// Lines that are not calls (signals, exits, blank) are passed over.
func (f *floorScanner) scan(r io.Reader, fn func(*floorEvent)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 256<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if f.line(sc.Bytes(), line) {
			fn(&f.ev)
		}
	}
	return sc.Err()
}

// line fills f.ev from b and reports whether b was a call.
func (f *floorScanner) line(b []byte, n int) bool {
	ev := &f.ev
	ev.line, ev.pid, ev.nargs = n, 0, 0
	ev.resumed, ev.finished, ev.retKnown = false, false, false
	ev.ret, ev.errno, ev.retAnno = 0, 0, 0
	i := 0
	// pid, then a timestamp: digits, '.' and ':'.
	k := 0
	for k < len(b) && b[k]-'0' <= 9 {
		k++
	}
	if k > 0 && k < len(b) && b[k] == ' ' {
		for _, c := range b[:k] {
			ev.pid = ev.pid*10 + int(c-'0')
		}
		i = k + 1
		for i < len(b) && b[i] == ' ' {
			i++
		}
	}
	if i < len(b) && b[i]-'0' <= 9 {
		for i < len(b) && (b[i]-'0' <= 9 || b[i] == '.' || b[i] == ':') {
			i++
		}
		for i < len(b) && b[i] == ' ' {
			i++
		}
	}
	if len(b)-i > 5 && string(b[i:i+5]) == "<... " {
		ev.resumed = true
		i += 5
	}
	j := i
	for j < len(b) && (b[j] == '_' || b[j]-'a' < 26 || b[j]-'A' < 26 || b[j]-'0' <= 9) {
		j++
	}
	if j == i || j >= len(b) {
		return false
	}
	ev.name = b[i:j]
	fc := f.calls[string(ev.name)]
	want := fc.want
	ev.call = fc.call
	if ev.resumed {
		k := bytes.Index(b[j:], []byte("resumed>"))
		if k < 0 {
			return false
		}
		// The positions of a resumed half are counted from where it
		// resumed, which this scanner does not know: it records none.
		want = 0
		i = j + k + len("resumed>")
	} else {
		if b[j] != '(' {
			return false
		}
		i = j + 1
	}
	// The arguments, up to the last wanted position; the rest is found
	// by the closing parenthesis at depth 0.
	pos := 0
	for want>>uint(pos) != 0 && pos < len(ev.args) {
		for i < len(b) && b[i] == ' ' {
			i++
		}
		if i >= len(b) || b[i] == ')' || b[i] == '<' && bytes.HasPrefix(b[i:], []byte("<unfinished")) {
			break
		}
		end := argEnd(b, i)
		if end < 0 {
			return false
		}
		a := &ev.args[pos]
		*a = floorArg{start: int32(i), end: int32(end)}
		if want&(1<<uint(pos)) != 0 {
			f.arg(b[i:end], a)
		}
		pos++
		ev.nargs = pos
		i = end
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
	// The rest: the return value, found from the end of the line: the
	// last " = " after a ')' and spaces (strace pads short calls to a
	// column). An unfinished call ends in its mark instead.
	if bytes.HasSuffix(b, []byte("<unfinished ...>")) {
		return true
	}
	end := len(b)
	for {
		r := bytes.LastIndex(b[i:end], []byte(" = "))
		if r < 0 {
			return false
		}
		r += i
		p := r
		for p > i && b[p-1] == ' ' {
			p--
		}
		if p > 0 && b[p-1] == ')' {
			f.ret(b, r)
			return true
		}
		end = r
	}
}

// argEnd returns the index of the ',' or ')' that ends the argument at
// b[i] (at depth 0, outside strings), or -1.
func argEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		if !argMark[b[i]] {
			i++
			continue
		}
		switch c := b[i]; c {
		case '"':
			i = stringEnd(b, i)
			if i < 0 {
				return -1
			}
			continue
		case '{', '[', '(':
			depth++
		case '}', ']':
			depth--
		case ')':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		case '<':
			k := annoEnd(b, i)
			if k < 0 {
				if bytes.HasPrefix(b[i:], []byte("<unfinished")) && depth == 0 {
					return i
				}
				return -1
			}
			i = k
			continue
		}
		i++
	}
	return -1
}

// argMark marks the bytes argEnd stops at.
var argMark = func() (t [256]bool) {
	for _, c := range []byte(`"{[()]},<`) {
		t[c] = true
	}
	return t
}()

// stringEnd returns the index just past the string that opens at b[i]
// (the parser's own scan) and the "..." strace prints after a cut one,
// or -1.
func stringEnd(b []byte, i int) int {
	k := parser.StringEnd(b, i)
	if k >= 0 && len(b)-k >= 3 && string(b[k:k+3]) == "..." {
		k += 3
	}
	return k
}

// annoEnd returns the index just past the -y annotation that opens at
// b[i], nested -yy suffixes and "->" inside socket addresses included,
// or -1: the parser's own scan.
func annoEnd(b []byte, i int) int { return parser.AnnotationEnd(b, i) }

// arg keeps what the model reads of one wanted argument t.
func (f *floorScanner) arg(t []byte, a *floorArg) {
	// "name=value" (clone's flags=...): the value.
	if k := bytes.IndexByte(t, '='); k > 0 && t[0] != '"' && t[0] != '{' && t[0] != '[' && (k+1 >= len(t) || t[k+1] != '=') {
		t = t[k+1:]
	}
	if len(t) == 0 {
		return
	}
	switch c := t[0]; {
	case c == '"':
		e := stringEnd(t, 0)
		s := t[1:e]
		if len(s) >= 4 && string(s[len(s)-4:]) == "\"..." {
			s = s[:len(s)-4]
		} else {
			s = s[:len(s)-1]
		}
		if bytes.IndexByte(s, '\\') >= 0 {
			s = unescapeFloor(f.scratch[:0], s)
			f.scratch = s
		}
		a.path, a.hasPath = f.intern(s), true
	case c == '-' || c-'0' <= 9:
		k := 0
		if c == '-' {
			k++
		}
		for k < len(t) && (t[k]-'0' <= 9 || t[k] == 'x' || t[k]-'a' < 6) {
			k++
		}
		if v, err := strconv.ParseInt(string(t[:k]), 0, 64); err == nil {
			a.num, a.isNum = v, true
		}
		f.anno(t[k:], a)
	case c == '{':
		// A stat buffer: the model reads st_size (and st_mode, whose
		// span it keeps as the struct's).
		if k := bytes.Index(t, []byte("st_size=")); k >= 0 {
			e := k + len("st_size=")
			for e < len(t) && t[e]-'0' <= 9 {
				e++
			}
			a.size, _ = strconv.ParseInt(string(t[k+len("st_size="):e]), 10, 64)
			a.hasSize = true
		}
	default:
		// A symbolic value (AT_FDCWD, O_RDONLY|O_CLOEXEC), with an
		// annotation when it is AT_FDCWD under -y.
		if k := bytes.IndexByte(t, '<'); k > 0 {
			f.anno(t[k:], a)
		}
	}
}

// anno interns the -y annotation that t starts with, if any.
func (f *floorScanner) anno(t []byte, a *floorArg) {
	if len(t) < 2 || t[0] != '<' {
		return
	}
	e := annoEnd(t, 0)
	if e < 0 {
		return
	}
	in := t[1 : e-1]
	if k := bytes.LastIndexByte(in, '<'); k >= 0 && bytes.HasSuffix(in, []byte(">")) {
		in = in[:k] // "/dev/null<char 1:3>"
	}
	if bytes.IndexByte(in, '\\') >= 0 {
		in = unescapeFloor(f.scratch[:0], in)
		f.scratch = in
	}
	a.path, a.hasPath = f.intern(in), true
}

// ret reads " = RET[<anno>] [ERRNO (text)] [<dur>]" from b[i:].
func (f *floorScanner) ret(b []byte, i int) {
	ev := &f.ev
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != '=' {
		return
	}
	ev.finished = true
	i++
	for i < len(b) && b[i] == ' ' {
		i++
	}
	k := i
	if k < len(b) && b[k] == '-' {
		k++
	}
	for k < len(b) && (b[k]-'0' <= 9 || b[k] == 'x' || b[k]-'a' < 6) {
		k++
	}
	if k == i {
		return // "= ?"
	}
	v, err := strconv.ParseInt(string(b[i:k]), 0, 64)
	if err != nil {
		u, err := strconv.ParseUint(string(b[i:k]), 0, 64)
		if err != nil {
			return
		}
		v = int64(u)
	}
	ev.ret, ev.retKnown = v, true
	if k < len(b) && b[k] == '<' {
		var a floorArg
		f.anno(b[k:], &a)
		ev.retAnno = a.path
		return
	}
	if v < 0 && k+1 < len(b) && b[k] == ' ' && b[k+1]-'A' < 26 {
		e := k + 1
		for e < len(b) && (b[e]-'A' < 26 || b[e]-'0' <= 9 || b[e] == '_') {
			e++
		}
		ev.errno = f.intern(b[k+1 : e])
	}
}

// unescapeFloor decodes strace's escapes (\n, \t, \", \\, \xNN, octal).
func unescapeFloor(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'v':
			dst = append(dst, '\v')
		case 'f':
			dst = append(dst, '\f')
		case 'x':
			if i+2 < len(s) {
				v, _ := strconv.ParseUint(string(s[i+1:i+3]), 16, 8)
				dst = append(dst, byte(v))
				i += 2
			}
		default:
			if c >= '0' && c <= '7' {
				v, n := 0, 0
				for n < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7' {
					v = v*8 + int(s[i]-'0')
					i++
					n++
				}
				i--
				dst = append(dst, byte(v))
			} else {
				dst = append(dst, c)
			}
		}
	}
	return dst
}
