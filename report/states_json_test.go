package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crashsim/crashsim/report/wire"
)

// statesPoint makes a point of the JSON timeline from fuzzed parts: a and
// b are paths and words (with the bytes JSON escapes), n a number, shape
// which fields are empty.
func statesPoint(a, b string, n int, shape uint16) PointJSON {
	bit := func(i uint) bool { return shape&(1<<i) != 0 }
	pj := PointJSON{Index: n, Line: n * 3, States: int64(n) << 20, Exact: bit(0), Explored: int64(-n)}
	if bit(1) {
		pj.Trace = a
	}
	if bit(2) {
		name := b
		pj.Syscall = &name
	}
	if !bit(3) {
		pj.Paths = map[string][]string{a: {"latest", b}, b: {}, a + "/z": nil, "": {a}}
	}
	if !bit(4) {
		pj.Detail = []DetailJSON{}
	}
	for i := range 1 + int(shape>>12) {
		d := DetailJSON{Path: a, Outcome: b, Inode: n + i, Persisted: b + a}
		if bit(5) {
			d.Name, d.Torn, d.TornBytes = n, i, int64(n)*4096
		}
		if bit(6) {
			d.Applied = []int{n, i, -1}
		} else if bit(7) {
			d.Applied = []int{}
		}
		if bit(8) {
			d.SizeOnly, d.Version = i+1, n-1
		}
		pj.Detail = append(pj.Detail, d)
	}
	return pj
}

// checkPoint compares writePoint's bytes with encoding/json's, as the
// timeline wrote them before (json.Marshal's compact, HTML-escaped form).
func checkPoint(t *testing.T, pj PointJSON, ch *PointChangesJSON) {
	t.Helper()
	var want []byte
	var err error
	if ch == nil {
		want, err = json.Marshal(pj)
	} else {
		c := *ch
		c.PointJSON = pj
		want, err = json.Marshal(c)
	}
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	e := wire.NewEncoder(&got, wire.Compact)
	writePoint(e, &pj, ch)
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("(-encoding/json +writePoint):\n%s", diff)
	}
}

// TestWritePointIsJSON: states --format json writes each crash point by
// hand; every field, empty or not, in both views, with paths that need
// escaping, comes out as encoding/json writes it.
func TestWritePointIsJSON(t *testing.T) {
	for shape := range uint16(1 << 9) {
		pj := statesPoint("/d/<a&b>\"é\x01", "line 7 torn after 4096 bytes", int(shape)-200, shape|uint16(shape%3)<<12)
		checkPoint(t, pj, nil)
		checkPoint(t, pj, &PointChangesJSON{Moved: []string{"/d/x", "\u2028"}, Unchanged: int(shape)})
		checkPoint(t, pj, &PointChangesJSON{Moved: []string{}})
	}
}

func FuzzWritePoint(f *testing.F) {
	f.Add("/srv/db", "all", 3, uint16(0))
	f.Add("<script>", "\xff\xfe", -1, uint16(0xffff))
	f.Add("", "", 0, uint16(0x1234))
	f.Fuzz(func(t *testing.T, a, b string, n int, shape uint16) {
		pj := statesPoint(a, b, n, shape)
		checkPoint(t, pj, nil)
		checkPoint(t, pj, &PointChangesJSON{Moved: []string{a, b}, Unchanged: n})
	})
}
