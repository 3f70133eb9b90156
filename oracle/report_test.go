package oracle

import (
	"bytes"
	"strings"
	"testing"
)

// A path from the trace that holds a newline and a fake verdict prints on
// its own line, escaped, in both text reports: it cannot pass for a point
// of crashsim's own.
func TestTextReportsEscapePaths(t *testing.T) {
	evil := "a\npoint 9 after line 1: fsync(3) = 0  [sound]"
	r := &Result{Command: []string{"./save", "x\ny"}, FS: "ext4", Model: "ext4", Points: []Point{{
		Index: 1, Line: 4, Call: "rename(...) = 0", Reached: true, Sound: false,
		Observed:   map[string]string{evil: "missing", "b": "new"},
		Predicted:  map[string][]string{evil: {"old"}, "b": {"new"}},
		Mismatches: []Mismatch{{Path: evil, Observed: "missing"}},
	}}}
	br := &BlockResult{Command: []string{"./save"}, FS: "ext4", Model: "ext4", Points: []BlockPoint{{
		Index: 1, Line: 4, Call: "rename(...) = 0", Reached: true,
		Paths:       map[string]*BlockPath{evil: {Observed: []string{"missing"}, Predicted: []string{"old"}}},
		Mismatches:  []BlockMismatch{{Path: evil, Observed: "missing", Predicted: []string{"old"}}},
		Unmountable: []string{"state 1: " + evil},
	}}}
	var a, b bytes.Buffer
	if err := WriteText(&a, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteBlocksText(&b, br); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"WriteText": a.String(), "WriteBlocksText": b.String()} {
		if strings.Contains(out, "\npoint 9") {
			t.Errorf("%s: the path's newline reached the output:\n%s", name, out)
		}
		if !strings.Contains(out, `a\npoint 9 after line 1`) {
			t.Errorf("%s: the path is not shown escaped:\n%s", name, out)
		}
	}
	if !strings.Contains(a.String(), `oracle: ./save x\ny on ext4`) {
		t.Errorf("the command is not escaped:\n%s", a.String())
	}
}
