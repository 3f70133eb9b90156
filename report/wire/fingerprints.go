package wire

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Fingerprints is the set of the fingerprints of a report's findings: a
// baseline. Each is kept as the 8 bytes its 16 hex digits spell, so the
// set of a report of a million findings is about 30 MB, and the report is
// read as it streams, never whole.
type Fingerprints struct {
	set map[[8]byte]struct{}
}

// ReadFingerprints reads the fingerprints of a report: the id of each
// problem and the fingerprint of each finding of crashsim's JSON (a
// report of version 1 has findings only), or of each result of its SARIF
// the ProblemVersion fingerprint (a problem's id) and the fingerprints of
// its findings (properties.findings), or, in a log written before
// problems, the FingerprintVersion fingerprint of its finding. A report with a finding that has none was
// written by a crashsim older than the recipe, and is refused: nothing
// it holds would match.
func ReadFingerprints(r io.Reader) (*Fingerprints, error) {
	fps := &Fingerprints{set: map[[8]byte]struct{}{}}
	missing := false
	rd := NewReader(r)
	for {
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not a crashsim JSON or SARIF report: %w", err)
		}
		fp := ""
		switch {
		case it.Problem != nil:
			fp = it.Problem.ID
		case it.Finding != nil:
			fp = it.Finding.Fingerprint
		default:
			fp = it.Result.PartialFingerprints[ProblemVersion]
			if fp == "" {
				fp = it.Result.PartialFingerprints[FingerprintVersion] // one finding's, before version 2
			}
			if p := it.Result.Properties; p != nil {
				for _, f := range p.Findings {
					if k, ok := fingerprintKey(f); ok {
						fps.set[k] = struct{}{}
					}
				}
			}
		}
		missing = missing || fp == ""
		if k, ok := fingerprintKey(fp); ok {
			fps.set[k] = struct{}{}
		}
	}
	if missing {
		return nil, errors.New("findings without a " + FingerprintVersion + " or " + ProblemVersion + " fingerprint: it was written by an older crashsim; write it again with this one")
	}
	return fps, nil
}

// Has reports whether fingerprint fp is in the set; a nil set has none.
func (f *Fingerprints) Has(fp string) bool {
	if f == nil {
		return false
	}
	k, ok := fingerprintKey(fp)
	if !ok {
		return false
	}
	_, in := f.set[k]
	return in
}

// Len is how many distinct fingerprints the set holds.
func (f *Fingerprints) Len() int {
	if f == nil {
		return 0
	}
	return len(f.set)
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
