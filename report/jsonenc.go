package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crashsim/crashsim/check"
)

// A report of a million findings spent a fifth of its time in
// encoding/json: reflection over FindingJSON, then json.Indent over the
// result. The appenders below write the same bytes directly: the escaping
// of encoding/json's Encoder with SetEscapeHTML(false) (or with it, for
// html) and its two-space indentation. The fuzz test holds them to it.

// indenter appends one indented JSON value, a token at a time.
type indenter struct {
	b     []byte
	depth int  // of the container being written
	empty bool // it has no element yet
	html  bool // escape <, > and & as encoding/json does by default
}

func (e *indenter) newline() {
	e.b = append(e.b, '\n')
	for range e.depth {
		e.b = append(e.b, ' ', ' ')
	}
}

func (e *indenter) open(c byte) {
	e.b = append(e.b, c)
	e.depth++
	e.empty = true
}

// close ends a container: "[]" or "{}" when it is empty, as json.Indent
// writes them.
func (e *indenter) close(c byte) {
	e.depth--
	if !e.empty {
		e.newline()
	}
	e.b = append(e.b, c)
	e.empty = false
}

// elem starts an element of the array being written.
func (e *indenter) elem() {
	if !e.empty {
		e.b = append(e.b, ',')
	}
	e.newline()
	e.empty = false
}

// key starts a member of the object being written.
func (e *indenter) key(k string) {
	e.elem()
	e.b = appendJSONString(e.b, k, e.html)
	e.b = append(e.b, ':', ' ')
}

func (e *indenter) str(s string) { e.b = appendJSONString(e.b, s, e.html) }
func (e *indenter) int(n int)    { e.b = strconv.AppendInt(e.b, int64(n), 10) }

func (e *indenter) strField(k, v string) {
	e.key(k)
	e.str(v)
}

func (e *indenter) intField(k string, v int) {
	e.key(k)
	e.int(v)
}

// strings writes a []string: null when nil, as encoding/json does.
func (e *indenter) strings(v []string) {
	if v == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.open('[')
	for _, s := range v {
		e.elem()
		e.str(s)
	}
	e.close(']')
}

// any writes a value of a type the appenders do not know as
// encoding/json would, indented at the current depth.
func (e *indenter) any(v any) error {
	switch v := v.(type) {
	case string:
		e.str(v)
		return nil
	case int:
		e.int(v)
		return nil
	case []string:
		e.strings(v)
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(strings.Repeat("  ", e.depth), "  ")
	enc.SetEscapeHTML(e.html)
	if err := enc.Encode(v); err != nil {
		return err
	}
	e.b = append(e.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	return nil
}

// appendJSONString appends s quoted as encoding/json quotes a string:
// quotes, backslashes and control characters escaped (\b, \f, \n, \r and
// \t by name), bytes that are not UTF-8 replaced by \ufffd, U+2028 and
// U+2029 escaped (JavaScript reads them as line ends), and <, > and &
// escaped when html is set.
func appendJSONString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
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

// appendFinding appends fj as the Encoder writes it at depth.
func appendFinding(b []byte, fj *FindingJSON, depth int) []byte {
	e := indenter{b: b, depth: depth}
	e.open('{')
	e.strField("rule", fj.Rule)
	e.strField("severity", fj.Severity)
	e.strField("path", fj.Path)
	e.strField("trace", fj.Trace)
	e.intField("line", fj.Line)
	e.intField("pid", fj.PID)
	e.strField("message", fj.Message)
	e.key("models")
	e.strings(fj.Models)
	e.key("related")
	if fj.Related == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.open('[')
		for i := range fj.Related {
			r := &fj.Related[i]
			e.elem()
			e.open('{')
			e.intField("line", r.Line)
			e.intField("pid", r.PID)
			e.strField("syscall", r.Syscall)
			e.strField("what", r.What)
			e.close('}')
		}
		e.close(']')
	}
	if s := fj.State; s != nil {
		e.key("state")
		appendStateJSON(&e, s)
	}
	e.strField("fingerprint", fj.Fingerprint)
	e.strField("relpath", fj.RelPath)
	if s := fj.Source; s != nil {
		e.key("source")
		e.open('{')
		e.strField("file", s.File)
		e.intField("line", s.Line)
		e.strField("function", s.Function)
		e.close('}')
	}
	if fj.StateIndex != 0 {
		e.intField("state_index", fj.StateIndex)
	}
	e.close('}')
	return e.b
}

func appendStateJSON(e *indenter, s *check.State) {
	e.open('{')
	e.intField("line", s.Line)
	e.strField("path", s.Path)
	e.strField("outcome", s.Outcome)
	e.strField("persisted", s.Persisted)
	if s.Words != "" {
		e.strField("words", s.Words)
	}
	e.close('}')
}

// appendSARIFResult appends r as the Encoder writes it at depth.
func appendSARIFResult(b []byte, r *sarifResult, depth int) ([]byte, error) {
	e := indenter{b: b, depth: depth}
	e.open('{')
	e.strField("ruleId", r.RuleID)
	e.intField("ruleIndex", r.RuleIndex)
	e.strField("level", r.Level)
	e.key("message")
	appendText(&e, r.Message)
	e.key("locations")
	appendLocations(&e, r.Locations)
	if len(r.RelatedLocations) > 0 {
		e.key("relatedLocations")
		appendLocations(&e, r.RelatedLocations)
	}
	e.key("partialFingerprints")
	if r.PartialFingerprints == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.open('{')
		for _, k := range sortedKeys(r.PartialFingerprints) {
			e.strField(k, r.PartialFingerprints[k])
		}
		e.close('}')
	}
	if len(r.Properties) > 0 {
		e.key("properties")
		e.open('{')
		for _, k := range sortedKeys(r.Properties) {
			e.key(k)
			if err := e.any(r.Properties[k]); err != nil {
				return nil, err
			}
		}
		e.close('}')
	}
	e.close('}')
	return e.b, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendText(e *indenter, t sarifText) {
	e.open('{')
	e.strField("text", t.Text)
	e.close('}')
}

func appendLocations(e *indenter, locs []sarifLocation) {
	if locs == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.open('[')
	for i := range locs {
		l := &locs[i]
		e.elem()
		e.open('{')
		if l.ID != nil {
			e.intField("id", *l.ID)
		}
		e.key("physicalLocation")
		e.open('{')
		e.key("artifactLocation")
		e.open('{')
		e.strField("uri", l.PhysicalLocation.ArtifactLocation.URI)
		if id := l.PhysicalLocation.ArtifactLocation.URIBaseID; id != "" {
			e.strField("uriBaseId", id)
		}
		e.close('}')
		e.key("region")
		e.open('{')
		e.intField("startLine", l.PhysicalLocation.Region.StartLine)
		e.close('}')
		e.close('}')
		if l.Message != nil {
			e.key("message")
			appendText(e, *l.Message)
		}
		e.close('}')
	}
	e.close(']')
}
