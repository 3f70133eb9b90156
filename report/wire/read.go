package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxValue bounds the memory a Reader takes: no finding, result or other
// member of a document may be longer than about this many bytes. The
// findings stream, one at a time.
const MaxValue = 64 << 20

// maxValue is MaxValue, smaller in tests.
var maxValue int64 = MaxValue

// A Reader reads one report as it streams: crashsim's JSON, or a SARIF
// log. Next returns its problems and findings (or results) one at a
// time, in the document's order; once it returns io.EOF, Document holds
// the rest. The document is held to
// encoding/json's reading of it: keys match in any case, and a member
// this package does not know is skipped; but "findings", "runs" and
// "results" may each be given once only, a document with both
// "findings" and "runs" is neither kind, and a report of a version newer
// than this package reads is refused.
type Reader struct {
	dec   *json.Decoder
	in    *capReader
	stack []frame
	err   error
	doc   Document
	top   members // the document's members other than findings and runs
	run   members // the members of the run being read, but results
	runs  []SARIFRun
	off   int64 // where the item Next returned last starts
}

// frame is what the reader is in.
type frame uint8

const (
	inTop      frame = iota // the document's object
	inFindings              // its findings
	inProblems              // its problems
	inRuns                  // its SARIF runs
	inRun                   // one run's object
	inResults               // that run's results
)

// Document is what a report holds besides its findings: one of Report
// and Log is set.
type Document struct {
	// Report is a crashsim JSON report, without its findings.
	Report *Report
	// Log is a SARIF log, each run without its results.
	Log *SARIFLog
}

// Item is one entry of a report's lists: a problem or a finding of
// crashsim's JSON, or a result of a SARIF run. Each is new, the caller's
// to keep.
type Item struct {
	Finding *Finding
	Result  *SARIFResult
	// Problem is a problem of crashsim's JSON (version 2 on), which come
	// before its findings.
	Problem *Problem
}

// NewReader reads a report from r.
func NewReader(r io.Reader) *Reader {
	in := &capReader{r: r}
	return &Reader{dec: json.NewDecoder(in), in: in}
}

// Next returns the next finding or result. At the end of the document it
// returns io.EOF, and Document what the document said besides.
func (r *Reader) Next() (Item, error) {
	for r.err == nil {
		it, ok := r.step()
		if ok {
			return it, nil
		}
	}
	return Item{}, r.err
}

// Document is the rest of the document, once Next has returned io.EOF.
func (r *Reader) Document() Document { return r.doc }

func (r *Reader) fail(format string, args ...any) {
	r.err = fmt.Errorf(format, args...)
}

// step reads on to the next item, or one structural step; ok says it
// found an item.
func (r *Reader) step() (Item, bool) {
	r.in.mark(r.dec.InputOffset())
	if len(r.stack) == 0 {
		if r.doc.Report != nil || r.doc.Log != nil {
			r.err = io.EOF
			return Item{}, false
		}
		if r.delim('{', "the document") {
			r.stack = append(r.stack, inTop)
		}
		return Item{}, false
	}
	switch r.stack[len(r.stack)-1] {
	case inTop:
		if !r.dec.More() {
			r.end()
			r.finish()
			return Item{}, false
		}
		key, ok := r.key()
		if !ok {
			return Item{}, false
		}
		switch {
		case strings.EqualFold(key, "findings"):
			r.list(key, &r.top.findings, inFindings)
		case strings.EqualFold(key, "problems"):
			r.list(key, &r.top.problems, inProblems)
		case strings.EqualFold(key, "runs"):
			r.list(key, &r.top.runs, inRuns)
		default:
			r.member(&r.top, key)
			if strings.EqualFold(key, "version") && r.err == nil {
				var v int
				if json.Unmarshal(r.top.raw[len(r.top.raw)-1], &v) == nil {
					r.checkVersion(v) // not SARIF's "2.1.0"
				}
			}
		}
		if r.top.findings == listed && r.top.runs == listed {
			r.fail(`both "findings" and "runs": neither crashsim's JSON nor SARIF`)
		}
	case inFindings, inResults, inProblems:
		if !r.dec.More() {
			r.end()
			return Item{}, false
		}
		r.off = r.dec.InputOffset()
		if r.stack[len(r.stack)-1] == inProblems {
			p := new(Problem)
			if r.decode(p) {
				return Item{Problem: p}, true
			}
		} else if r.stack[len(r.stack)-1] == inFindings {
			f := new(Finding)
			if r.decode(f) {
				return Item{Finding: f}, true
			}
		} else {
			res := new(SARIFResult)
			if r.decode(res) {
				return Item{Result: res}, true
			}
		}
	case inRuns:
		if !r.dec.More() {
			r.end()
			return Item{}, false
		}
		if r.delim('{', "a run") {
			r.run = members{}
			r.stack = append(r.stack, inRun)
		}
	case inRun:
		if !r.dec.More() {
			r.end()
			var run SARIFRun
			if r.unmarshal(&r.run, &run, "a run") {
				r.runs = append(r.runs, run)
			}
			return Item{}, false
		}
		key, ok := r.key()
		if !ok {
			return Item{}, false
		}
		if strings.EqualFold(key, "results") {
			r.list(key, &r.run.results, inResults)
		} else {
			r.member(&r.run, key)
		}
	}
	return Item{}, false
}

// members are the members of an object read whole, for encoding/json to
// read as it would the object; and whether its lists were given.
type members struct {
	raw                               []json.RawMessage // key, value, key, value...
	findings, runs, results, problems given
}

// given says whether an array member has been met.
type given uint8

const (
	absent given = iota
	null         // given as null, which is as good as absent
	listed
)

// list starts reading the array member key, once only.
func (r *Reader) list(key string, g *given, f frame) {
	if *g != absent {
		r.fail("%q given twice", key)
		return
	}
	t, err := r.dec.Token()
	switch {
	case err != nil:
		r.err = r.unquoted(err)
	case t == nil:
		*g = null
	case t == json.Delim('['):
		*g = listed
		r.stack = append(r.stack, f)
	default:
		r.fail("%s: want an array, not %s", key, tokenKind(t))
	}
}

// member reads the value of key whole.
func (r *Reader) member(m *members, key string) {
	var v json.RawMessage
	if r.decode(&v) {
		k, _ := json.Marshal(key)
		m.raw = append(m.raw, k, v)
	}
}

// unmarshal reads the members into v as encoding/json reads an object
// of them.
func (r *Reader) unmarshal(m *members, v any, what string) bool {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(m.raw); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.raw[i])
		b.WriteByte(':')
		b.Write(m.raw[i+1])
	}
	b.WriteByte('}')
	if err := json.Unmarshal(b.Bytes(), v); err != nil {
		r.fail("%s: %s", what, unquoted(err, -1))
		return false
	}
	return true
}

// checkVersion refuses a report newer than this package reads, as soon
// as its version is read: before its findings, which may not mean what
// they meant.
func (r *Reader) checkVersion(v int) {
	if v > Version {
		r.fail("report version %d: this crashsim reads versions 1 to %d; a newer crashsim wrote it", v, Version)
	}
}

// finish makes the Document of the members read, once the document
// ended.
func (r *Reader) finish() {
	if _, err := r.dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("more after the end of the document")
		}
		r.err = r.unquoted(err)
		return
	}
	switch {
	case r.top.findings == listed:
		rep := new(Report)
		if r.unmarshal(&r.top, rep, "the report") {
			rep.Findings, rep.Problems = nil, nil
			r.doc.Report = rep
			r.checkVersion(rep.Version)
		}
	case r.top.runs == listed:
		log := new(SARIFLog)
		if r.unmarshal(&r.top, log, "the log") {
			log.Runs = r.runs
			r.doc.Log = log
		}
	default:
		r.err = errNeither
	}
}

func (r *Reader) key() (string, bool) {
	t, err := r.dec.Token()
	if err != nil {
		r.err = r.unquoted(err)
		return "", false
	}
	k, ok := t.(string)
	if !ok {
		r.fail("an object key is %s", tokenKind(t))
	}
	return k, ok
}

// delim reads the token d, which starts what.
func (r *Reader) delim(d json.Delim, what string) bool {
	t, err := r.dec.Token()
	if err != nil {
		r.err = r.unquoted(err)
		return false
	}
	if t != d {
		r.fail("%s: want %v, not %s", what, d, tokenKind(t))
		return false
	}
	return true
}

// end reads the end of the array or object being read.
func (r *Reader) end() {
	if _, err := r.dec.Token(); err != nil {
		r.err = r.unquoted(err)
		return
	}
	r.stack = r.stack[:len(r.stack)-1]
}

func (r *Reader) decode(v any) bool {
	if err := r.dec.Decode(v); err != nil {
		r.err = r.unquoted(err)
		return false
	}
	return true
}

// errNeither is a document with neither findings nor runs.
var errNeither = errors.New(`no "findings" (crashsim's JSON) and no "runs" (SARIF)`)

// capReader is the input, refusing to read more than MaxValue past the
// start of the value being read.
type capReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (c *capReader) mark(at int64) { c.limit = at + maxValue }

var errTooLong = fmt.Errorf("a value longer than %d MiB: not a report crashsim writes", MaxValue>>20)

func (c *capReader) Read(p []byte) (int, error) {
	left := c.limit - c.n
	if left <= 0 {
		return 0, errTooLong
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// unquoted is err of the decoder, worded by where the reading failed.
func (r *Reader) unquoted(err error) error {
	if errors.Is(err, io.EOF) {
		// Not the end of a whole document, which Next's io.EOF means.
		err = io.ErrUnexpectedEOF
	}
	return unquotedError{unquoted(err, r.dec.InputOffset()), err}
}

// unquotedError words a reading error by where it happened and what kind
// of value was there, never with the bytes of the document: encoding/json's
// errors quote the character or the number they met, and a report given
// to crashsim can be a link to a secret. It wraps the error it words, for
// errors.Is.
type unquotedError struct {
	msg string
	err error
}

func (e unquotedError) Error() string { return e.msg }
func (e unquotedError) Unwrap() error { return e.err }

// unquoted words err so; at is where the decoder stopped, or -1 when
// the error is not of a stream.
func unquoted(err error, at int64) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("not JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		kind, _, _ := strings.Cut(typ.Value, " ") // "number 12" is a number
		where := ""
		if at >= 0 {
			where = fmt.Sprintf(" at byte %d", typ.Offset)
		}
		field := ""
		if typ.Field != "" {
			field = " (" + typ.Field + ")"
		}
		return fmt.Sprintf("a %s%s where a report has a value of type %s%s", kind, where, typ.Type, field)
	case errors.Is(err, io.ErrUnexpectedEOF) && at >= 0:
		return fmt.Sprintf("the document ends at byte %d, before it is complete", at)
	}
	return err.Error()
}

// tokenKind says what kind of JSON value t starts.
func tokenKind(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		return "'" + v.String() + "'"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "true or false"
	case nil:
		return "null"
	}
	return "a value"
}
