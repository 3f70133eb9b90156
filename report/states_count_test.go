package report

import "testing"

// TestStateCount: a count is printed as it is, a bound says "at least",
// and a count that reached the counters' ceiling (2^62, where a program
// keeps many files with pending changes) says so in place of 19 digits
// that read like a real count.
func TestStateCount(t *testing.T) {
	for _, c := range []struct {
		n     int64
		exact bool
		want  string
	}{
		{12, true, "12"},
		{12, false, "at least 12"},
		{1<<62 - 1, true, "4611686018427387903"},
		{1 << 62, true, "at least 2^62"},
		{1 << 62, false, "at least 2^62"},
	} {
		if got := StateCount(c.n, c.exact); got != c.want {
			t.Errorf("StateCount(%d, %v) = %q, want %q", c.n, c.exact, got, c.want)
		}
	}
}
