package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// readAll reads a document with a Reader: its findings, its results and
// the rest, a report with its problems.
func readAll(doc string) ([]Finding, []SARIFResult, Document, error) {
	r := NewReader(strings.NewReader(doc))
	var fs []Finding
	var rs []SARIFResult
	var ps []Problem
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			d := r.Document()
			if d.Report != nil {
				d.Report.Problems = ps
			}
			return fs, rs, d, nil
		}
		if err != nil {
			return nil, nil, Document{}, err
		}
		if it.Problem != nil {
			ps = append(ps, *it.Problem)
		} else if it.Finding != nil {
			fs = append(fs, *it.Finding)
		} else {
			rs = append(rs, *it.Result)
		}
	}
}

// streamReport writes rep through a ReportWriter.
func streamReport(t *testing.T, rep *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewReportWriter(&b, rep.Version, rep.Tool)
	for k := range rep.Problems {
		w.Problem(&rep.Problems[k])
	}
	for k := range rep.Findings {
		w.Finding(&rep.Findings[k])
	}
	if err := w.Close(&rep.Summary); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// streamLog writes log through a SARIFWriter.
func streamLog(t *testing.T, log *SARIFLog) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewSARIFWriter(&b, log)
	for k := range log.Runs[0].Results {
		w.Result(&log.Runs[0].Results[k])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadRoundTrip: what the writers write, the Reader reads back as
// encoding/json reads it whole.
func TestReadRoundTrip(t *testing.T) {
	for i, shape := range []uint16{0, 0xffff, 0x0f0f, 0xf0f0, 0x2222} {
		rep := fuzzReport("data-not-synced", "/w/a <b>.json", "t.strace", i+1, shape)
		rep.Version = Version
		b := streamReport(t, rep)
		var whole Report
		if err := json.Unmarshal(b, &whole); err != nil {
			t.Fatal(err)
		}
		fs, rs, doc, err := readAll(string(b))
		if err != nil || doc.Report == nil || doc.Log != nil || rs != nil {
			t.Fatalf("shape %#x: %v, %+v, %d results", shape, err, doc, len(rs))
		}
		doc.Report.Findings = fs
		if diff := cmp.Diff(&whole, doc.Report, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("shape %#x: report (-whole +streamed):\n%s", shape, diff)
		}

		log := fuzzLog("rename-before-sync", "/w/x", "t.strace", i, shape)
		b = streamLog(t, log)
		var wholeLog SARIFLog
		if err := json.Unmarshal(b, &wholeLog); err != nil {
			t.Fatal(err)
		}
		fs, rs, doc, err = readAll(string(b))
		if err != nil || doc.Log == nil || doc.Report != nil || fs != nil {
			t.Fatalf("shape %#x: %v, %+v, %d findings", shape, err, doc, len(fs))
		}
		doc.Log.Runs[0].Results = rs
		if diff := cmp.Diff(&wholeLog, doc.Log, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("shape %#x: log (-whole +streamed):\n%s", shape, diff)
		}
	}
}

// TestWritersEqualWhole: the streamed documents are what encoding/json
// writes of them whole.
func TestWritersEqualWhole(t *testing.T) {
	for _, shape := range []uint16{0, 0xffff, 0x1234, 0x8000 | 0x2000} {
		rep := fuzzReport("a", "b <&>", "c", 5, shape)
		got := streamReport(t, rep)
		if rep.Findings == nil {
			rep.Findings = []Finding{} // the writer's is always an array
		}
		if rep.Problems == nil {
			rep.Problems = []Problem{} // from version 2 on, this one too
		}
		if diff := cmp.Diff(encodeRef(t, rep, 0, Indented)+"\n", string(got)); diff != "" {
			t.Errorf("report, shape %#x (-encoding/json +writer):\n%s", shape, diff)
		}

		log := fuzzLog("a", "b", "c <&>", 5, shape)
		got = streamLog(t, log)
		if log.Runs[0].Results == nil {
			log.Runs[0].Results = []SARIFResult{}
		}
		if diff := cmp.Diff(encodeRef(t, log, 0, Indented)+"\n", string(got)); diff != "" {
			t.Errorf("log, shape %#x (-encoding/json +writer):\n%s", shape, diff)
		}
	}
}

// printsWhole reads the fingerprints of a document whole, with one
// json.Unmarshal: the reference for ReadFingerprints where the two agree.
func printsWhole(b []byte) (prints []string, missing bool, err error) {
	var doc struct {
		Findings *[]struct {
			Fingerprint string `json:"fingerprint"`
		} `json:"findings"`
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, false, err
	}
	switch {
	case doc.Findings != nil:
		for _, f := range *doc.Findings {
			missing = missing || f.Fingerprint == ""
			prints = append(prints, f.Fingerprint)
		}
		return prints, missing, nil
	case doc.Runs != nil:
		for _, r := range doc.Runs {
			for _, res := range r.Results {
				fp := res.PartialFingerprints[FingerprintVersion]
				missing = missing || fp == ""
				prints = append(prints, fp)
			}
		}
		return prints, missing, nil
	}
	return nil, false, errors.New("neither")
}

// TestReadFingerprints: the streamed reading of a baseline accepts,
// refuses and finds what reading it whole does, on odd documents; and
// refuses the few it must read differently.
func TestReadFingerprints(t *testing.T) {
	docs := map[string]string{
		"empty object":     `{}`,
		"null findings":    `{"findings": null, "runs": [{"results": [{"partialFingerprints": {"crashsim/v3": "0123456789abcdef"}}]}]}`,
		"empty runs":       `{"runs": []}`,
		"run no results":   `{"runs": [{"tool": {"driver": {"name": "x"}}}]}`,
		"two runs":         `{"runs": [{"results": [{"partialFingerprints": {"crashsim/v3": "1111111111111111"}}]}, {"results": null}, {"results": [{"partialFingerprints": {"crashsim/v3": "2222222222222222"}}]}]}`,
		"missing":          `{"findings": [{"rule": "data-not-synced"}, {"fingerprint": "0123456789abcdef"}]}`,
		"missing sarif":    `{"runs": [{"results": [{"partialFingerprints": {"crashsim/v1": "0123456789abcdef"}}]}]}`,
		"upper case":       `{"Findings": [{"Fingerprint": "3333333333333333"}]}`,
		"not hex":          `{"findings": [{"fingerprint": "not a fingerprint"}, {"fingerprint": "0123456789abcdef"}]}`,
		"trailing":         `{"findings": []} x`,
		"truncated":        `{"findings": [{"fingerprint": "0123`,
		"array":            `[1, 2]`,
		"text":             "line 1\nline 2\n",
		"findings object":  `{"findings": {"fingerprint": "0123456789abcdef"}}`,
		"findings numbers": `{"findings": [1]}`,
		"run number":       `{"runs": [1]}`,
		"summary after":    `{"findings": [{"fingerprint": "4444444444444444"}], "summary": {"events": 3, "warnings": []}, "version": 1}`,
		"unknown members":  `{"findings": [{"fingerprint": "4444444444444444", "problem": "x"}], "extra": [1, {"a": null}]}`,
	}
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prints, missing, wholeErr := printsWhole([]byte(docs[name]))
		got, err := ReadFingerprints(strings.NewReader(docs[name]))
		switch {
		case wholeErr != nil || missing:
			if err == nil {
				t.Errorf("%s: read whole it is refused (%v, missing %v); streamed it is not", name, wholeErr, missing)
			}
			continue
		case err != nil:
			t.Errorf("%s: refused: %v", name, err)
			continue
		}
		want := map[[8]byte]struct{}{}
		for _, fp := range prints {
			if k, ok := fingerprintKey(fp); ok {
				want[k] = struct{}{}
			}
		}
		if diff := cmp.Diff(want, got.set); diff != "" {
			t.Errorf("%s: fingerprints (-whole +streamed):\n%s", name, diff)
		}
		for _, fp := range prints {
			if _, ok := fingerprintKey(fp); ok && !got.Has(fp) {
				t.Errorf("%s: %s not in the set", name, fp)
			}
		}
		if got.Len() != len(want) {
			t.Errorf("%s: Len %d, want %d", name, got.Len(), len(want))
		}
	}

	// What a streamed reading cannot settle as json.Unmarshal does, it
	// refuses: a list given twice (the first was read already), both
	// kinds of list, and a report newer than this package.
	for name, doc := range map[string]string{
		"twice":          `{"findings": [{"fingerprint": "1111111111111111"}], "findings": [{"fingerprint": "2222222222222222"}]}`,
		"twice in case":  `{"findings": [], "FINDINGS": []}`,
		"results twice":  `{"runs": [{"results": [], "results": []}]}`,
		"both":           `{"runs": [{"results": [{"partialFingerprints": {"crashsim/v3": "1111111111111111"}}]}], "findings": [{"fingerprint": "2222222222222222"}]}`,
		"newer":          fmt.Sprintf(`{"version": %d, "findings": [{"fingerprint": "1111111111111111"}]}`, Version+1),
		"newer at end":   fmt.Sprintf(`{"findings": [{"fingerprint": "1111111111111111"}], "version": %d}`, Version+1),
		"summary number": `{"findings": [], "summary": 5}`,
		// An empty file (a baseline truncated by a full disk) was read
		// as a report without findings.
		"empty":  ``,
		"spaces": "  \n",
	} {
		if _, err := ReadFingerprints(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	var nilSet *Fingerprints
	if nilSet.Has("0123456789abcdef") || nilSet.Len() != 0 {
		t.Error("a nil set has fingerprints")
	}
}

// TestReadNewer: a newer report is refused before its first finding is
// read.
func TestReadNewer(t *testing.T) {
	r := NewReader(strings.NewReader(fmt.Sprintf(`{"version": %d, "findings": [{"fingerprint": "1111111111111111"}]}`, Version+1)))
	_, err := r.Next()
	if err == nil || !strings.Contains(err.Error(), "a newer crashsim wrote it") {
		t.Errorf("got %v, want the version refused", err)
	}
}

// TestReadStreams: a Reader returns the first findings of a long report
// having read a little of it, and refuses a value longer than its bound
// without reading it all.
func TestReadStreams(t *testing.T) {
	finding := `{"rule": "data-not-synced", "fingerprint": "0123456789abcdef", "message": "` + strings.Repeat("x", 200) + `"},`
	src := &endless{head: `{"version": 1, "findings": [`, unit: finding, max: 64 << 20}
	r := NewReader(src)
	for i := range 100 {
		it, err := r.Next()
		if err != nil || it.Finding == nil || it.Finding.Fingerprint != "0123456789abcdef" {
			t.Fatalf("finding %d: %+v, %v", i, it, err)
		}
	}
	if src.read > 1<<20 {
		t.Errorf("read %d bytes for 100 findings of %d bytes", src.read, len(finding))
	}

	old := maxValue
	maxValue = 1 << 20
	defer func() { maxValue = old }()
	long := &endless{head: `{"findings": [{"message": "`, unit: "yyyyyyyy", max: 16 * maxValue}
	_, err := NewReader(long).Next()
	if !errors.Is(err, errTooLong) || long.read > 4*maxValue {
		t.Errorf("a value without end: %v after %d bytes", err, long.read)
	}
	// A long run of values, each short, is no long value.
	fps, err := ReadFingerprints(strings.NewReader(`{"findings": [` + strings.Repeat(`{"fingerprint": "0123456789abcdef"},`, 100000) + `{"fingerprint": "0123456789abcdee"}]}`))
	if err != nil || fps.Len() != 2 {
		t.Errorf("3.6 MB of short findings: %v, %d fingerprints", err, fps.Len())
	}
}

// endless is a head and then unit again and again, max bytes in all.
type endless struct {
	head, unit string
	read, max  int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.max {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), e.max-e.read)]
	n := 0
	for n < len(p) {
		s := e.unit
		if e.read < int64(len(e.head)) {
			s = e.head[e.read:]
		} else {
			s = s[(e.read-int64(len(e.head)))%int64(len(s)):]
		}
		k := copy(p[n:], s)
		n += k
		e.read += int64(k)
	}
	return n, nil
}
