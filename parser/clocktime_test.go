package parser

import "testing"

// TestClockTime: clockTime reads what timestamp's loop of digit runs
// reads, to the same index and the same seconds, or declines.
func TestClockTime(t *testing.T) {
	// loop is timestamp's reading of "D+(:D+)*" at b[0].
	loop := func(b []byte) (int, int64, bool) {
		i, secs, clock := 0, int64(0), false
		for {
			j, u := digitRun(b, i)
			if j == i {
				return 0, 0, false
			}
			secs = secs*60 + int64(u)
			i = j
			if i < len(b) && b[i] == ':' {
				clock = true
				i++
				continue
			}
			return i, secs, clock
		}
	}
	for _, s := range []string{
		"12:34:56", "12:34:56.123456 ", "00:00:00 ", "23:59:59.999999", "99:99:99 ",
		"12:34:567", "12:34:56:78", "1:23:45", "12:3:45", "12:34:5", "12:34:5 ", "123:45:67",
		"12:34:", "12:34", "12-34-56", "1a:34:56", "12:34:56a", "12:34:56:", "1795000000.000002",
	} {
		b := []byte(s)
		k, secs, ok := clockTime(b, 0)
		if !ok {
			continue
		}
		wk, wsecs, clock := loop(b)
		if !clock || k != wk || secs != wsecs {
			t.Errorf("%q: clockTime reads to %d, %d s; the loop to %d, %d s (clock %v)", s, k, secs, wk, wsecs, clock)
		}
	}
	for _, s := range []string{"12:34:56", "12:34:56.5", "07:08:09 "} {
		if _, _, ok := clockTime([]byte(s), 0); !ok {
			t.Errorf("%q: clockTime declines a plain clock time", s)
		}
	}
}
