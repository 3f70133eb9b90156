package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/google/go-cmp/cmp"
)

// The hand encoder writes what encoding/json writes for the same value.
func TestAppendEventMatchesEncodingJSON(t *testing.T) {
	hostile := "/tmp/a</script><!--\u2028\u2029\"\\\x01\xff&>é.txt"
	events := []HTMLEvent{
		{Seq: 3, Line: 4, File: "trace.77" + hostile, Syscall: "write", Kind: "write", Lanes: []int{0}, Len: 21, Call: "write(3<" + hostile + ">, ..., 21) = 21",
			Point: HTMLPoint{Index: 1, States: 4, Explored: 4, Exact: true, Outcomes: map[int][]string{0: {"missing", "latest"}},
				Detail:   map[int][]HTMLState{0: {{Outcome: "torn", Persisted: "line 4 torn after 4096 bytes", Torn: 4, TornBytes: 4096, Applied: []int{2, 3}, Name: 1, Version: 2, SizeOnly: 9}}},
				Unlisted: map[int]int64{0: 65470}}},
		{Seq: 0, Line: 1, PID: 77, Syscall: "rename", Kind: "rename", Lanes: []int{2, 1}, From: 3, To: 2, Off: -1, Direct: true, Sync: true, Failed: true, Call: "",
			Point: HTMLPoint{Index: 2, Outcomes: map[int][]string{1: {"latest"}, 2: {}}}},
	}
	for _, e := range events {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc := wire.NewEncoder(&buf, wire.Compact)
		writeEvent(enc, &e)
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
		got := buf.Bytes()
		var a, b any
		if err := json.Unmarshal(want, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatalf("hand-encoded record is not JSON: %v\n%s", err, got)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("hand encoding differs from encoding/json (-json +hand):\n%s", diff)
		}
		if bytes.Contains(got, []byte("</")) || bytes.Contains(got, []byte("<!--")) {
			t.Errorf("record can end the script element: %s", got)
		}
	}
}

// No string of a finding or an event can close the data's script element.
func TestHTMLDataCannotCloseScript(t *testing.T) {
	evil := "/x</script><script>alert(1)</script><!--"
	res := resultOf(&check.Finding{Rule: &check.Rule{ID: "data-not-synced", Title: "t", Fix: "f " + evil},
		Path: evil, Message: "m " + evil, Related: []check.Related{{Line: 1, What: evil}}})
	res.Notes = []check.Note{{Message: evil}}
	var buf bytes.Buffer
	h := NewHTML(&buf, HTMLMeta{Command: "check", Trace: evil, Model: "posix"}, res, HTMLLimits{})
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="crashsim-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data element")
	}
	if strings.Contains(m[1], "<") {
		t.Errorf("data holds a raw <: %s", m[1])
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(m[1]), &doc); err != nil {
		t.Fatalf("data is not one JSON value: %v", err)
	}
	for _, k := range []string{"lanes", "events", "warnings", "notes", "findings"} {
		if _, ok := doc[k].([]any); !ok {
			t.Errorf("%s is %v, want an array (the page iterates it)", k, doc[k])
		}
	}
	if got := doc["findings"].([]any)[0].(map[string]any)["path"]; got != evil {
		t.Errorf("path after the round trip: %q", got)
	}
	if strings.Contains(page, "<title>crashsim check: /x</script>") {
		t.Error("title not escaped")
	}
	// The one URL in the page is the SVG namespace, a name and no fetch.
	rest := strings.ReplaceAll(page, "http://www.w3.org/2000/svg", "")
	for _, banned := range []string{"http:", "https:", "//cdn", "<link", " src=", "@import", "url(http"} {
		if strings.Contains(rest, banned) {
			t.Errorf("page refers to something outside itself: %s", banned)
		}
	}
}

// TestHTMLRecordsAsJSON: the page's other records are byte for byte what
// json.Marshal writes of them, hostile strings included.
func TestHTMLRecordsAsJSON(t *testing.T) {
	hostile := "</script><!--&\u2028\b\f bad \xff \x00\"\\"
	records := []struct {
		v     any
		write func(*wire.Encoder)
	}{}
	add := func(v any, write func(*wire.Encoder)) {
		records = append(records, struct {
			v     any
			write func(*wire.Encoder)
		}{v, write})
	}
	for _, m := range []HTMLMeta{{Command: "check", Trace: hostile, Model: "posix", Models: []string{"posix", hostile}, Version: "v1"}, {}} {
		add(m, func(e *wire.Encoder) { writeMeta(e, &m) })
	}
	for _, f := range []HTMLFinding{
		{Rule: "data-not-synced", Title: hostile, Severity: "error", Path: hostile, Line: 3, Seq: 2, PID: 9, Message: hostile, Fix: hostile,
			Models: []string{"posix"}, Related: []wire.Related{{Line: 1, PID: 2, Syscall: "write", What: hostile}},
			State: &wire.State{Line: 3, Path: hostile, Outcome: "empty", Persisted: "none", Words: hostile}},
		{Related: []wire.Related{}},
		{},
	} {
		add(f, func(e *wire.Encoder) { writeFinding(e, &f) })
	}
	for _, l := range []HTMLLane{{ID: 3, Path: hostile, Dir: "/", IsDir: true}, {}} {
		add(l, func(e *wire.Encoder) { writeLane(e, &l) })
	}
	for _, st := range []HTMLState{{Outcome: "torn", Persisted: hostile, Name: 1, Applied: []int{2}, Torn: 4, TornBytes: 5, SizeOnly: 6, Version: 7}, {Applied: []int{}}} {
		add(st, func(e *wire.Encoder) { writeState(e, &st) })
	}
	for _, r := range records {
		want, err := json.Marshal(r.v)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		e := wire.NewEncoder(&buf, wire.Compact)
		r.write(e)
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		if buf.String() != string(want) {
			t.Errorf("%T:\ngot  %s\nwant %s", r.v, buf.Bytes(), want)
		}
	}
}
