package textesc

import "testing"

func TestAdversarialEscape(t *testing.T) {
	for _, tc := range []struct{ in, escaped, quoted string }{
		{"/srv/app/config.json", "/srv/app/config.json", `"/srv/app/config.json"`},
		{"with space", "with space", `"with space"`},
		{"x\nfake.strace:1: FORGED", `x\nfake.strace:1: FORGED`, `"x\nfake.strace:1: FORGED"`},
		{"\t\v\f\r", `\t\v\f\r`, `"\t\v\f\r"`},
		{"\x1b[2J\x00\x7f", `\x1b[2J\x00\x7f`, `"\x1b[2J\x00\x7f"`},
		{`a\b"c`, `a\\b"c`, `"a\\b\"c"`},
		{"caf\xc3\xa9 \xff", `café \xff`, `"café \xff"`},
		{"a\u2028b\u202ec\u0085", `a\u2028b\u202ec\u0085`, `"a\u2028b\u202ec\u0085"`},
		{"\U000e0001", `\U000e0001`, `"\U000e0001"`},
	} {
		if got := Escape(tc.in); got != tc.escaped {
			t.Errorf("Escape(%q) = %s, want %s", tc.in, got, tc.escaped)
		}
		if got := Quote(tc.in); got != tc.quoted {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.quoted)
		}
	}
}

func BenchmarkEscapePlain(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Escape("/tmp/crashsim-fixtures/sqlite/test.db-journal")
	}
}

// TestExcerpt: a value is quoted whole up to max bytes, and cut at a rune
// with its length said beyond.
func TestExcerpt(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, `"short"`},
		{"a.b.c.d.e.f", 5, `"a.b.c"... (11 bytes)`},
		{"ééé", 3, `"é"... (6 bytes)`},
		{"x\n\x1bq", 10, `"x\n\x1bq"`},
	} {
		if got := Excerpt(tc.s, tc.max); got != tc.want {
			t.Errorf("Excerpt(%q, %d) = %s, want %s", tc.s, tc.max, got, tc.want)
		}
	}
}
