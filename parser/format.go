package parser

import (
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/textesc"
)

// Format writes v back in strace-like text. Strings that were not decoded
// inline (data buffers) are shown by preview, which may be nil.
func (v *Value) Format(b *strings.Builder, preview func(DataRef) string) {
	if v.Name != "" {
		b.WriteString(v.Name)
		b.WriteByte('=')
	}
	switch v.Kind {
	case ValString:
		switch {
		case v.HasStr:
			b.WriteString(strconv.Quote(v.Str)) // escapes every control byte; kept for the golden dumps
		case preview != nil:
			b.WriteString(preview(v.Data))
		default:
			b.WriteString("<data>")
		}
		if v.Data.Truncated {
			b.WriteString("...")
		}
	case ValStruct, ValArray:
		open, close := byte('{'), byte('}')
		if v.Kind == ValArray {
			open, close = '[', ']'
		}
		b.WriteByte(open)
		for i := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			v.Elems[i].Format(b, preview)
		}
		if v.More {
			if len(v.Elems) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("...")
		}
		b.WriteByte(close)
	default:
		if c := v.Comment(); v.Text == "" && c != "" {
			b.WriteString("/* ")
			b.WriteString(textesc.Escape(c))
			b.WriteString(" */")
		}
		b.WriteString(textesc.Escape(v.Text))
	}
	if x := v.Exit(); x != nil {
		defer func() {
			b.WriteString(" => ")
			x.Format(b, preview)
		}()
	}
	if v.HasAnno {
		b.WriteByte('<')
		b.WriteString(textesc.Escape(v.Anno)) // a path: one line, always
		b.WriteByte('>')
		if v.Deleted {
			b.WriteString("(deleted)")
		}
	}
}

// FormatArgs renders an event's arguments, comma separated.
func (e *Event) FormatArgs(preview func(DataRef) string) string {
	var b strings.Builder
	for i := range e.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		e.Args[i].Format(&b, preview)
	}
	return b.String()
}

// FormatRet renders the return value the way strace prints it.
func (e *Event) FormatRet() string {
	var b strings.Builder
	if e.RetKnown {
		b.WriteString(strconv.FormatInt(e.Ret, 10))
	} else {
		b.WriteByte('?')
	}
	if e.Errno != "" {
		b.WriteByte(' ')
		b.WriteString(e.Errno)
	}
	if e.Injected {
		// strace -e inject: the failure is the tracer's, not the
		// system's.
		b.WriteString(" (INJECTED)")
	}
	return b.String()
}

// Brief renders the event on one line of a readable size, as
// "name(args) = ret": written bytes as "...", and the arguments cut to
// width bytes, the last three of them "...". edit, when not nil, rewrites
// the arguments before they are cut. A nil event is "".
func (e *Event) Brief(width int, edit func(args string) string) string {
	if e == nil {
		return ""
	}
	args := e.FormatArgs(func(DataRef) string { return "..." })
	if edit != nil {
		args = edit(args)
	}
	if len(args) > width {
		args = args[:width-3] + "..."
	}
	return e.Name + "(" + args + ") = " + e.FormatRet()
}
