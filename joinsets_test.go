package crashsim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestJoinSets: every file of an -ff set given (a shell's t.*) is read
// as the set; part of one, or files of no set, stay as given.
func TestJoinSets(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"t.100", "t.101", "t.102", "u.7", "u.8", "plain.strace", "v", "v.5", "v.6"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("close(3) = 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		in, want []string
	}{
		{"the whole set", p("t.100", "t.101", "t.102"), p("t")},
		{"the whole set, out of order, with another trace", p("plain.strace", "t.102", "t.100", "t.101"), p("plain.strace", "t")},
		{"two sets", p("u.7", "t.100", "u.8", "t.101", "t.102"), p("u", "t")},
		{"part of a set", p("t.100", "t.101"), p("t.100", "t.101")},
		{"one file", p("t.100"), p("t.100")},
		{"the prefix itself", p("t", "u.7"), p("t", "u.7")},
		// v is a trace of its own: the set is named as PREFIX.*.
		{"a set whose prefix is a file too", p("v.5", "v.6"), p("v.*")},
	} {
		if got := JoinSets(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s: JoinSets(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
