package parser

import (
	"testing"
	"time"
)

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

// TestParseDuration: parseDuration reads six digits after the dot (its
// shortcut) as it reads any other number of them.
func TestParseDuration(t *testing.T) {
	// slow is parseDuration without the shortcut.
	slow := func(b []byte) (time.Duration, bool) {
		var secs, ns int64
		dot := 0
		for dot < len(b) && b[dot]-'0' <= 9 {
			secs = secs*10 + int64(b[dot]-'0')
			dot++
		}
		if dot == 0 || dot >= len(b)-1 || b[dot] != '.' {
			return 0, false
		}
		frac := b[dot+1:]
		for k, c := range frac {
			if c-'0' > 9 {
				return 0, false
			}
			if k < 9 {
				ns = ns*10 + int64(c-'0')
			}
		}
		if n := len(frac); n < 9 {
			ns *= pow10[9-n]
		}
		return time.Duration(secs)*time.Second + time.Duration(ns), true
	}
	for _, s := range []string{
		"0.000057", "12.345678", "0.999999", "0.000000", "123456789.000001",
		"0.00005a", "0.a00057", "0.0000/7", "0.00005:", "0.00005 ", ".000057", "0.0000570", "0.00005", "1.123456789",
	} {
		gd, gok := parseDuration([]byte(s))
		wd, wok := slow([]byte(s))
		if gd != wd || gok != wok {
			t.Errorf("%q: parseDuration %v, %v; want %v, %v", s, gd, gok, wd, wok)
		}
	}
}

// TestEpochSecondsAndSixDigits: epochSeconds and sixDigits read what
// timestamp's runs of digits read, to the same index and value, or
// decline.
func TestEpochSecondsAndSixDigits(t *testing.T) {
	for _, s := range []string{
		"1795000000.000002 ", "1000000000.5", "9999999999.", "0000000000.1", "1795000000.",
		"179500000.000002", "17950000000.000002", "1795000000:00", "179500000a.0", "1795a00000.0",
		"17950000/0.0", "1795000000", "12:34:56.123456", "1795000000 .1",
	} {
		b := []byte(s)
		if k, v, ok := epochSeconds(b, 0); ok {
			j, u := digitRun(b, 0)
			if k != j || v != int64(u) || b[j] != '.' {
				t.Errorf("%q: epochSeconds reads to %d, %d; the run to %d, %d", s, k, v, j, u)
			}
		} else if j, _ := digitRun(b, 0); j == 10 && len(b) > 10 && b[10] == '.' {
			t.Errorf("%q: epochSeconds declines ten digits and a '.'", s)
		}
	}
	for _, s := range []string{
		"000002", "000002 ", "123456>", "999999", "12345", "1234567", "12345a", "1234567 ",
		"/23456", ":23456", "000002.", "0000020",
	} {
		b := []byte(s)
		j, u := digitRun(b, 0)
		if k, v, ok := sixDigits(b, 0); ok {
			if k != j || v != int64(u) || j != 6 {
				t.Errorf("%q: sixDigits reads to %d, %d; the run to %d, %d", s, k, v, j, u)
			}
		} else if j == 6 {
			t.Errorf("%q: sixDigits declines a run of six digits", s)
		}
	}
}
