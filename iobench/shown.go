package iobench

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxShown bounds how much of an input (a path, a mode name) a message
// repeats. A path can be any length the command line takes; a message is
// read by a person, and past this the head and the tail say which input
// it was.
const maxShown = 120

// shown is s as a message repeats it: as it is when it is printable
// text, quoted Go-style when it holds control characters or bytes that
// are not UTF-8 (a newline in a name must not start a line of its own),
// and, when it is longer than maxShown, cut to its head and tail with its
// length said.
func shown(s string) string { return show(s, false) }

// shownQ is shown for a word a message always quotes: "name", or
// "head...tail" (N bytes).
func shownQ(s string) string { return show(s, true) }

func show(s string, quote bool) string {
	n := len(s)
	if n > maxShown {
		s = s[:cutAt(s, maxShown*2/3)] + "..." + s[cutAt(s, n-maxShown/3):]
	}
	if quote || !plain(s) {
		s = strconv.Quote(s)
	}
	if n > maxShown {
		s += fmt.Sprintf(" (%d bytes)", n)
	}
	return s
}

// plain reports whether s prints as itself on one line: valid UTF-8 and
// nothing strconv would escape (control characters, line separators, the
// bidi controls that make a terminal show text in another order).
func plain(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// cutAt moves i back to the start of the rune it falls in.
func cutAt(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
