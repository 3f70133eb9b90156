package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error is a problem with the trace itself, at a position in it.
type Error struct {
	Pos  Pos
	Msg  string
	Text string // the offending line (cut to a readable length), for Detail
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Detail renders the error for a person: the message, the line and a caret
// under the column.
func (e *Error) Detail() string {
	if e.Text == "" || e.Pos.Col < 1 {
		return e.Error()
	}
	var b strings.Builder
	b.WriteString(e.Error())
	b.WriteString("\n\t")
	text, col := e.Text, e.Pos.Col
	// Keep long lines readable: show a window around the column.
	// The cuts fall between characters, and the caret counts the
	// characters before it, not the bytes: a line of box drawing (three
	// bytes a character) showed a broken character at the cut and a
	// caret far to the right.
	const window = 100
	if col > window {
		cut := min(col-window/2, len(text))
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		text = "..." + text[cut:]
		col = col - cut + 3
	}
	if len(text) > 2*window {
		end := 2 * window
		for end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
		text = text[:end] + "..."
	}
	b.WriteString(printable(text))
	b.WriteString("\n\t")
	before := text[:min(max(col-1, 0), len(text))]
	b.WriteString(strings.Repeat(" ", utf8.RuneCountInString(before)+max(col-1-len(text), 0)))
	b.WriteString("^")
	return b.String()
}

// printable replaces control bytes so a garbage line cannot mess up a
// terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// errorf builds an *Error at a column of the line being parsed.
func (l *lineParser) errorf(col int, format string, args ...any) *Error {
	text := l.text
	if l.joinLen > 0 {
		// Reading a resumed half joined to its first half's text: the
		// column on the resumed half's own line, where the joined text
		// starts for the first half's part.
		text = l.joinLine
		col = max(col-l.joinLen, 0) + l.joinAt
	}
	if len(text) > 4096 {
		text = text[:4096]
	}
	return &Error{
		Pos:  Pos{File: l.file, Line: l.line, Col: col + 1},
		Msg:  fmt.Sprintf(format, args...),
		Text: string(text),
	}
}
