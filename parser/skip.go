package parser

import "bytes"

// skipArgs passes over the arguments of a call whose arguments the reader
// was told not to decode (Options.DecodeArgs), from b[i] just after '(' (or
// after "resumed>") to the return value, allocating nothing. It reports
// ok false when the arguments hold anything it does not read exactly as
// the full reading would: a '<' inside brackets or after '=' (whether it
// opens a -y annotation depends on the value it is in), a stray closing
// bracket, a string, comment or annotation that does not end on the line.
// The caller then walks the values one by one (argsAndReturnSet), which
// reads every shape as the full reading does and gives its errors. So does
// a line whose return value does not read, and the last line of a trace
// when it has no newline (the reader does not skip there). It is not a
// validator: arguments that scan cleanly but would not decode, such as
// "a=)", pass.
func (l *lineParser) skipArgs(i int) (kind lineKind, err *Error, ok bool) {
	j, kind, ok := l.scanArgs(i)
	switch {
	case !ok:
		return 0, nil, false
	case kind == lineCall && j >= 0:
		return l.skippedRet(j)
	}
	return kind, nil, true
}

// scanArgs is skipArgs without the return value: for a call it returns
// the index just past its closing ')', where the return value starts
// (-1 for a call strace detached from, which has none). It keeps nothing
// of the arguments and reports ok false as skipArgs does.
func (l *lineParser) scanArgs(i int) (end int, kind lineKind, ok bool) {
	b := l.text
	start := i
	depth := 0 // brackets of any kind
	for {
		for i < len(b) && !skipClass[b[i]] {
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
				return 0, 0, false
			}
			i = e
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if c != ')' {
					return 0, 0, false
				}
				return i + 1, lineCall, true
			}
			depth--
		case '/':
			if i+1 < len(b) && b[i+1] == '*' {
				if commentInPlaceOfValue(b, start, i) {
					// Only strace 4.x prints a comment where a value or
					// the elements belong ("[/* 44 vars */]"): the full
					// reading notes that shape for the hint an unreadable
					// line gets later (lineParser.old), so it reads
					// this line.
					return 0, 0, false
				}
				e := commentEnd(b, i)
				if e < 0 {
					return 0, 0, false
				}
				i = e
				continue
			}
		case '<':
			if shiftAt(b, i) {
				i += 2 // a shift in a value, as term reads it
				continue
			}
			if depth > 0 {
				return 0, 0, false
			}
			// As the full reading reads a value at the top level: right
			// after a value's text (not after a space, an opening bracket
			// or a comma), '<' opens a -y annotation, whose path may hold
			// any of the bytes above, even "<unfinished ...>".
			prev := b[i-1]
			switch {
			case i > start && prev == '=':
				return 0, 0, false
			case i > start && prev != ' ' && prev != '(' && prev != '[' && prev != '{' && prev != ',':
				e := annotationEnd(b, i)
				if e < 0 {
					return 0, 0, false
				}
				i = e
				continue
			case unfinishedMark(b, i) > 0:
				k := skipSpaces(b, i+unfinishedMark(b, i))
				if k >= len(b) {
					return 0, lineUnfinished, true
				}
				if b[k] == ')' {
					return k + 1, lineCall, true
				}
				return 0, 0, false
			case hasPrefix(b[i:], detachedText):
				if k, err := l.detached(i); err == nil {
					return -1, k, true
				}
				return 0, 0, false
			}
		}
		i++
	}
	return 0, 0, false
}

// skipClass marks the bytes skipArgs must look at; it passes over every
// other byte in a tight loop.
var skipClass = [256]bool{'"': true, '(': true, '[': true, '{': true, ')': true, ']': true, '}': true, '/': true, '<': true}

// commentInPlaceOfValue reports whether the comment at b[i] stands where
// an argument or an element starts (after '(', '[', '{', ',' or at the
// start of the skipped text) rather than after a value, as strace 5 and
// later print theirs ("0x7ffd... /* 13 vars */").
func commentInPlaceOfValue(b []byte, start, i int) bool {
	k := i - 1
	for k >= start && b[k] == ' ' {
		k--
	}
	if k < start {
		return true
	}
	switch b[k] {
	case '(', '[', '{', ',':
		return true
	}
	return false
}

// skippedRet reads the return value after skipped arguments. A line that
// does not read is parsed in full instead, for the error it gives then.
func (l *lineParser) skippedRet(i int) (lineKind, *Error, bool) {
	if err := l.ret(i); err != nil {
		return 0, nil, false
	}
	return lineCall, nil, true
}

// annotationEnd returns the index just past the annotation "<...>" at b[i],
// or -1; it scans as annotation does, without decoding.
func annotationEnd(b []byte, i int) int {
	if k := plainAnnotation(b, i); k > 0 {
		return k + 1
	}
	// A path (always absolute under -y) escapes its own '<' and '>'
	// but not its brackets ("</tmp/[a->"): only a socket's annotation,
	// which starts with its protocol, has an arrow.
	path := i+1 < len(b) && b[i+1] == '/'
	depth, brackets := 0, 0
	for k := i; k < len(b); k++ {
		switch b[k] {
		case '<':
			depth++
		case '[':
			brackets++
		case ']':
			brackets--
		case '>':
			// "->" joins a socket's two ends inside its brackets
			// ("<TCP:[1.2.3.4:5->6.7.8.9:10]>"); anywhere else the '>'
			// closes, even after a path that ends in '-' (the backups
			// shadow-utils keeps, "</etc/passwd->").
			if b[k-1] == '-' && brackets > 0 && !path {
				continue
			}
			depth--
		case '\\':
			k++
		}
		if depth == 0 {
			return k + 1
		}
	}
	return -1
}

// plainAnnotation returns the index of the '>' closing the annotation at
// b[i] == '<' when it holds no '<', no escape and does not end in "->"
// (most fd paths), found with two byte searches; 0 when it is not that
// simple and must be scanned byte by byte.
func plainAnnotation(b []byte, i int) int {
	k := bytes.IndexByte(b[i+1:], '>')
	if k <= 0 {
		return 0
	}
	inner := b[i+1 : i+1+k]
	if inner[k-1] == '-' || bytes.IndexByte(inner, '<') >= 0 || bytes.IndexByte(inner, '\\') >= 0 {
		return 0
	}
	return i + 1 + k
}
