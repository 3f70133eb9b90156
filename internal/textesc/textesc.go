// Package textesc is how crashsim prints a string that came from a trace
// (a path, an argument) in text: escaped so that it stays on one line and
// cannot pass for crashsim's own output.
package textesc

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crashsim/crashsim/internal/wordscan"
)

// Escape renders s, a path or an argument taken from a trace, so that it
// stays on one line and cannot pass for crashsim's own output: a file
// named "x\nfake.strace:1: fsync-failed: ..." must not print as a finding
// of its own, nor a name holding ESC change the terminal. As strace does,
// \t \n \v \f \r and the backslash itself get a backslash escape, other
// control bytes and bytes that are not UTF-8 become \xNN, and runes that
// do not print (U+0085, U+2028, the bidi overrides) become \uNNNN. Every
// text renderer of crashsim uses it (report, events, states, stats, and
// the parser's Format); JSON and SARIF have their own escaping.
func Escape(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	var b strings.Builder
	appendEscaped(&b, s, false)
	return b.String()
}

// Quote is Escape inside double quotes, with the quote escaped too: for a
// path shown where a space would make it ambiguous.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	appendEscaped(&b, s, true)
	b.WriteByte('"')
	return b.String()
}

func needsEscape(s string, quoted bool) bool {
	for i, end := 0, 0; i < len(s); i++ {
		if i >= end && i+8 <= len(s) {
			// Eight plain ASCII bytes at once (most names are all
			// plain); a word that is not goes to the byte loop whole.
			x := wordscan.Word(s, i)
			if !wordscan.HasHigh(x) && !wordscan.HasLess(x, 0x20) && !wordscan.Has(x, 0x7f) && !wordscan.Has(x, '\\') && !(quoted && wordscan.Has(x, '"')) {
				i += 7 // and the loop's i++
				continue
			}
			end = i + 8
		}
		c := s[i]
		if c < 0x20 || c == 0x7f || c == '\\' || c >= utf8.RuneSelf || (quoted && c == '"') {
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRuneInString(s[i:])
				if r != utf8.RuneError && unicode.IsPrint(r) {
					i += n - 1
					continue
				}
			}
			return true
		}
	}
	return false
}

const hexDigits = "0123456789abcdef"

func appendEscaped(b *strings.Builder, s string, quoted bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			case unicode.IsPrint(r):
				b.WriteString(s[i : i+n])
			default:
				digits := 4
				if r > 0xffff {
					b.WriteString(`\U`)
					digits = 8
				} else {
					b.WriteString(`\u`)
				}
				for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
					b.WriteByte(hexDigits[(r>>shift)&15])
				}
			}
			i += n
			continue
		}
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"' && quoted:
			b.WriteString(`\"`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\v':
			b.WriteString(`\v`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
		i++
	}
}

// Excerpt is Quote of at most the first max bytes of s (cut at a rune),
// followed by "... (N bytes)" when s is longer: for a value taken from a
// file crashsim was given, which can be any length and should not fill a
// screen, or a CI log, when a message quotes it.
func Excerpt(s string, max int) string {
	if len(s) <= max {
		return Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}
