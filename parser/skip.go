package parser

import "bytes"

// skipArgs passes over the arguments of a call whose arguments the reader
// was told not to decode (Options.DecodeArgs), from b[i] just after '(' (or
// after "resumed>") to the return value, allocating nothing. It reports
// ok false when the arguments do not scan cleanly; the caller then parses
// them in full and gives the same error as without skipping; so does a
// line whose return value does not read, and the last line of a trace when
// it has no newline (the reader does not skip there). It is not a
// validator: arguments that scan cleanly but would not decode, such as
// "a=)", pass.
func (l *lineParser) skipArgs(i int) (kind lineKind, err *Error, ok bool) {
	b := l.text
	start := i
	depth := 0  // brackets of any kind
	parens := 0 // parentheses inside the arguments: makedev(1, 3)
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			e := scanString(b, i)
			if e < 0 {
				return 0, nil, false
			}
			i = e
			continue
		case '(', '[', '{':
			depth++
			if c == '(' {
				parens++
			}
		case ')', ']', '}':
			if depth == 0 {
				if c != ')' {
					return 0, nil, false
				}
				return l.skippedRet(i + 1)
			}
			depth--
			if c == ')' && parens > 0 {
				parens--
			}
		case '/':
			if i+1 < len(b) && b[i+1] == '*' {
				e := commentEnd(b, i)
				if e < 0 {
					return 0, nil, false
				}
				i = e
				continue
			}
		case '<':
			// As the full parse reads it: right after a value (not after a
			// space, an opening bracket or a comma) and outside a call's
			// parentheses, '<' opens a -y annotation, whose path may hold
			// any of the bytes above, even "<unfinished ...>".
			prev := b[i-1]
			switch {
			case i > start && parens == 0 && prev != ' ' && prev != '(' && prev != '[' && prev != '{' && prev != ',':
				e := annotationEnd(b, i)
				if e < 0 {
					return 0, nil, false
				}
				i = e
				continue
			case depth == 0 && bytes.HasPrefix(b[i:], unfinishedMark):
				k := skipSpaces(b, i+len(unfinishedMark))
				if k >= len(b) {
					return lineUnfinished, nil, true
				}
				if b[k] == ')' {
					return l.skippedRet(k + 1)
				}
				return 0, nil, false
			case depth == 0 && bytes.HasPrefix(b[i:], detachedMark):
				if k, err := l.detached(i); err == nil {
					return k, nil, true
				}
				return 0, nil, false
			}
		}
		i++
	}
	return 0, nil, false
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
	depth := 0
	for k := i; k < len(b); k++ {
		switch b[k] {
		case '<':
			depth++
		case '>':
			if b[k-1] == '-' && depth == 1 && k-1 > i {
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
