package parser

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnnotationCache: an annotation read after others (lineParser.annos
// remembers the last plain paths) gives what it gives read alone, for
// paths that are the same, longer, shorter, escaped, nested, deleted, or
// the same bytes in a value that is not an annotation.
func TestAnnotationCache(t *testing.T) {
	annos := []string{
		`3</a/b>`, `3</a/bc>`, `3</a/b>(deleted)`, `3</a/b (deleted)>`, `3</a>`,
		`3</a/b<char 1:3>>`, `3</a/\x3e>`, `3</a/b->`, `AT_FDCWD</a/b>`, `3</a/b` + "\\" + `>`,
		`4<TCP:[1.2.3.4:5->6.7.8.9:10]>`, `3<>`, `3</a/>>`,
	}
	line := func(a string) string {
		return fmt.Sprintf(`100 1795000000.000100 newfstatat(%s, "", {st_mode=S_IFREG|0644, st_size=1, ...}, AT_EMPTY_PATH) = 0</a/b>`, a)
	}
	parse := func(lp *lineParser, text string) (Event, *Error) {
		var ev Event
		lp.text, lp.ev, lp.splitAt = []byte(text), &ev, len(text)+1
		_, _, err := lp.parse()
		return ev, err
	}
	for _, first := range annos {
		for _, second := range annos {
			lp := lineParser{file: "t", line: 1, names: map[string]string{}}
			if _, err := parse(&lp, line(first)); err != nil {
				continue
			}
			got, gotErr := parse(&lp, line(second))
			want, wantErr := parse(&lineParser{file: "t", line: 1, names: map[string]string{}}, line(second))
			if diff := cmp.Diff(fmt.Sprint(wantErr), fmt.Sprint(gotErr)); diff != "" {
				t.Errorf("%s after %s: error (-alone +after):\n%s", second, first, diff)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s after %s (-alone +after):\n%s", second, first, diff)
			}
		}
	}
}
