package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/report"
)

// baseline is the set of fingerprints of an earlier report, kept as the
// 8 bytes they spell: the report of a million findings is read as it
// streams, never whole, and its set is about 30 MB.
type baseline map[[8]byte]struct{}

// Has reports whether fingerprint fp is in the baseline.
func (b baseline) Has(fp string) bool {
	if b == nil {
		return false
	}
	k, ok := fingerprintKey(fp)
	if !ok {
		return false
	}
	_, in := b[k]
	return in
}

// fingerprintKey reads a fingerprint's hex; one that is not 16 hex digits
// is no fingerprint crashsim writes, and matches none.
func fingerprintKey(fp string) ([8]byte, bool) {
	var k [8]byte
	if len(fp) != 16 {
		return k, false
	}
	if _, err := hex.Decode(k[:], []byte(fp)); err != nil {
		return k, false
	}
	return k, true
}

// readBaseline reads the fingerprints of an earlier report: crashsim's
// JSON, or its SARIF.
// The report is a regular file or a pipe named on the command line
// (inputfile), and an error says where it went wrong, never what the
// file holds: a baseline that is a link to a secret must not print it.
func readBaseline(name string) (baseline, error) {
	file, err := inputfile.Open(name, inputfile.Named)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	defer file.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(file, 256<<10))
	doc, err := scanBaseline(dec)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: not a crashsim JSON or SARIF report: %s", textesc.Escape(name), unquoted(err, dec))
	}
	// A document with both is read as crashsim's JSON.
	prints := doc.findings
	if prints == nil {
		prints = doc.runs
	}
	if prints == nil {
		return nil, fmt.Errorf("baseline %s: not a crashsim JSON or SARIF report (no findings or runs)", textesc.Escape(name))
	}
	if prints.missing {
		return nil, errors.New("baseline " + textesc.Escape(name) + ": findings without a " + report.FingerprintVersion + " fingerprint: it was written by an older crashsim; write it again with this one")
	}
	return prints.set, nil
}

// prints are the fingerprints of one list of a report.
type prints struct {
	set     baseline
	missing bool // a finding had none
}

func (p *prints) add(fp string) {
	p.missing = p.missing || fp == ""
	if k, ok := fingerprintKey(fp); ok {
		p.set[k] = struct{}{}
	}
}

// baselineDoc is what a report says of its findings: nil where the key is
// absent or null.
type baselineDoc struct {
	findings, runs *prints
}

// scanBaseline walks one report document as it streams, keeping the
// fingerprint of each finding (crashsim's JSON) and of each result
// (SARIF) and skipping the rest. As with json.Unmarshal, a key given
// twice counts the last time.
func scanBaseline(dec *json.Decoder) (baselineDoc, error) {
	var doc baselineDoc
	err := eachMember(dec, func(key string) error {
		// Keys match as json.Unmarshal matches field names: in any case.
		switch {
		case strings.EqualFold(key, "findings"):
			p := &prints{set: baseline{}}
			isNull, err := eachElement(dec, func() error {
				var f struct {
					Fingerprint string `json:"fingerprint"`
				}
				if err := dec.Decode(&f); err != nil {
					return err
				}
				p.add(f.Fingerprint)
				return nil
			})
			doc.findings = p
			if isNull {
				doc.findings = nil
			}
			return err
		case strings.EqualFold(key, "runs"):
			p := &prints{set: baseline{}}
			isNull, err := eachElement(dec, func() error {
				return eachMember(dec, func(key string) error {
					if !strings.EqualFold(key, "results") {
						return skipValue(dec)
					}
					_, err := eachElement(dec, func() error {
						var r struct {
							PartialFingerprints map[string]string `json:"partialFingerprints"`
						}
						if err := dec.Decode(&r); err != nil {
							return err
						}
						p.add(r.PartialFingerprints[report.FingerprintVersion])
						return nil
					})
					return err
				})
			})
			doc.runs = p
			if isNull {
				doc.runs = nil
			}
			return err
		}
		return skipValue(dec)
	})
	if err != nil {
		return doc, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("more after the end of the document")
		}
		return doc, err
	}
	return doc, nil
}

// eachMember reads an object, calling f with each key; f must read the
// member's value.
func eachMember(dec *json.Decoder, f func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := t.(string)
		if !ok {
			return fmt.Errorf("an object key is %s", tokenKind(t))
		}
		if err := f(key); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// eachElement reads an array (or null), calling f to read each element.
func eachElement(dec *json.Decoder, f func() error) (isNull bool, err error) {
	t, err := dec.Token()
	if err != nil {
		return false, err
	}
	if t == nil {
		return true, nil
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return false, fmt.Errorf("want an array, not %s", tokenKind(t))
	}
	for dec.More() {
		if err := f(); err != nil {
			return false, err
		}
	}
	_, err = dec.Token()
	return false, err
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %v, not %s", want, tokenKind(t))
	}
	return nil
}

// skipValue reads one value and drops it.
func skipValue(dec *json.Decoder) error {
	var skip json.RawMessage
	return dec.Decode(&skip)
}

// unquoted words a reading error by where it happened and what kind of
// value was there, never with the bytes of the file: encoding/json's
// errors quote the character or the number they met.
func unquoted(err error, dec *json.Decoder) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("not JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		kind, _, _ := strings.Cut(typ.Value, " ") // "number 12" is a number
		return fmt.Sprintf("a %s at byte %d where a report has a %s (%s)", kind, typ.Offset, typ.Type, typ.Field)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("the document ends at byte %d, before it is complete", dec.InputOffset())
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
