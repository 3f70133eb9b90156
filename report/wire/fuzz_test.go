package wire

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// secret stands for what a file named as a baseline may really hold (it
// can be a link to a key, a token, a password file): the fuzzer's '@'
// bytes become it, wherever they fall.
const secret = "Zhunter2Z"

// FuzzBaseline: whatever a baseline holds, reading its fingerprints never
// panics, and a refusal is one short line that says where the reading
// failed without a byte of the document: not the secret it may hold, nor
// the character a JSON error would quote.
func FuzzBaseline(f *testing.F) {
	for _, seed := range []string{
		``,
		`{"findings": [{"fingerprint": "0123456789abcdef"}], "summary": {"events": 3}}`,
		`{"findings": [{"fingerprint": "@"}]}`,
		`{"runs": [{"results": [{"partialFingerprints": {"crashsim/v2": "0123456789abcdef"}}]}], "version": "2.1.0"}`,
		`{"runs": [{"results": [{"partialFingerprints": {"@": 5}}]}]}`,
		`@SECRET=1`,
		`{"findings": [{"fingerprint": @}]}`,
		`{"findings": [], "summary": {"shard": @}}`,
		`{"findings": {"@": 1}}`,
		`{"version": 2, "findings": []}`,
		`{"findings": [], "findings": []}`,
		`{"findings": [{"fingerprint": "4444444444444444", "line": "@"}]}`,
		`{"findings": [{"related": [{"line": {"@": 1}}]}]}`,
		"{\"findings\": [{\"path\": \"\xff\"}]}",
		`{"findings": [] } @`,
		`{"findings": [{"fingerprint": "0123456789abcdef"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		doc = bytes.ReplaceAll(doc, []byte("@"), []byte(secret))
		fps, err := ReadFingerprints(bytes.NewReader(doc))
		if err == nil {
			if fps == nil {
				t.Fatal("no error and no set")
			}
			return
		}
		msg := err.Error()
		if len(msg) > 300 || strings.ContainsAny(msg, "\n\r\x00\x1b") || !utf8.ValidString(msg) {
			t.Fatalf("refusal of %d bytes is not one short line: %q", len(msg), msg)
		}
		if strings.Contains(strings.ToLower(msg), "hunter") || strings.Contains(msg, "'Z'") || strings.Contains(msg, `"Z`) {
			t.Fatalf("refusal shows the document: %q", msg)
		}
	})
}

// FuzzMerge: whatever two shard reports hold, merging them never panics,
// and a merge that succeeds writes a report that reads back whole. The
// seeds are the two shards of a real explore run (crashsim explore
// --shard I/2 on fixtures/traces/python-json-nosync, whose three
// rejected states are one problem that both shards found), in JSON and
// in SARIF, and each with the other's format.
func FuzzMerge(f *testing.F) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "merge", name))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	for _, ext := range []string{"json", "sarif"} {
		f.Add(read("shard1."+ext), read("shard2."+ext))
	}
	f.Add(read("shard1.json"), read("shard2.sarif"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var out bytes.Buffer
		if _, err := Merge(&out, []Shard{shardOf("a", a), shardOf("b", b)}); err != nil {
			return
		}
		r := NewReader(bytes.NewReader(out.Bytes()))
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("the merge does not read back: %v\n%s", err, out.Bytes())
			}
		}
	})
}
