package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// jsonStream writes one indented JSON document a piece at a time, so that
// a report of a million findings never sits in memory whole: each piece is
// encoded on its own with the indentation it has at its depth, which gives
// the bytes encoding/json writes for the whole document.
type jsonStream struct {
	w    io.Writer
	buf  bytes.Buffer
	encs []*json.Encoder // by depth
	err  error
}

func newJSONStream(w io.Writer) *jsonStream { return &jsonStream{w: w} }

// raw writes s as it is: the punctuation and keys between pieces.
func (s *jsonStream) raw(str string) {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, str)
	}
}

// bytes writes b as it is.
func (s *jsonStream) bytes(b []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

// value writes v as encoding/json indents it at depth (0: the document).
func (s *jsonStream) value(v any, depth int) {
	if s.err != nil {
		return
	}
	for len(s.encs) <= depth {
		enc := json.NewEncoder(&s.buf)
		enc.SetIndent(strings.Repeat("  ", len(s.encs)), "  ")
		enc.SetEscapeHTML(false)
		s.encs = append(s.encs, enc)
	}
	s.buf.Reset()
	if s.err = s.encs[depth].Encode(v); s.err != nil {
		return
	}
	b := s.buf.Bytes()
	_, s.err = s.w.Write(b[:len(b)-1]) // Encode ends with a newline
}

// field writes `"key": value` at depth, the key on a line of its own as a
// member of an object at depth-1; first says whether it opens the object.
func (s *jsonStream) field(key string, v any, depth int, first bool) {
	s.key(key, depth, first)
	s.value(v, depth)
}

// key writes the start of a member of an object whose members are at
// depth.
func (s *jsonStream) key(key string, depth int, first bool) {
	if !first {
		s.raw(",")
	}
	s.raw("\n" + strings.Repeat("  ", depth))
	s.value(key, depth)
	s.raw(": ")
}
