package parser

import (
	"strings"
	"testing"
)

// TestPosEscaped: a position names its file escaped (textesc), in
// String, Error and Detail, so that a trace named with a newline or a
// terminal escape cannot print a line that passes for crashsim's own; an
// ordinary name prints as it is.
func TestPosEscaped(t *testing.T) {
	for _, tc := range []struct {
		pos  Pos
		want string
	}{
		{Pos{File: "t.strace", Line: 3}, "t.strace:3"},
		{Pos{File: "dir/t.strace", Line: 3, Col: 7}, "dir/t.strace:3:7"},
		{Pos{File: "a\nb.strace:1: fake\x1b[31m", Line: 2, Col: 1}, `a\nb.strace:1: fake\x1b[31m:2:1`},
	} {
		if got := tc.pos.String(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.pos, got, tc.want)
		}
		e := &Error{Pos: tc.pos, Msg: "bad", Text: "123 close("}
		for _, s := range []string{e.Error(), e.Detail()} {
			if !strings.HasPrefix(s, tc.want+": bad") || strings.ContainsRune(s, '\x1b') {
				t.Errorf("%#v: error %q", tc.pos, s)
			}
		}
	}
}
