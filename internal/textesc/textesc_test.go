package textesc

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

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

// needsEscapeBytes is needsEscape one byte at a time, as it was before
// it read eight at once: the fuzz test holds the two to one answer.
func needsEscapeBytes(s string, quoted bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == '\\' || c >= utf8.RuneSelf || (quoted && c == '"') {
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRuneInString(s[i:])
				if r != utf8.RuneError && unicode.IsPrint(r) {
					i += n - 1
					continue
				}
			}
			return true
		}
	}
	return false
}

func FuzzNeedsEscape(f *testing.F) {
	for _, s := range []string{
		"", "plain", "/srv/bench/d0/f12345.json", "/srv/bench/d0/f12345.json\x7f", "\x1b/srv/bench/d0/f12345.json",
		"/srv/bench/d0\\f12345.json", "/srv/bench/\"d0\"/f12345.json", "/srv/café/d0/f12345.json",
		"/srv/bench/d0/f1234\xe2\x80\xae5.json", "/srv/bench/d0/f1234\xff5.json", "0123456\xc3\xa9abcdefgh",
		"01234567\u202eabcdefgh\n",
	} {
		f.Add(s)
	}
	// Each byte or rune that matters at every place of two words.
	const plain = "/srv/bench/d0/f12345.json"
	for _, c := range []string{"\x00", "\x1f", "\x7f", "\\", "\"", "\xff", "\u202e", "é"} {
		for i := 0; i < 16; i++ {
			f.Add(plain[:i] + c + plain[i:])
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, quoted := range []bool{false, true} {
			if got, want := needsEscape(s, quoted), needsEscapeBytes(s, quoted); got != want {
				t.Errorf("needsEscape(%q, %v) = %v, want %v", s, quoted, got, want)
			}
		}
	})
}
