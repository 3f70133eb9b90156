package parser

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// TestInternBoundedByBytes floods the intern table with distinct paths,
// as a trace touching 100k files does, and checks that what it holds stays
// within its byte budget, that long strings are left out, and that a
// string that keeps coming back is still shared after the flood.
func TestInternBoundedByBytes(t *testing.T) {
	l := lineParser{names: map[string]string{}}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	peak := 0
	for i := range 100_000 {
		p := fmt.Sprintf("/home/user/project/build/obj/dir%05d/file%05d.o", i/100, i)
		if got := l.intern([]byte(p)); got != p {
			t.Fatalf("intern(%q) = %q", p, got)
		}
		l.intern([]byte("openat"))
		if i%997 == 0 {
			held := 0
			for k := range l.names {
				held += len(k) + internEntryCost
			}
			if held != l.internBytes {
				t.Fatalf("after %d paths the table holds %d bytes, counted %d", i+1, held, l.internBytes)
			}
		}
		peak = max(peak, l.internBytes)
	}
	if peak > internBudget {
		t.Errorf("the table reached %d bytes, budget %d", peak, internBudget)
	}
	if peak < internBudget/2 {
		t.Errorf("the table never held more than %d bytes of a %d budget: is it dropped too early?", peak, internBudget)
	}
	a, b := l.intern([]byte("openat")), l.intern([]byte("openat"))
	if !same(a, b) {
		t.Error("a repeated syscall name is not shared after the flood")
	}
	long := "/" + strings.Repeat("x", maxInternLen)
	l.intern([]byte(long))
	if _, ok := l.names[long]; ok {
		t.Errorf("a %d-byte string was interned", len(long))
	}
}

// TestInternCacheGivesEqualStrings interns strings of every length from 0
// to past maxInternLen, many sharing their first and last bytes (so that
// they fight for the front cache's slots), in an order that comes back to
// each: every answer must equal what was asked, and a repeat must be
// shared.
func TestInternCacheGivesEqualStrings(t *testing.T) {
	l := lineParser{names: map[string]string{}}
	var keys []string
	for n := 0; n <= maxInternLen+2; n++ {
		for v := range 3 {
			b := []byte(strings.Repeat("a", n))
			if n > 2 {
				b[n/2] = byte('0' + v)
			}
			keys = append(keys, string(b))
		}
	}
	for round := range 3 {
		for i := range keys {
			k := keys[(i*7+round)%len(keys)]
			got := l.intern([]byte(k))
			if got != k {
				t.Fatalf("intern(%q) = %q", k, got)
			}
			if again := l.intern([]byte(k)); len(k) > 0 && len(k) <= maxInternLen && unsafe.StringData(again) != unsafe.StringData(got) {
				t.Fatalf("intern(%q) twice in a row gives two copies", k)
			}
		}
	}
}
