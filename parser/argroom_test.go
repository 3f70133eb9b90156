package parser

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestArgsReadInPlace: the arguments read in place (argRoom) belong to
// their event alone: the lines read after it, by the same parser, into
// plain slabs and into a recycled event's memory (another event's, or
// the same event's as a line read again does), leave them as they were,
// and an append to them does not write where the next line's go.
func TestArgsReadInPlace(t *testing.T) {
	lines := []string{
		`100 1795000000.000100 openat(AT_FDCWD</a>, "/a/b", O_RDONLY|O_CLOEXEC) = 3</a/b>`,
		`100 1795000000.000200 newfstatat(3</a/b>, "", {st_mode=S_IFREG|0644, st_size=1, ...}, AT_EMPTY_PATH) = 0`,
		`100 1795000000.000300 pwrite64(3</a/b>, "xyz", 3, 42) = 3`,
		`100 1795000000.000400 close(3</a/b>) = 0`,
	}
	for _, recycled := range []bool{false, true} {
		var p eventPool
		lp := lineParser{file: "t", line: 1, names: map[string]string{}}
		var mems []*eventMem
		parse := func(text string, again int) *Event {
			ev := new(Event)
			lp.mem = nil
			if recycled && again < 0 {
				ev, lp.mem = p.get()
				mems = append(mems, lp.mem)
			} else if recycled {
				lp.mem = mems[again]
			}
			lp.text, lp.ev, lp.splitAt = []byte(text), ev, len(text)+1
			if _, _, err := lp.parse(); err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			return ev
		}
		var evs []*Event
		var want [][]Value
		for _, l := range lines {
			ev := parse(l, -1)
			if cap(ev.Args) != len(ev.Args) {
				t.Errorf("recycled %v: %s: Args has room past its %d values (cap %d)", recycled, l, len(ev.Args), cap(ev.Args))
			}
			evs = append(evs, ev)
			want = append(want, detachValues(ev.Args))
		}
		// Appending to one event's Args must not reach another's.
		for _, ev := range evs {
			_ = append(ev.Args, Value{Kind: ValOther, Text: "appended"})
		}
		for i, l := range lines {
			parse(l, -1)
			parse(lines[(i+1)%len(lines)], i)
		}
		for i, ev := range evs {
			if diff := cmp.Diff(want[i], ev.Args); diff != "" {
				t.Errorf("recycled %v: %s: Args changed by later lines (-before +after):\n%s", recycled, lines[i], diff)
			}
		}
		if got := fmt.Sprint(len(evs[2].Args)); got != "4" {
			t.Errorf("recycled %v: pwrite64 has %s arguments, want 4", recycled, got)
		}
	}
}
