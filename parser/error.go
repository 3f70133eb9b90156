package parser

import (
	"fmt"
	"strings"
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
	const window = 100
	if col > window {
		cut := col - window/2
		text = "..." + text[min(cut, len(text)):]
		col = col - cut + 3
	}
	if len(text) > 2*window {
		text = text[:2*window] + "..."
	}
	b.WriteString(printable(text))
	b.WriteString("\n\t")
	b.WriteString(strings.Repeat(" ", max(col-1, 0)))
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
