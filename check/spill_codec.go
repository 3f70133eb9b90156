package check

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crashsim/crashsim/internal/varrec"
	"github.com/crashsim/crashsim/model"
)

// The findings a check spills to disk are written as records of varints
// and length-prefixed strings. A record is only ever read back by the
// process that wrote it, so the encoding need not last: strings that
// repeat on every finding (trace names, syscalls, models, outcomes) and
// rules are numbers into tables the process keeps.

// codec holds the tables shared by every record of one check.
type codec struct {
	// scratch is where appendMessage makes a message's template, name
	// where appendMessageBytes keeps the name it takes out.
	scratch, name []byte
	strs          []string
	strID         map[string]uint64
	rules         []*Rule
	ruleI         map[ruleKey]uint64
}

// ruleKey names a rule as a finding carries it: a rule lowered to a
// lesser severity is a copy of the registry's with the same ID.
type ruleKey struct {
	id  string
	sev Severity
}

func newCodec() *codec {
	return &codec{strID: map[string]uint64{}, ruleI: map[ruleKey]uint64{}}
}

func (c *codec) str(s string) uint64 {
	if id, ok := c.strID[s]; ok {
		return id
	}
	id := uint64(len(c.strs))
	c.strs = append(c.strs, s)
	c.strID[s] = id
	return id
}

// maxTexts is how many distinct texts (a related event's description, a
// state's words) the table keeps; past it, a new text is written out in
// each record. A rule's texts come from a few phrases, but one can quote
// a path, and the table lives as long as the check's findings. A
// variable for tests.
var maxTexts = 1 << 12

// appendText appends s as a number into the table when it is there or
// there is room for it (2*id+1), else as itself (2*len, then its bytes):
// the words of a million findings' states are a few texts, read back
// into the table's strings.
func (c *codec) appendText(b []byte, s string) []byte {
	id, ok := c.strID[s]
	if !ok && len(c.strs) < maxTexts {
		id, ok = c.str(s), true
	}
	if ok {
		return binary.AppendUvarint(b, 2*id+1)
	}
	b = binary.AppendUvarint(b, 2*uint64(len(s)))
	return append(b, s...)
}

// appendMessage appends a finding's message as appendText does, but
// with the base name of the finding's path p taken out of the text that
// goes into the table: each place it was holds a 0 byte. The messages of
// a rule differ mostly by the file they name, and were two thirds of a
// record. A message with a 0 byte of its own is written out.
func (c *codec) appendMessage(b []byte, msg, p string) []byte {
	name := base(p)
	if strings.IndexByte(msg, 0) < 0 && strings.IndexByte(name, 0) < 0 {
		c.scratch = appendTemplate(c.scratch[:0], msg, name)
		if id, ok := c.templateID(); ok {
			return binary.AppendUvarint(b, 2*id+1)
		}
	}
	b = binary.AppendUvarint(b, 2*uint64(len(msg)))
	return append(b, msg...)
}

// appendMessageBytes is appendMessage for a message held as bytes.
func (c *codec) appendMessageBytes(b, msg []byte, p string) []byte {
	name := base(p)
	if bytes.IndexByte(msg, 0) < 0 && strings.IndexByte(name, 0) < 0 {
		c.scratch = c.scratch[:0]
		c.name = append(c.name[:0], name...)
		for rest := msg; ; {
			i := bytes.Index(rest, c.name)
			if i < 0 {
				c.scratch = append(c.scratch, rest...)
				break
			}
			c.scratch = append(c.scratch, rest[:i]...)
			c.scratch = append(c.scratch, 0)
			rest = rest[i+len(name):]
		}
		if id, ok := c.templateID(); ok {
			return binary.AppendUvarint(b, 2*id+1)
		}
	}
	b = binary.AppendUvarint(b, 2*uint64(len(msg)))
	return append(b, msg...)
}

// templateID numbers the message template in c.scratch: its number in
// the table, or a new one while the table has room.
func (c *codec) templateID() (uint64, bool) {
	if id, ok := c.strID[string(c.scratch)]; ok {
		return id, true
	}
	if len(c.strs) < maxTexts {
		return c.str(string(c.scratch)), true
	}
	return 0, false
}

// appendTemplate appends msg with each name in it replaced by a 0 byte.
func appendTemplate(b []byte, msg, name string) []byte {
	for {
		i := strings.Index(msg, name)
		if i < 0 {
			return append(b, msg...)
		}
		b = append(b, msg[:i]...)
		b = append(b, 0)
		msg = msg[i+len(name):]
	}
}

// message reads what appendMessage wrote, for a finding on path p.
func (d *decoder) message(p string) string {
	v := d.rd.Uvarint()
	if v&1 == 0 {
		return d.inline(v / 2)
	}
	if v/2 >= uint64(len(d.c.strs)) {
		d.rd.Bad = true
		return ""
	}
	return strings.ReplaceAll(d.c.strs[v/2], "\x00", base(p))
}

// skipMessage reads past what appendMessage wrote.
func (d *decoder) skipMessage() { d.skipText() }

// inline reads n bytes written out.
func (d *decoder) inline(n uint64) string {
	if n > uint64(len(d.rd.B)) {
		d.rd.Bad = true
		return ""
	}
	s := string(d.rd.B[:n])
	d.rd.B = d.rd.B[n:]
	return s
}

// text reads what appendText wrote.
func (d *decoder) text() string {
	v := d.rd.Uvarint()
	if v&1 == 1 {
		if v/2 >= uint64(len(d.c.strs)) {
			d.rd.Bad = true
			return ""
		}
		return d.c.strs[v/2]
	}
	return d.inline(v / 2)
}

func (c *codec) rule(r *Rule) uint64 {
	k := ruleKey{r.ID, r.Severity}
	if id, ok := c.ruleI[k]; ok {
		return id
	}
	id := uint64(len(c.rules))
	c.rules = append(c.rules, r)
	c.ruleI[k] = id
	return id
}

// item is a finding on its way through the sort: the model run that
// emitted it and its place among that run's findings break ties, as the
// order of emission did when every finding stayed in memory.
type item struct {
	f        *Finding
	run, seq int
}

// A record starts with what the sort and the join across models read
// (flags, models, run, seq, rule, path, trace, line), so that they read
// only that and copy the rest as it is.
const (
	// recJoined marks a record written after the join across models:
	// its Models are those of its model set, as merge sets them.
	recJoined = 1 << iota
)

// appendItem appends the record of it (without its length prefix).
func (c *codec) appendItem(b []byte, it item) []byte {
	f := it.f
	b = append(b, 0, byte(f.modelSet))
	b = binary.AppendUvarint(b, uint64(it.run))
	b = binary.AppendUvarint(b, uint64(it.seq))
	b = binary.AppendUvarint(b, c.rule(f.Rule))
	b = varrec.AppendString(b, f.Path)
	b = binary.AppendUvarint(b, c.str(f.Trace))
	b = binary.AppendVarint(b, int64(f.Line))
	b = binary.AppendVarint(b, int64(f.PID))
	b = binary.AppendVarint(b, int64(f.Seq))
	if f.text != nil {
		b = c.appendMessageBytes(b, f.text, f.Path)
	} else {
		b = c.appendMessage(b, f.Message, f.Path)
	}
	b = binary.AppendVarint(b, int64(f.StateIndex))
	// Lengths are stored plus one, so that a nil list comes back nil.
	if f.Models == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(f.Models))+1)
		for _, m := range f.Models {
			b = binary.AppendUvarint(b, c.str(m))
		}
	}
	if f.Related == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(f.Related))+1)
		for _, r := range f.Related {
			b = binary.AppendUvarint(b, c.str(r.Trace))
			b = binary.AppendVarint(b, int64(r.Line))
			b = binary.AppendVarint(b, int64(r.PID))
			b = binary.AppendUvarint(b, c.str(r.Syscall))
			b = c.appendText(b, r.What)
		}
	}
	switch s := f.State; {
	case s == nil:
		b = append(b, 0)
	case s.Path == f.Path:
		// The state of the finding's own path, as nearly every one is:
		// the path is not written twice.
		b = append(b, 2)
	default:
		b = append(b, 1)
	}
	if s := f.State; s != nil {
		b = binary.AppendUvarint(b, c.str(s.Trace))
		b = binary.AppendVarint(b, int64(s.Line))
		if s.Path != f.Path {
			b = varrec.AppendString(b, s.Path)
		}
		b = binary.AppendUvarint(b, c.str(s.Outcome))
		b = binary.AppendUvarint(b, c.str(s.Persisted))
		b = c.appendText(b, s.Words)
		b = binary.AppendUvarint(b, uint64(len(s.Outcomes)))
		for _, o := range s.Outcomes {
			b = binary.AppendUvarint(b, c.str(string(o)))
		}
	}
	return b
}

// key is what the sort orders records by.
type key struct {
	line     int
	rule     *Rule
	path     string
	trace    string
	run, seq int
}

func keyOf(it item) key {
	return key{line: it.f.Line, rule: it.f.Rule, path: it.f.Path, trace: it.f.Trace, run: it.run, seq: it.seq}
}

// readKey reads the key at the start of a record.
func (d *decoder) readKey(rec []byte) (key, bool) {
	d.rd.Reset(rec)
	var k key
	d.rd.Byte()
	d.rd.Byte()
	k.run = int(d.rd.Uvarint())
	k.seq = int(d.rd.Uvarint())
	if id := d.rd.Uvarint(); id < uint64(len(d.c.rules)) {
		k.rule = d.c.rules[id]
	} else {
		d.rd.Bad = true
	}
	k.path = string(d.rd.Bytes())
	k.trace = d.str()
	k.line = int(d.rd.Varint())
	return k, !d.rd.Bad
}

// errRecord is a record that does not decode: the temp file was changed
// under crashsim, or crashsim has a bug.
var errRecord = errors.New("check: a spilled finding does not read back")

// decoder reads records from one place in a spill file.
type decoder struct {
	c   *codec
	buf []byte
	rd  varrec.Reader // what is left of the record being read
}

// readRecord reads the next record from r into the decoder's buffer:
// io.EOF when there is none. It returns how many bytes it read.
func (d *decoder) readRecord(r *bufio.Reader) ([]byte, int, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, io.EOF
		}
		return nil, 0, fmt.Errorf("%w: %v", errRecord, err)
	}
	if n > 1<<30 {
		return nil, 0, errRecord
	}
	if uint64(cap(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	d.buf = d.buf[:n]
	if _, err := io.ReadFull(r, d.buf); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", errRecord, err)
	}
	return d.buf, uvarintLen(n) + int(n), nil
}

func uvarintLen(n uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], n)
}

func (d *decoder) str() string {
	id := d.rd.Uvarint()
	if id >= uint64(len(d.c.strs)) {
		d.rd.Bad = true
		return ""
	}
	return d.c.strs[id]
}

// head reads a record's fields up to its state index into f (a fresh
// Finding but for them), and returns the record's flags and its message,
// undecoded, a slice of rec to read with decoder.message. Group reads no
// more than that (see Result.heads): a spilled finding's text, related
// lines and state are not built for it, and f is reused from one record
// to the next.
func (d *decoder) head(rec []byte, f *Finding) (flags byte, msg []byte, err error) {
	d.rd.Reset(rec)
	flags = d.rd.Byte()
	*f = Finding{modelSet: modelSet(d.rd.Byte())}
	d.rd.Uvarint() // run
	d.rd.Uvarint() // seq
	if id := d.rd.Uvarint(); id < uint64(len(d.c.rules)) {
		f.Rule = d.c.rules[id]
	} else {
		return 0, nil, errRecord
	}
	f.Path = string(d.rd.Bytes())
	f.Trace = d.str()
	f.Line = int(d.rd.Varint())
	f.PID = int(d.rd.Varint())
	f.Seq = int(d.rd.Varint())
	msg = d.rd.B
	d.skipMessage()
	msg = msg[:len(msg)-len(d.rd.B)]
	f.StateIndex = int(d.rd.Varint())
	if d.rd.Bad {
		return 0, nil, errRecord
	}
	return flags, msg, nil
}

// brief reads a record into f as Result.Brief fills it.
func (d *decoder) brief(rec []byte, f *Finding) error {
	related := f.Related[:0]
	flags, _, err := d.head(rec, f)
	if err != nil {
		return err
	}
	d.models(f, flags)
	if n := d.rd.Uvarint(); n > 0 && !d.rd.Bad {
		for i := uint64(1); i < n && !d.rd.Bad; i++ {
			var r Related
			r.Trace = d.str()
			r.Line = int(d.rd.Varint())
			r.PID = int(d.rd.Varint())
			r.Syscall = d.str()
			d.skipText()
			related = append(related, r)
		}
		f.Related = related
	}
	if d.rd.Bad {
		return errRecord
	}
	return nil
}

// models reads a record's models into f, and adds those of its model
// set when the record was joined (flags).
func (d *decoder) models(f *Finding, flags byte) {
	if n := d.rd.Uvarint(); n > 0 && !d.rd.Bad {
		f.Models = make([]string, 0, min(n-1, 8))
		for i := uint64(1); i < n && !d.rd.Bad; i++ {
			f.Models = append(f.Models, d.str())
		}
	}
	if flags&recJoined != 0 {
		if f.Models == nil {
			f.Models = modelNames[f.modelSet]
		} else {
			f.Models = append(f.Models, modelNames[f.modelSet]...)
		}
	}
}

// skipText reads past what appendText wrote.
func (d *decoder) skipText() {
	if v := d.rd.Uvarint(); v&1 == 0 {
		if v/2 > uint64(len(d.rd.B)) {
			d.rd.Bad = true
			return
		}
		d.rd.B = d.rd.B[v/2:]
	}
}

// decode reads a whole record back into a finding.
func (d *decoder) decode(rec []byte) (*Finding, error) {
	f := &Finding{}
	if err := d.decodeInto(rec, f, nil); err != nil {
		return nil, err
	}
	return f, nil
}

// decodeInto reads a whole record back into f, reusing the room of its
// Related, and into st for its state (a new State when st is nil).
func (d *decoder) decodeInto(rec []byte, f *Finding, st *State) error {
	related := f.Related[:0]
	flags, msg, err := d.head(rec, f)
	if err != nil {
		return err
	}
	rest := d.rd.B
	d.rd.B = msg
	f.Message = d.message(f.Path)
	d.rd.B = rest
	d.models(f, flags)
	if n := d.rd.Uvarint(); n > 0 && !d.rd.Bad {
		if related == nil {
			related = make([]Related, 0, min(n-1, 64))
		}
		for i := uint64(1); i < n && !d.rd.Bad; i++ {
			var r Related
			r.Trace = d.str()
			r.Line = int(d.rd.Varint())
			r.PID = int(d.rd.Varint())
			r.Syscall = d.str()
			r.What = d.text()
			related = append(related, r)
		}
		f.Related = related
	}
	if has := d.rd.Byte(); has == 1 || has == 2 {
		s := st
		if s == nil {
			s = &State{}
		} else {
			*s = State{}
		}
		s.Trace = d.str()
		s.Line = int(d.rd.Varint())
		if has == 2 {
			s.Path = f.Path
		} else {
			s.Path = string(d.rd.Bytes())
		}
		s.Outcome = d.str()
		s.Persisted = d.str()
		s.Words = d.text()
		if n := d.rd.Uvarint(); n > 0 && n <= 16 {
			s.Outcomes = make([]model.Outcome, n)
			for i := range s.Outcomes {
				s.Outcomes[i] = model.Outcome(d.str())
			}
		} else if n != 0 {
			d.rd.Bad = true
		}
		f.State = s
	} else if has != 0 {
		d.rd.Bad = true
	}
	if d.rd.Bad || len(d.rd.B) != 0 {
		return errRecord
	}
	return nil
}
