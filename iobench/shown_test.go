package iobench

import (
	"strings"
	"testing"
)

func TestShown(t *testing.T) {
	long := strings.Repeat("a", 100) + "/" + strings.Repeat("é", 100)
	for _, tc := range []struct{ in, want, wantQ string }{
		{"bench.bin", "bench.bin", `"bench.bin"`},
		{"a b/c", "a b/c", `"a b/c"`},
		{"a\nb", `"a\nb"`, `"a\nb"`},
		{"\xff.bin", `"\xff.bin"`, `"\xff.bin"`},
		{"x\u202ey", `"x\u202ey"`, `"x\u202ey"`},
		{long, strings.Repeat("a", 80) + "..." + strings.Repeat("é", 20) + " (301 bytes)", `"` + strings.Repeat("a", 80) + "..." + strings.Repeat("é", 20) + `" (301 bytes)`},
	} {
		if got := shown(tc.in); got != tc.want {
			t.Errorf("shown(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := shownQ(tc.in); got != tc.wantQ {
			t.Errorf("shownQ(%q) = %q, want %q", tc.in, got, tc.wantQ)
		}
	}
}
