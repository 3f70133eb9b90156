package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
)

// encodeRef is v as the Encoder writes it at depth, with or without HTML
// escaping: what the appenders must write.
func encodeRef(t testing.TB, v any, depth int, html bool) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(strings.Repeat("  ", depth), "  ")
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

var jsonStringSeeds = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rcr",
	"\x00\x01\x07\b\f\x1f\x7f", "\u2028\u2029", "caf\xc3\xa9", "bad \xff\xfe utf-8", "cut \xe2\x82",
	"\xed\xa0\x80 surrogate", "emoji \U0001F600", "/tmp/a b/c:[1]",
}

func FuzzJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			want := encodeRef(t, s, 0, html)
			if got := string(appendJSONString(nil, s, html)); got != want {
				t.Errorf("html=%v: %q:\ngot  %s\nwant %s", html, s, got, want)
			}
		}
	})
}

// fuzzFinding is a finding made of the fuzzer's strings and numbers, with
// the optional parts there or not as bits of shape say.
func fuzzFinding(a, b, c string, n int, shape uint8) *FindingJSON {
	fj := &FindingJSON{Rule: a, Severity: "error", Path: b, Trace: c, Line: n, PID: -n, Message: a + b,
		Fingerprint: c, RelPath: b}
	if shape&1 != 0 {
		fj.Models = []string{"posix", a}
	} else if shape&2 != 0 {
		fj.Models = []string{}
	}
	if shape&4 != 0 {
		fj.Related = []check.Related{{Line: n, PID: 2, Syscall: c, What: a}, {Line: 1, Syscall: "fsync", What: b}}
	} else if shape&8 != 0 {
		fj.Related = []check.Related{}
	}
	if shape&16 != 0 {
		fj.State = &check.State{Line: n, Path: b, Outcome: "empty", Persisted: c}
		if shape&32 != 0 {
			fj.State.Words = a
		}
	}
	if shape&64 != 0 {
		fj.Source = &SourceJSON{File: c, Line: n, Function: a}
	}
	if shape&128 != 0 {
		fj.StateIndex = n
	}
	return fj
}

func fuzzSARIF(a, b, c string, n int, shape uint8) *sarifResult {
	id := n
	r := &sarifResult{RuleID: a, RuleIndex: n, Level: "warning", Message: sarifText{b},
		Locations:           []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifact{URI: c}, Region: sarifRegion{n}}}},
		PartialFingerprints: map[string]string{FingerprintVersion: a, b: c}}
	if shape&1 != 0 {
		r.RelatedLocations = []sarifLocation{{ID: &id, PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifact{URI: a, URIBaseID: b}, Region: sarifRegion{1}}, Message: &sarifText{c}}}
	} else if shape&2 != 0 {
		r.RelatedLocations = []sarifLocation{}
	}
	if shape&4 != 0 {
		r.Properties = map[string]any{"path": b, "paths": []string{b, c}, "models": []string{"posix"}}
		if shape&8 != 0 {
			r.Properties["stateIndex"] = n
			r.Properties["function"] = a
		}
		if shape&16 != 0 {
			r.Properties["models"] = []string(nil)
			r.Properties[a] = map[string]any{"x": []int{1, n}, "y": b} // a type the appender leaves to encoding/json
		}
	} else if shape&32 != 0 {
		r.Properties = map[string]any{}
	}
	if shape&64 != 0 {
		r.Locations = nil
	}
	return r
}

func FuzzFindingJSON(f *testing.F) {
	for i, s := range jsonStringSeeds {
		f.Add(s, jsonStringSeeds[(i+3)%len(jsonStringSeeds)], "t.strace", i*1000-3, uint8(i*37))
	}
	f.Add("", "", "", 0, uint8(0))
	f.Add("a", "b", "c", 1, uint8(255))
	f.Fuzz(func(t *testing.T, a, b, c string, n int, shape uint8) {
		for depth := range 5 {
			fj := fuzzFinding(a, b, c, n, shape)
			if got, want := string(appendFinding(nil, fj, depth)), encodeRef(t, fj, depth, false); got != want {
				t.Errorf("finding at depth %d:\n%s", depth, firstLineDiff(want, got))
			}
			r := fuzzSARIF(a, b, c, n, shape)
			got, err := appendSARIFResult(nil, r, depth)
			if err != nil {
				t.Fatal(err)
			}
			if want := encodeRef(t, r, depth, false); string(got) != want {
				t.Errorf("SARIF result at depth %d:\n%s", depth, firstLineDiff(want, string(got)))
			}
		}
	})
}

// BenchmarkFindingJSON compares the appender with Encode and Indent, as
// jsonStream.value writes a finding.
func BenchmarkFindingJSON(b *testing.B) {
	fj := fuzzFinding("data-not-synced", "/w/data/settings/config.json", "/w/trace.strace", 4071, 4|16|32|1)
	fj.Message = "config.json can be empty or full of zeros after a crash: 1 write (21 bytes) written and never made durable; fsync (or fdatasync) the file after the last write"
	b.Run("appender", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = appendFinding(buf[:0], fj, 2)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		var out bytes.Buffer
		s := newJSONStream(&out)
		for b.Loop() {
			out.Reset()
			s.value(fj, 2)
		}
	})
}
