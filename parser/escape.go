package parser

import "bytes"

// scanString finds the end of a quoted string that starts at b[i] == '"'.
// It returns the index just past the closing quote, or -1 when the line
// ends first. strace escapes '"' inside strings, so the first quote not
// preceded by an odd number of backslashes closes it; with -xx every byte
// is \xHH and IndexByte runs at memory speed.
func scanString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// unescape decodes strace's C-style escapes (\n \t \" \\ \xHH \NNN) into
// dst. It reports false when the text holds an escape strace never prints.
func unescape(dst, src []byte) ([]byte, bool) {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' {
			// Copy the run up to the next escape in one go: most
			// strings and paths hold none.
			k := bytes.IndexByte(src[i:], '\\')
			if k < 0 {
				return append(dst, src[i:]...), true
			}
			dst = append(dst, src[i:i+k]...)
			i += k - 1
			continue
		}
		i++
		if i >= len(src) {
			return dst, false
		}
		c = src[i]
		if b, ok := simpleEscape(c); ok {
			dst = append(dst, b)
			continue
		}
		switch c {
		case 'x':
			if i+2 >= len(src) {
				return dst, false
			}
			hi, ok1 := hexVal(src[i+1])
			lo, ok2 := hexVal(src[i+2])
			if !ok1 || !ok2 {
				return dst, false
			}
			dst = append(dst, hi<<4|lo)
			i += 2
		default:
			if c < '0' || c > '7' {
				return dst, false
			}
			// Up to three octal digits.
			v := int(c - '0')
			n := 1
			for n < 3 && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '7' {
				i++
				v = v*8 + int(src[i]-'0')
				n++
			}
			if v > 0xff {
				return dst, false
			}
			dst = append(dst, byte(v))
		}
	}
	return dst, true
}

// simpleEscape decodes the one-letter escapes strace prints (\n, \t, \",
// ...); \x and octal escapes are read by the callers.
func simpleEscape(c byte) (byte, bool) {
	switch c {
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case 'v':
		return '\v', true
	case 'f':
		return '\f', true
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'e':
		return 0x1b, true
	case '\\', '"', '\'', '?':
		return c, true
	}
	return 0, false
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
