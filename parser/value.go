package parser

import (
	"bytes"
	"strconv"

	"github.com/crashsim/crashsim/internal/textesc"
)

// value reads one argument (or one struct field or array element) starting
// at b[i] into *v, which is zero. data marks the data buffer of a read or
// write: its strings are referenced, never decoded inline. It returns the
// index just past it. (Filled in place, not returned: a Value is 144
// bytes, and copying it out and into the arguments was some 4% of
// reading a trace.)
func (l *lineParser) value(v *Value, i, depth int, data bool) (int, *Error) {
	b := l.text
	if depth > maxDepth {
		return 0, l.errorf(i, "arguments nested too deeply")
	}
	if i >= len(b) {
		l.eolErr = true
		return 0, l.errorf(i, "line ended where a value was expected")
	}
	// A struct field or a named argument (clone's flags=...): name=value,
	// but not "==". Otherwise the name is where a symbolic value starts
	// (plainTerm need not read it again).
	named := i
	if isNameByte(b[i]) && !isDigit(b[i]) {
		j := i
		for j < len(b) && nameByte[b[j]] {
			j++
		}
		named = j
		if j < len(b) && b[j] == '=' && (j+1 >= len(b) || b[j+1] != '=') {
			v.Name = l.intern(b[i:j])
			i = j + 1
			if i >= len(b) {
				l.eolErr = true
				return 0, l.errorf(i, "expected a value after %s", textesc.Excerpt(v.Name+"=", maxNameShown))
			}
			if depth > 0 && (b[i] == ',' || b[i] == '}') {
				// A field printed with nothing after its '=': strace 6
				// prints a termios flag set with no flag on so
				// ("{c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, ...}"
				// after tcsetattr of raw mode). The field is ValNone.
				return i, nil
			}
		}
	}
	var j int
	var err *Error
	if b[i] == '/' && isCommentAt(b, i) {
		// A comment in place of a value: strace 4.x printed getdents'
		// buffer as "/* 92 entries */" where strace 5 and later print its
		// address and then the comment.
		e := commentEnd(b, i)
		if e < 0 {
			l.eolErr = true
			return 0, l.errorf(i, "unterminated comment: expected \"*/\"")
		}
		v.Kind = ValOther
		if !l.skipping {
			l.valueExtra(v).Comment = string(bytes.TrimSpace(b[i+2 : e-2]))
		}
		l.old = "a comment in place of an argument (" + snippet(b[i:e]) + ")"
		return e, nil
	}
	switch b[i] {
	case '"':
		j, err = l.stringValue(v, i, data)
	case '{':
		j, err = l.compound(v, i, '}', ValStruct, depth, data)
	case '[':
		j, err = l.compound(v, i, ']', ValArray, depth, data)
	default:
		if j = l.plainTermFrom(v, i, named); j > 0 {
			return j, nil
		}
		j, err = l.term(v, i)
	}
	if err != nil {
		return 0, err
	}
	// "ENTRY => EXIT": strace prints an argument the call changed twice
	// (clone3's struct, with the child's tid filled in). The entry value is
	// what the program asked for; the exit value is read past.
	if k := skipSpaces(b, j); k < len(b) && b[k] == '=' && hasPrefix(b[k:], "=> ") {
		out := new(Value)
		e, err := l.value(out, skipSpaces(b, k+3), depth+1, data)
		if err != nil {
			return 0, err
		}
		if !l.skipping {
			l.valueExtra(v).Exit = out
		}
		j = e
	}
	verboseName(v)
	// A value followed by more than a delimiter (e.g. "abc"... or [..]|X)
	// is an expression: keep its text.
	if k := skipSpaces(b, j); v.Kind != ValNone && k < len(b) && !isDelim(b, k) {
		name := v.Name
		*v = Value{Name: name}
		if j, err = l.term(v, i); err != nil {
			return 0, err
		}
	}
	return j, nil
}

// valueExtraSlab is how many ValueExtras one allocation of valueExtra
// holds.
const valueExtraSlab = 64

// valueExtra returns v.Extra, carved from a slab when v has none yet.
func (l *lineParser) valueExtra(v *Value) *ValueExtra {
	if v.Extra == nil {
		if m := l.mem; m != nil {
			v.Extra = m.valueExtra()
			return v.Extra
		}
		if len(l.valueExtras) == 0 {
			l.valueExtras = make([]ValueExtra, valueExtraSlab)
		}
		v.Extra = &l.valueExtras[0]
		l.valueExtras = l.valueExtras[1:]
	}
	return v.Extra
}

// addComment adds the comment text c (without "/*" and "*/") to v's,
// "|" between them.
func (l *lineParser) addComment(v *Value, c []byte) {
	x := l.valueExtra(v)
	if x.Comment != "" {
		x.Comment += "|"
	}
	x.Comment += string(bytes.TrimSpace(c))
}

// isDelim reports whether b[k] ends a value.
func isDelim(b []byte, k int) bool {
	switch b[k] {
	case ',', ')', ']', '}':
		return true
	case '<':
		return unfinishedMark(b, k) > 0 || hasPrefix(b[k:], detachedText)
	case '/':
		return isCommentAt(b, k)
	}
	return false
}

func (l *lineParser) stringValue(v *Value, i int, data bool) (int, *Error) {
	b := l.text
	end := scanString(b, i)
	if end < 0 {
		l.eolErr = true
		return 0, l.errorf(i, "unterminated string: expected '\"'")
	}
	v.Kind = ValString
	raw := b[i+1 : end-1]
	v.Data = DataRef{File: l.file, Off: l.fileOff(i + 1), Len: len(raw)}
	if !data && len(raw) <= MaxInlineString {
		s, ok := unescape(l.scratch[:0], raw)
		l.scratch = s
		if !ok {
			return 0, l.errorf(i, "bad escape in string")
		}
		v.Str, v.HasStr = l.intern(s), true
	}
	if hasPrefix(b[end:], "...") {
		v.Data.Truncated = true
		end += 3
	}
	return l.comment(v, end), nil
}

// compound reads {...} or [...] elements separated by commas; an element
// "..." marks a cut.
func (l *lineParser) compound(v *Value, i int, closer byte, kind ValueKind, depth int, data bool) (int, *Error) {
	// The elements gather on a stack of this nesting depth's own (see
	// elemStacks); the value gets an exact copy when it closes.
	for len(l.elemStacks) <= depth {
		l.elemStacks = append(l.elemStacks, nil)
	}
	base := len(l.elemStacks[depth])
	defer func() { l.elemStacks[depth] = l.elemStacks[depth][:base] }()
	j, err := l.compoundInto(v, i, closer, kind, depth, data, base)
	if err == nil && v.Kind == kind && len(l.elemStacks[depth]) > base && !l.skipping {
		v.Elems = l.carve(l.elemStacks[depth][base:])
	}
	return j, err
}

func (l *lineParser) compoundInto(v *Value, i int, closer byte, kind ValueKind, depth int, data bool, base int) (int, *Error) {
	b := l.text
	start := i
	v.Kind = kind
	i++
	for {
		i = skipSpaces(b, i)
		if i >= len(b) {
			l.eolErr = true
			return 0, l.errorf(i, "line ended inside %s: expected %q", kindWord(kind), closer)
		}
		if b[i] == closer {
			return l.comment(v, i+1), nil
		}
		if b[i] == '.' && hasPrefix(b[i:], "...") {
			v.More = true
			i += 3
		} else if b[i] == '<' && cutMark(b, i) {
			// "{a=1, <unfinished ...>": cut short here (see openCut).
			return l.cutInside(v, i, closer), nil
		} else if isCommentAt(b, i) {
			// "[/* 26 vars */]": strace 4.x's execve environment, a
			// comment in place of the elements.
			k := commentEnd(b, i)
			if k < 0 {
				l.eolErr = true
				return 0, l.errorf(i, "unterminated comment: expected \"*/\"")
			}
			if !l.skipping {
				l.addComment(v, b[i+2:k-2])
			}
			if len(v.Elems) == 0 {
				l.old = snippet(b[start:min(k+1, len(b))])
			}
			i = k
		} else {
			// Read in place on this depth's stack: an element that is a
			// struct or an array gathers its own elements on the next
			// depth's, so no append moves this one while it is read.
			s := append(l.elemStacks[depth], Value{})
			l.elemStacks[depth] = s
			j, err := l.value(&s[len(s)-1], i, depth+1, data)
			if err != nil {
				if !emptyElement(b, start, i) {
					return 0, err
				}
				// Some strace 4.x builds on ARM print an element of a
				// struct as nothing at all: "{SIG_DFL, , {...}}".
				// Nothing was printed, so the element is the zero Value,
				// ValNone, and the comma after it is read below as after
				// any other. It is found here, where value failed on it,
				// and not tested for before value: an element nearly
				// always holds something, and this way an element that
				// reads is tested for nothing more than before.
				s[len(s)-1] = Value{}
				j = i
			}
			i = j
		}
		i = skipSpaces(b, i)
		if i >= len(b) {
			l.eolErr = true
			return 0, l.errorf(i, "line ended inside %s: expected %q", kindWord(kind), closer)
		}
		switch {
		case b[i] == ',':
			i++
		case b[i] == closer:
		case isCommentAt(b, i):
			// "[... /* 3 entries */]" or a field comment.
			k := commentEnd(b, i)
			if k < 0 {
				return 0, l.errorf(i, "unterminated comment: expected \"*/\"")
			}
			i = k
		case b[i] == '<' && cutMark(b, i):
			// "{a=1 <unfinished ...>": cut short after an element.
			return l.cutInside(v, i, closer), nil
		default:
			// Space-separated sets such as [INT TERM]: keep as text.
			name := v.Name
			*v = Value{Name: name}
			l.elemStacks[depth] = l.elemStacks[depth][:base]
			return l.term(v, start)
		}
	}
}

// emptyElement reports whether the element of the struct or array opening
// at b[start] that should start at b[i] is empty: a comma stands there,
// and only spaces stand between it and the comma that ended the element
// before. A first element that is empty ("{, a}") is not one: no strace
// is known to print it, and it stays an error, as does an empty argument
// outside brackets ("write(3, , 5)").
func emptyElement(b []byte, start, i int) bool {
	if i >= len(b) || b[i] != ',' {
		return false
	}
	k := i - 1
	for k > start && b[k] == ' ' {
		k--
	}
	return k > start && b[k] == ','
}

func kindWord(k ValueKind) string {
	if k == ValStruct {
		return "a struct"
	}
	return "an array"
}

// term reads a scalar or expression up to a delimiter at nesting depth 0:
// numbers, flag sets, identifiers, calls like makedev(1, 3), and fd
// annotations ("3</tmp/x>", "AT_FDCWD</home>").
func (l *lineParser) term(v *Value, i int) (int, *Error) {
	b := l.text
	start := i
	depth := 0
	textEnd := -1     // where the text stops when an annotation follows
	var cuts [][2]int // comments to leave out of the text
scan:
	for {
		for i < len(b) && !termClass[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch c {
		case '"':
			e := scanString(b, i)
			if e < 0 {
				l.eolErr = true
				return 0, l.errorf(i, "unterminated string: expected '\"'")
			}
			i = e
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				break scan
			}
			depth--
		case ',':
			if depth == 0 {
				break scan
			}
		case '<':
			if shiftAt(b, i) {
				// "B38400<<IBSHIFT", "1<<CAP_WAKE_ALARM": a shift in
				// the value's text, never an annotation.
				i += 2
				continue
			}
			if depth == 0 && i > start && b[i-1] != ' ' {
				a, k, del, err := l.annotation(i)
				if err != nil {
					return 0, err
				}
				if textEnd < 0 {
					textEnd = i
				}
				v.Anno, v.HasAnno, v.Deleted = a, true, del
				i = k
				continue
			}
			if depth == 0 && (unfinishedMark(b, i) > 0 || hasPrefix(b[i:], detachedText)) {
				break scan
			}
		case '/':
			if i+1 < len(b) && b[i+1] == '*' {
				// -X verbose: "0x1200000 /* CLONE_A|CLONE_B */|17 /* SIGCHLD */".
				e := commentEnd(b, i)
				if e < 0 {
					l.eolErr = true
					return 0, l.errorf(i, "unterminated comment: expected \"*/\"")
				}
				if depth == 0 {
					if !l.skipping {
						l.addComment(v, b[i+2:e-2])
					}
					cuts = append(cuts, [2]int{i, e})
				}
				i = e
				continue
			}
		}
		i++
	}
	if depth != 0 {
		l.eolErr = true
		return 0, l.errorf(i, "line ended inside brackets: expected a closing bracket")
	}
	end := i
	if textEnd < 0 {
		textEnd = end
	}
	text := b[start:textEnd]
	if len(cuts) > 0 {
		var t []byte
		k := start
		for _, c := range cuts {
			if c[0] >= textEnd {
				break
			}
			t = append(t, bytes.TrimRight(b[k:c[0]], " ")...)
			k = c[1]
		}
		if k < textEnd {
			t = append(t, b[k:textEnd]...)
		}
		text = t
	}
	for len(text) > 0 && text[len(text)-1] == ' ' {
		text = text[:len(text)-1]
	}
	if len(text) == 0 {
		return 0, l.errorf(start, "expected an argument")
	}
	if l.skipping {
		// Nothing of a skipped value is kept.
	} else if isAddress(text) {
		// Pointers are nearly all distinct: looking them up only fills
		// the intern table with strings that never come back.
		v.Text = string(text)
	} else {
		v.Text = l.intern(text)
	}
	v.Kind = classify(text)
	if len(cuts) > 0 {
		return end, nil
	}
	return l.comment(v, end), nil
}

// plainTerm reads the commonest terms at b[i] as term and value would,
// without their general machinery: a decimal number ("832", "-1") or a
// symbolic value ("NULL", "O_RDONLY|O_CLOEXEC"), with or without a -y
// annotation ("3</etc/passwd>", "AT_FDCWD</home>"), ended by a delimiter
// right after it (',', ')', ']', '}'). It returns the index of that
// delimiter, or 0, having changed nothing, for anything else (a space or
// a comment after it, hex, octal, an annotation that does not read), which
// term then reads.
func (l *lineParser) plainTerm(v *Value, i int) int { return l.plainTermFrom(v, i, i) }

// plainTermFrom is plainTerm knowing that b[i:from] are name bytes (from
// >= i), which a symbolic value's scan need not look at again.
func (l *lineParser) plainTermFrom(v *Value, i, from int) int {
	b := l.text
	k := i
	kind := ValIdent
	switch c := b[k]; {
	case c == '-' || isDigit(c):
		kind = ValNumber
		if c == '-' {
			k++
		}
		if k >= len(b) || !isDigit(b[k]) {
			return 0
		}
		if b[k] == '0' {
			// 0 alone; 0644 and 0x1f are term's (octal, hex, addresses).
			k++
			break
		}
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k-i > 19 {
			return 0
		}
	case nameByte[c]:
		k = max(k, from)
		for k < len(b) && identByte[b[k]] {
			k++
		}
	default:
		return 0
	}
	if k >= len(b) {
		return 0
	}
	textEnd := k
	var anno string
	var hasAnno, deleted bool
	if b[k] == '<' {
		if shiftAt(b, k) {
			return 0 // a shift, which term reads as part of the text
		}
		a, e, del, err := l.annotation(k)
		if err != nil {
			return 0
		}
		anno, hasAnno, deleted, k = a, true, del, e
		if k >= len(b) {
			return 0
		}
	}
	switch b[k] {
	case ',', ')', ']', '}':
	default:
		return 0
	}
	if kind == ValNumber && textEnd-i <= 2 && b[i] != '-' {
		// fds, counts, flags 0: most numbers are one or two digits,
		// whose strings are made once, not looked up.
		v.Text = smallNumbers[atoi(b[i:textEnd])]
	} else {
		v.Text = l.intern(b[i:textEnd])
	}
	v.Kind = kind
	v.Anno, v.HasAnno, v.Deleted = anno, hasAnno, deleted
	return k
}

// smallNumbers are the texts of 0 to 99.
var smallNumbers = func() (t [100]string) {
	for n := range t {
		t[n] = strconv.Itoa(n)
	}
	return t
}()

// comment reads an optional " /* ... */" after a value (-X verbose prints
// flag names there; getdents prints entry counts).
func (l *lineParser) comment(v *Value, i int) int {
	b := l.text
	k := skipSpaces(b, i)
	if !isCommentAt(b, k) {
		return i
	}
	j := commentEnd(b, k)
	if j < 0 {
		return i
	}
	if !l.skipping {
		l.valueExtra(v).Comment = string(bytes.TrimSpace(b[k+2 : j-2]))
	}
	// -X verbose with -y puts the annotation after the comment.
	if j < len(b) && b[j] == '<' && v.Kind != ValString {
		if a, k2, del, err := l.annotation(j); err == nil {
			v.Anno, v.HasAnno, v.Deleted = a, true, del
			j = k2
		}
	}
	return j
}

// isAddress matches a long hex number such as 0x7ffd2b1e4c58.
func isAddress(text []byte) bool {
	if len(text) < 10 || text[0] != '0' || text[1] != 'x' {
		return false
	}
	for _, c := range text[2:] {
		if !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func classify(text []byte) ValueKind {
	// Only a digit or '-' starts a number (parseInt).
	if len(text) > 0 && (isDigit(text[0]) || text[0] == '-') {
		if _, ok := parseInt(text); ok {
			return ValNumber
		}
	}
	for _, c := range text {
		if !identByte[c] {
			return ValOther
		}
	}
	return ValIdent
}

// identByte marks the bytes of a symbolic value: names and '|'.
var identByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isNameByte(byte(c)) || c == '|'
	}
	return t
}()

// termClass marks the bytes term must look at; it passes over every other
// byte in a tight loop.
var termClass = [256]bool{'"': true, '(': true, '[': true, '{': true, ')': true, ']': true, '}': true, ',': true, '<': true, '/': true}

// shiftAt reports whether b[i] == '<' starts "<<", which strace prints
// in a value for a bit shift ("B38400<<IBSHIFT" in termios flags,
// "1<<CAP_WAKE_ALARM" in capability sets): a -y annotation holds a path
// or a "type:[inode]" name, and never starts with '<'.
func shiftAt(b []byte, i int) bool {
	return i+1 < len(b) && b[i+1] == '<'
}

// annotation reads a -y/-yy annotation "<...>" at b[i] == '<' and returns
// it decoded, the index past it (and past a "(deleted)" after it), and
// whether the file was deleted. Paths
// escape '<' and '>', but -yy device and socket suffixes nest
// ("</dev/null<char 1:3>>", "<TCP:[1.2.3.4:5->6.7.8.9:10]>").
func (l *lineParser) annotation(i int) (string, int, bool, *Error) {
	b := l.text
	for _, p := range &l.annos {
		// An fd's path comes back on the lines after its open (read,
		// fstat, mmap, close), and the cwd on every *at call: a path read
		// plainly before is known by comparing the bytes, not scanning
		// and interning them again. p holds no '<', '>' or '\\' and does
		// not end in '-', so the '>' after it is the first, as
		// plainAnnotation would find.
		if n := len(p); n > 0 && i+1+n < len(b) && b[i+1+n] == '>' && string(b[i+1:i+1+n]) == p {
			if l.skipping {
				p = ""
			}
			end := i + 2 + n
			if hasPrefix(b[end:], "(deleted)") {
				return p, end + len("(deleted)"), true, nil
			}
			return p, end, false, nil
		}
	}
	k := plainAnnotation(b, i)
	plain := k != 0
	if !plain {
		if k = annotationEnd(b, i) - 1; k < 0 {
			l.eolErr = true
			return "", 0, false, l.errorf(i, "unterminated fd annotation: expected '>'")
		}
	}
	inner := b[i+1 : k]
	var s []byte
	if plain {
		// No '<' and no '\\' inside: the text is the path as it is.
		s = inner
	} else {
		// "/dev/null<char 1:3>": keep the path, drop the device numbers.
		if n := len(inner); n > 0 && inner[n-1] == '>' {
			if p := bytes.LastIndexByte(inner[:n-1], '<'); p >= 0 && (hasPrefix(inner[p:], "<char ") || hasPrefix(inner[p:], "<block ")) {
				inner = inner[:p]
			}
		}
		var ok bool
		s, ok = unescape(l.scratch[:0], inner)
		l.scratch = s
		if !ok {
			return "", 0, false, l.errorf(i, "bad escape in fd annotation")
		}
	}
	end := k + 1
	if hasPrefix(b[end:], "(deleted)") {
		return l.intern(s), end + len("(deleted)"), true, nil
	}
	if bytes.HasSuffix(s, []byte(" (deleted)")) {
		// Older strace prints the marker inside the brackets.
		return l.intern(s[:len(s)-len(" (deleted)")]), end, true, nil
	}
	a := l.intern(s)
	if plain && !l.skipping {
		l.annos[1], l.annos[0] = l.annos[0], a
	}
	return a, end, false, nil
}

// isCommentAt reports whether a comment opens at b[i] ("/*"), i >= 0: a
// test of two bytes, where hasPrefix(b[i:], "/*") slices b first, on
// every value.
func isCommentAt(b []byte, i int) bool {
	return i+1 < len(b) && b[i] == '/' && b[i+1] == '*'
}

// commentEnd returns the index just past the "*/" closing the comment that
// opens at b[i:i+2] == "/*", or -1. "/*/" does not close itself.
func commentEnd(b []byte, i int) int {
	e := bytes.Index(b[i+2:], []byte("*/"))
	if e < 0 {
		return -1
	}
	return i + 2 + e + 2
}

// verboseName makes a value printed by -X verbose read like strace's
// default output: "-100 /* AT_FDCWD */" becomes AT_FDCWD and "0x241 /*
// O_WRONLY|O_CREAT|O_TRUNC */" the flag names, so that the model sees the
// same event whichever way it was printed. Only numbers whose comment is
// a plain symbolic expression are renamed; "/* 5 entries */" and dates
// stay comments.
func verboseName(v *Value) {
	if v.Comment() == "" || v.Kind != ValNumber && v.Kind != ValIdent && v.Kind != ValOther || !numbersOnly(v.Text) {
		return
	}
	c := v.Comment()
	for i := 0; i < len(c); i++ {
		if !isNameByte(c[i]) && c[i] != '|' {
			return
		}
	}
	if isDigit(c[0]) {
		return
	}
	v.Text = c
	v.Kind = classify([]byte(c))
}

// numbersOnly matches "-100", "0x241", "0x1200000|17".
func numbersOnly(t string) bool {
	if t == "" {
		return false
	}
	for len(t) > 0 {
		k := 0
		for k < len(t) && t[k] != '|' {
			k++
		}
		if _, ok := parseInt(t[:k]); !ok {
			return false
		}
		if k == len(t) {
			break
		}
		t = t[k+1:]
	}
	return true
}
