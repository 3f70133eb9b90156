package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodeRef is v as encoding/json writes it at depth in style s: what the
// Encoder must write.
func encodeRef(t testing.TB, v any, depth int, s Style) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if s != Compact {
		enc.SetIndent(strings.Repeat("  ", depth), "  ")
	}
	enc.SetEscapeHTML(s != Indented)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// encodeAt is v as the Encoder writes it at depth in style s, as the
// value of a member.
func encodeAt(t testing.TB, v any, depth int, s Style) string {
	t.Helper()
	var buf bytes.Buffer
	e := NewEncoder(&buf, s)
	e.depth, e.keyed = depth, true
	if err := e.Value(v); err != nil {
		t.Fatal(err)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var stringSeeds = []string{
	"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rcr",
	"\x00\x01\x07\b\f\x1f\x7f", "\u2028\u2029", "caf\xc3\xa9", "bad \xff\xfe utf-8", "cut \xe2\x82",
	"\xed\xa0\x80 surrogate", "emoji \U0001F600", "/tmp/a b/c:[1]", "bidi \u202e gnp.exe",
	// Long enough for appendString's eight bytes at a time, with what
	// needs escaping at the edges of a word and inside one.
	"/srv/bench/d0/f12345.json", "/srv/bench/d0/f12345.json\"", "\"srv/bench/d0/f12345.json",
	"/srv/ben\\h/d0/f1<345.json", "0123456\n89abcdef\x7f", "01234567caf\xc3\xa9 et \xe2\x80\xa8 x",
	"abcdefg\xff\xfeabcdefgh&ijklmnop>",
}

func FuzzString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	// Each byte or rune that matters at every place of two words
	// (appendString reads eight bytes at once).
	const plain = "/srv/bench/d0/f12345.json"
	for _, c := range []string{"\x00", "\x1f", "\x7f", "\\", "\"", "<", ">", "&", "\xff", "\u2028", "é"} {
		for i := 0; i < 16; i++ {
			f.Add(plain[:i] + c + plain[i:])
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(buf.String(), "\n")
			if got := string(appendString(nil, s, html)); got != want {
				t.Errorf("html=%v: %q:\ngot  %s\nwant %s", html, s, got, want)
			}
		}
	})
}

// fuzzFinding is a finding made of the fuzzer's strings and numbers, with
// the optional parts there or not as bits of shape say.
func fuzzFinding(a, b, c string, n int, shape uint16) *Finding {
	f := &Finding{Rule: a, Severity: "error", Path: b, Trace: c, Line: n, PID: -n, Message: a + b,
		Fingerprint: c, RelPath: b}
	if shape&1 != 0 {
		f.Models = []string{"posix", a}
	} else if shape&2 != 0 {
		f.Models = []string{}
	}
	if shape&4 != 0 {
		f.Related = []Related{{Line: n, PID: 2, Syscall: c, What: a}, {Line: 1, Syscall: "fsync", What: b}}
	} else if shape&8 != 0 {
		f.Related = []Related{}
	}
	if shape&16 != 0 {
		f.State = &State{Line: n, Path: b, Outcome: "empty", Persisted: c}
		if shape&32 != 0 {
			f.State.Words = a
		}
	}
	if shape&64 != 0 {
		f.Source = &Source{File: c, Line: n, Function: a}
	}
	if shape&128 != 0 {
		f.StateIndex = n
	}
	if shape&256 != 0 {
		f.Problem = c
	}
	return f
}

func fuzzProblem(a, b, c string, n int, shape uint16) *Problem {
	p := &Problem{ID: c, Rule: a, Severity: "warning", Path: b, Trace: c, Line: n, Message: a + b, Fix: b + a}
	if shape&1 != 0 {
		p.Paths = []string{b, a}
	} else if shape&2 != 0 {
		p.Paths = []string{}
	}
	if shape&4 != 0 {
		p.Findings = []string{c, a}
	} else if shape&8 != 0 {
		p.Findings = []string{}
	}
	if shape&16 != 0 {
		p.Source = &Source{File: c, Line: n, Function: a}
	}
	if shape&32 != 0 {
		p.Program = true
	}
	if shape&64 != 0 {
		p.StateIndex = n
	}
	return p
}

func fuzzSARIF(a, b, c string, n int, shape uint16) *SARIFResult {
	id := n
	r := &SARIFResult{RuleID: a, RuleIndex: n, Level: "warning", Message: SARIFText{b},
		Locations:           []SARIFLocation{{PhysicalLocation: SARIFPhysicalLocation{ArtifactLocation: SARIFArtifact{URI: c}, Region: SARIFRegion{n}}}},
		PartialFingerprints: map[string]string{FingerprintVersion: a, b: c}}
	if shape&1 != 0 {
		r.RelatedLocations = []SARIFLocation{{ID: &id, PhysicalLocation: SARIFPhysicalLocation{ArtifactLocation: SARIFArtifact{URI: a, URIBaseID: b}, Region: SARIFRegion{1}}, Message: &SARIFText{c}}}
	} else if shape&2 != 0 {
		r.RelatedLocations = []SARIFLocation{}
	}
	if shape&4 != 0 {
		r.Properties = &SARIFResultProperties{Path: b, Paths: []string{b, c}, Models: []string{"posix"}}
		if shape&8 != 0 {
			r.Properties.StateIndex = n
			r.Properties.Function = &a
			r.Properties.Findings = []string{a, c}
			r.Properties.Rules = []string{b}
		}
		if shape&16 != 0 {
			r.Properties.Models = nil
		}
	}
	if shape&32 != 0 {
		r.Locations = nil
	}
	if shape&64 != 0 {
		r.PartialFingerprints = nil
	}
	return r
}

// fuzzSummary is a summary with the optional parts as shape says.
func fuzzSummary(a, b, c string, n int, shape uint16) *Summary {
	s := &Summary{Counts: Counts{Events: n, Files: n + 1, Errors: -n, WarningFindings: 3, Infos: n * 2}, Left: Left{n, 1, 2}}
	if shape&256 != 0 {
		s.Models = []string{a, "ext4"}
		s.Warnings = []Warning{{ID: a, Message: b, Trace: c, Line: n, Fix: a, Accepted: shape&512 != 0}}
		s.Notes = []Note{{ID: b, Message: c}, {ID: a, Message: b, Trace: c, Line: n}}
	} else if shape&1024 != 0 {
		s.Models, s.Warnings, s.Notes = []string{}, []Warning{}, []Note{}
	}
	if shape&2048 != 0 {
		s.Shard = c
	}
	if shape&4096 != 0 {
		s.Explore = &Explore{Points: n, Sampled: 1, Admitted: int64(n) << 40, AdmittedExact: shape&1 != 0, Built: 3, Seed: uint64(n) * 0x9e3779b97f4a7c15,
			Families: ExploreFamilies{Predicted: 1, Random: n}, CrashPoints: []ExplorePoint{{Line: n, Admitted: -1, Families: []string{a}}, {Exhaustive: true}}}
		if shape&8192 != 0 {
			s.Explore.CrashPoints = nil
		}
	}
	return s
}

// fuzzLog is a SARIF log of one run, with its parts as shape says.
func fuzzLog(a, b, c string, n int, shape uint16) *SARIFLog {
	run := SARIFRun{
		Tool: SARIFTool{Driver: SARIFDriver{Name: a, Version: b, SemanticVersion: c, InformationURI: a,
			Rules: []SARIFRule{{ID: a, Name: b, ShortDescription: SARIFText{c}, FullDescription: SARIFText{a}, Help: SARIFText{b},
				DefaultConfiguration: SARIFRuleConfig{"error"}}}}},
		Invocations: []SARIFInvocation{{ExecutionSuccessful: shape&1 != 0, ExitCode: n, Notifications: []SARIFNotification{
			{Descriptor: SARIFDescriptor{a}, Level: "note", Message: SARIFText{b}}}}},
		Results: []SARIFResult{*fuzzSARIF(a, b, c, n, shape), *fuzzSARIF(c, b, a, n+1, shape>>1)},
	}
	if shape&2 != 0 {
		run.Tool.Driver.Rules[0].HelpURI = c
		run.Tool.Driver.Rules[0].Properties = &SARIFRuleProperties{Tags: []string{a, "durability"}}
		run.Invocations[0].Notifications[0].Locations = []SARIFLocation{{PhysicalLocation: SARIFPhysicalLocation{ArtifactLocation: SARIFArtifact{URI: b}}}}
	}
	if shape&4 != 0 {
		run.OriginalURIBaseIDs = map[string]SARIFArtifact{"TRACEDIR": {URI: a}, b: {URI: c, URIBaseID: a}}
	}
	if shape&8 != 0 {
		run.Properties = &SARIFRunProperties{Shard: b}
	}
	if shape&16 != 0 {
		run.Results = nil
	}
	return &SARIFLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []SARIFRun{run}}
}

func fuzzReport(a, b, c string, n int, shape uint16) *Report {
	r := &Report{Version: n, Tool: Tool{Name: a, Version: b, SemVer: c}, Summary: *fuzzSummary(a, b, c, n, shape)}
	if shape&4096 != 0 {
		r.Tool.Revision = a
	}
	if shape&8192 == 0 {
		r.Findings = []Finding{*fuzzFinding(a, b, c, n, shape), *fuzzFinding(b, c, a, -n, ^shape)}
	}
	if shape&16384 == 0 {
		r.Problems = []Problem{*fuzzProblem(a, b, c, n, shape), *fuzzProblem(c, a, b, -n, ^shape)}
	}
	return r
}

// FuzzValues holds every type the Encoder writes by hand to encoding/json,
// at every depth, in both styles.
func FuzzValues(f *testing.F) {
	for i, s := range stringSeeds {
		f.Add(s, stringSeeds[(i+3)%len(stringSeeds)], "t.strace", i*1000-3, uint16(i*4099))
	}
	f.Add("", "", "", 0, uint16(0))
	f.Add("a", "b", "c", 1, uint16(0xffff))
	f.Add("<a>", "b&", "", -1, uint16(0x5555))
	f.Fuzz(func(t *testing.T, a, b, c string, n int, shape uint16) {
		values := map[string]any{
			"finding": fuzzFinding(a, b, c, n, shape),
			"problem": fuzzProblem(a, b, c, n, shape),
			"result":  fuzzSARIF(a, b, c, n, shape),
			"summary": fuzzSummary(a, b, c, n, shape),
			"counts":  &fuzzSummary(a, b, c, n, shape).Counts,
			"report":  fuzzReport(a, b, c, n, shape),
			"log":     fuzzLog(a, b, c, n, shape),
		}
		for name, v := range values {
			for _, s := range []Style{Indented, Compact, IndentedEscaped} {
				// Deep enough, with what nests in the value, for a line
				// to outgrow the indentation newline keeps at hand.
				for _, depth := range []int{0, 1, 2, 3, 14} {
					if s == Compact && depth > 0 {
						break
					}
					if diff := cmp.Diff(encodeRef(t, v, depth, s), encodeAt(t, v, depth, s)); diff != "" {
						t.Errorf("%s, style %d, depth %d (-encoding/json +encoder):\n%s", name, s, depth, diff)
					}
				}
			}
		}
	})
}

// TestValueReflect: a value of a type the Encoder does not know is written
// as encoding/json writes it, in its place.
func TestValueReflect(t *testing.T) {
	type point struct {
		X    int               `json:"x"`
		Name string            `json:"name,omitempty"`
		M    map[string][]bool `json:"m"`
	}
	v := []any{point{1, "<a&b>", map[string][]bool{"z": {true}, "a": nil}}, 3.5, nil, map[int]string{2: "two", 10: "ten"}}
	for _, s := range []Style{Indented, Compact, IndentedEscaped} {
		for depth := range 3 {
			if s == Compact && depth > 0 {
				break
			}
			if diff := cmp.Diff(encodeRef(t, v, depth, s), encodeAt(t, v, depth, s)); diff != "" {
				t.Errorf("style %d, depth %d (-encoding/json +encoder):\n%s", s, depth, diff)
			}
		}
	}
	var buf bytes.Buffer
	if err := NewEncoder(&buf, Indented).Value(func() {}); err == nil {
		t.Error("a func encoded without an error")
	}
}

// TestTokens writes a document a token at a time, as an HTML page's data
// is written, and compares it with encoding/json.
func TestTokens(t *testing.T) {
	type doc struct {
		A []int          `json:"a"`
		B map[string]any `json:"b"`
		C []string       `json:"c"`
		D bool           `json:"d"`
		E any            `json:"e"`
		F [][]int        `json:"f"`
	}
	want := doc{A: []int{1, -2}, B: map[string]any{}, C: nil, D: true, E: nil, F: [][]int{{}, {3}}}
	write := func(e *Encoder) {
		e.BeginObject()
		e.Key("a")
		e.Ints([]int{1, -2})
		e.Key("b")
		e.BeginObject()
		e.EndObject()
		e.Key("c")
		e.Strings(nil)
		e.Key("d")
		e.Bool(true)
		e.Key("e")
		e.Null()
		e.Key("f")
		e.BeginArray()
		e.BeginArray()
		e.EndArray()
		e.BeginArray()
		e.Int64(3)
		e.EndArray()
		e.EndArray()
		e.EndObject()
	}
	for _, s := range []Style{Indented, Compact, IndentedEscaped} {
		var buf bytes.Buffer
		e := NewEncoder(&buf, s)
		write(e)
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(encodeRef(t, want, 0, s), buf.String()); diff != "" {
			t.Errorf("style %d (-encoding/json +tokens):\n%s", s, diff)
		}
	}
}

// TestEncoderStreams: the Encoder hands its bytes to the writer as it
// goes, not at the end, and keeps the first write error.
func TestEncoderStreams(t *testing.T) {
	var w countWriter
	e := NewEncoder(&w, Indented)
	e.BeginArray()
	f := fuzzFinding("data-not-synced", "/w/config.json", "t.strace", 7, 0xff)
	for range 2000 {
		e.Value(f)
	}
	if w.writes == 0 || w.n < 2*flushAt {
		t.Errorf("after 2000 findings, %d writes of %d bytes: want them written as they come", w.writes, w.n)
	}
	held := len(e.b)
	if held >= 2*flushAt {
		t.Errorf("the encoder holds %d bytes", held)
	}
	e.EndArray()
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}

	// Values of other types go through encoding/json (states' points):
	// they stream out too, rather than being held to the end.
	w = countWriter{}
	e = NewEncoder(&w, Indented)
	e.BeginArray()
	point := struct {
		Line  int      `json:"line"`
		Paths []string `json:"paths"`
	}{7, []string{"/w/config.json", "/w/config.json.tmp", "/w"}}
	for range 2000 {
		if err := e.Value(point); err != nil {
			t.Fatal(err)
		}
	}
	if w.writes == 0 || len(e.b) >= 2*flushAt {
		t.Errorf("after 2000 reflected values, %d writes, %d bytes held: want them written as they come", w.writes, len(e.b))
	}

	e = NewEncoder(failWriter{}, Indented)
	for range 2000 {
		e.Value(f)
	}
	if e.Err() == nil || e.Flush() == nil {
		t.Error("no error from a writer that failed")
	}
}

type countWriter struct{ n, writes int }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.writes++
	return len(p), nil
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, fmt.Errorf("disk full") }

// BenchmarkFinding compares the Encoder with encoding/json's Encode and
// Indent on one finding.
func BenchmarkFinding(b *testing.B) {
	f := fuzzFinding("data-not-synced", "/w/data/settings/config.json", "/w/trace.strace", 4071, 4|16|32|1)
	f.Message = "config.json can be empty or full of zeros after a crash: 1 write (21 bytes) written and never made durable; fsync (or fdatasync) the file after the last write"
	b.Run("encoder", func(b *testing.B) {
		e := NewEncoder(nil, Indented)
		for b.Loop() {
			e.b = e.b[:0]
			e.depth, e.keyed = 2, true
			e.finding(f)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetIndent("    ", "  ")
		enc.SetEscapeHTML(false)
		for b.Loop() {
			out.Reset()
			enc.Encode(f)
		}
	})
}

// keyAsJSON is the object {k: 1} as the Encoder writes it in style s.
func keyAsJSON(t testing.TB, k string, s Style) string {
	t.Helper()
	var buf bytes.Buffer
	e := NewEncoder(&buf, s)
	e.BeginObject()
	e.Key(k)
	e.Int(1)
	e.EndObject()
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestKeys holds Key to encoding/json for the keys the quick path writes
// as they are and for keys it must hand to the general quoting: quotes,
// backslashes, control bytes, the HTML bytes only some styles escape,
// bytes past ASCII (valid or not), and a name longer than the quick path
// takes.
func TestKeys(t *testing.T) {
	keys := []string{"", "rule", "state_index", "A_Z09", strings.Repeat("k", 32), strings.Repeat("k", 33),
		`a"b`, `a\b`, "a\nb", "a\x00", "<script>", "a&b", "a b", "a-b", "é", "\xff", "a\u2028b"}
	for _, k := range keys {
		for _, s := range []Style{Indented, Compact, IndentedEscaped} {
			if got, want := keyAsJSON(t, k, s), encodeRef(t, map[string]int{k: 1}, 0, s); got != want {
				t.Errorf("key %q, style %d: got %s, encoding/json %s", k, s, got, want)
			}
		}
	}
}

// FuzzKey: any key is written as encoding/json writes it, in every style.
func FuzzKey(f *testing.F) {
	for _, k := range []string{"rule", "a\"b", "<x>", "\xff", "state_index"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		for _, s := range []Style{Indented, Compact, IndentedEscaped} {
			if got, want := keyAsJSON(t, k, s), encodeRef(t, map[string]int{k: 1}, 0, s); got != want {
				t.Errorf("key %q, style %d: got %s, encoding/json %s", k, s, got, want)
			}
		}
	})
}
