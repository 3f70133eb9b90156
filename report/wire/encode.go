package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crashsim/crashsim/internal/wordscan"
)

// A report of a million findings once spent a fifth of its time in
// encoding/json: reflection over each finding, then json.Indent over the
// result. The Encoder writes the same bytes directly, a token at a time,
// into a buffer it hands to its writer as it fills: the escaping of
// encoding/json, and either its two-space indentation or its compact
// form. Every type of this package is written by hand; the fuzz tests
// hold each to encoding/json.

// Style is the layout of an Encoder's output.
type Style uint8

const (
	// Indented is what json.Encoder writes with SetIndent("", "  ") and
	// SetEscapeHTML(false): reports and SARIF logs, read by people too.
	Indented Style = iota
	// Compact is what json.Marshal writes: no blanks, and <, > and &
	// escaped, so that no string can end the HTML <script> element that
	// holds the data of a page.
	Compact
	// IndentedEscaped is Indented with <, > and & escaped, as json.Encoder
	// writes them by default: the oracle's JSON.
	IndentedEscaped
)

// flushAt is how much an Encoder holds before it writes to its writer.
const flushAt = 64 << 10

// An Encoder writes JSON values to a writer as it goes. Begin and end
// containers, write keys and values; the Encoder puts the commas, the
// newlines and the indentation where encoding/json puts them. Writes go
// to the writer a buffer at a time: call Flush at the end. The first
// write error is kept, and returned by Flush and Err.
type Encoder struct {
	w      io.Writer
	b      []byte
	err    error
	depth  int  // of the container being written
	empty  bool // it has no element yet
	keyed  bool // a key was written: the next value is its member's
	indent bool
	html   bool
	// hold: the Encoder keeps what it writes (a FindingBatch) and has no
	// writer to hand it to.
	hold bool
}

// NewEncoder returns an Encoder writing to w in style s.
func NewEncoder(w io.Writer, s Style) *Encoder {
	// Room for what it holds between two writes, and a value past that.
	return &Encoder{w: w, b: make([]byte, 0, flushAt+flushAt/4), indent: s != Compact, html: s != Indented}
}

// Flush writes what the Encoder holds, and returns the first error.
func (e *Encoder) Flush() error {
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
	return e.err
}

// Err is the first error writing.
func (e *Encoder) Err() error { return e.err }

// flushFull writes the buffer once it holds enough: between two values.
func (e *Encoder) flushFull() {
	if len(e.b) >= flushAt && !e.hold {
		e.Flush()
	}
}

// Raw writes s as it is, outside any value: a newline after a document.
func (e *Encoder) Raw(s string) { e.b = append(e.b, s...) }

// indents is a newline and the indentation of the deepest value of the
// documents written, which newline cuts to a depth.
const indents = "\n                                "

func (e *Encoder) newline() {
	if !e.indent {
		return
	}
	if n := 1 + 2*e.depth; n <= len(indents) {
		e.b = append(e.b, indents[:n]...)
		return
	}
	e.b = append(e.b, '\n')
	for range e.depth {
		e.b = append(e.b, ' ', ' ')
	}
}

// elem starts an element of the container being written.
func (e *Encoder) elem() {
	if !e.empty {
		e.b = append(e.b, ',')
	}
	e.newline()
	e.empty = false
}

// value starts a value: a member's after its key, else an element (a
// value at depth 0 is the document).
func (e *Encoder) value() {
	if e.keyed {
		e.keyed = false
		return
	}
	if e.depth > 0 {
		e.elem()
	}
}

func (e *Encoder) open(c byte) {
	e.value()
	e.b = append(e.b, c)
	e.depth++
	e.empty = true
}

// close ends a container: "[]" or "{}" when it is empty, as json.Indent
// writes them.
func (e *Encoder) close(c byte) {
	e.depth--
	if !e.empty {
		e.newline()
	}
	e.b = append(e.b, c)
	e.empty = false
	e.flushFull()
}

// BeginObject starts an object; EndObject ends it.
func (e *Encoder) BeginObject() { e.open('{') }
func (e *Encoder) EndObject()   { e.close('}') }

// BeginArray starts an array; EndArray ends it.
func (e *Encoder) BeginArray() { e.open('[') }
func (e *Encoder) EndArray()   { e.close(']') }

// Key starts a member of the object being written: its value comes next.
func (e *Encoder) Key(k string) {
	e.elem()
	if plainKey(k) {
		e.b = append(e.b, '"')
		e.b = append(e.b, k...)
		e.b = append(e.b, '"', ':')
	} else {
		e.b = appendString(e.b, k, e.html)
		e.b = append(e.b, ':')
	}
	if e.indent {
		e.b = append(e.b, ' ')
	}
	e.keyed = true
}

// plainKey reports whether k is a short name of letters, digits and '_'
// (every key this package writes: "rule", "state_index"), which JSON
// writes as it is in every style. A report of many findings writes some
// twenty keys a finding; telling them plain here costs a fraction of the
// general quoting's word scan.
func plainKey(k string) bool {
	if len(k) > 32 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !keyBytes[k[i]] {
			return false
		}
	}
	return true
}

// keyBytes are the bytes plainKey allows.
var keyBytes = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['_'] = true
	return t
}()

// String writes a string.
func (e *Encoder) String(s string) {
	e.value()
	e.b = appendString(e.b, s, e.html)
}

// Int writes a number.
func (e *Encoder) Int(n int) { e.Int64(int64(n)) }

// Int64 writes a number.
func (e *Encoder) Int64(n int64) {
	e.value()
	e.b = strconv.AppendInt(e.b, n, 10)
}

// Bool writes true or false.
func (e *Encoder) Bool(v bool) {
	e.value()
	e.b = strconv.AppendBool(e.b, v)
}

// Null writes null.
func (e *Encoder) Null() {
	e.value()
	e.b = append(e.b, "null"...)
}

// Strings writes an array of strings; null when v is nil, as
// encoding/json writes a nil slice.
func (e *Encoder) Strings(v []string) {
	writeSlice(e, v, func(e *Encoder, s *string) { e.String(*s) })
}

// Ints writes an array of numbers; null when v is nil.
func (e *Encoder) Ints(v []int) {
	writeSlice(e, v, func(e *Encoder, n *int) { e.Int(*n) })
}

// StringField writes a member whose value is a string.
func (e *Encoder) StringField(k, v string) {
	e.Key(k)
	e.String(v)
}

// IntField writes a member whose value is a number.
func (e *Encoder) IntField(k string, v int) {
	e.Key(k)
	e.Int(v)
}

// Value writes v: a value of one of this package's types (or a pointer
// to one, or a slice of them) by hand, a string, number or []string as
// those methods do, and any other value as encoding/json would at this
// depth and in this style.
func (e *Encoder) Value(v any) error {
	switch v := v.(type) {
	case string:
		e.String(v)
	case int:
		e.Int(v)
	case int64:
		e.Int64(v)
	case bool:
		e.Bool(v)
	case []string:
		e.Strings(v)
	case []int:
		e.Ints(v)
	default:
		if !e.typed(v) {
			return e.reflect(v)
		}
	}
	return e.err
}

// reflect writes v with encoding/json.
func (e *Encoder) reflect(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if e.indent {
		enc.SetIndent(strings.Repeat("  ", e.depth), "  ")
	}
	enc.SetEscapeHTML(e.html)
	if err := enc.Encode(v); err != nil {
		return err
	}
	e.value()
	e.b = append(e.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	// A document of many such values (states' points) streams out as
	// one of objects does, rather than being held whole.
	e.flushFull()
	return nil
}

const hexDigits = "0123456789abcdef"

// plainBytes tells, without html and with, the bytes appendString writes
// as they are: ASCII but for control characters, quotes and backslashes
// (and <, > and & with html). One look per byte, where the tests of each
// byte were a fifth of writing a report.
var plainBytes = func() (t [2][256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		if c == '"' || c == '\\' {
			continue
		}
		t[0][c] = true
		t[1][c] = c != '<' && c != '>' && c != '&'
	}
	return t
}()

// plainWord reports whether the eight bytes of x are all plainBytes.
func plainWord(x uint64, html bool) bool {
	if wordscan.HasHigh(x) || wordscan.HasLess(x, 0x20) || wordscan.Has(x, '"') || wordscan.Has(x, '\\') {
		return false
	}
	return !html || !wordscan.Has(x, '<') && !wordscan.Has(x, '>') && !wordscan.Has(x, '&')
}

// appendString appends s quoted as encoding/json quotes a string: quotes,
// backslashes and control characters escaped (\b, \f, \n, \r and \t by
// name), bytes that are not UTF-8 replaced by \ufffd, U+2028 and U+2029
// escaped (JavaScript reads them as line ends), and <, > and & escaped
// when html is set.
func appendString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	plain := &plainBytes[0]
	if html {
		plain = &plainBytes[1]
	}
	for i, end := 0, 0; i < len(s); {
		if i >= end && i+8 <= len(s) {
			// Eight plain bytes at once: paths and messages are long
			// runs of them. A word that is not plain goes to the byte
			// loop whole.
			if plainWord(wordscan.Word(s, i), html) {
				i += 8
				continue
			}
			end = i + 8
		}
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
