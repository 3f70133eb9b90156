package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"60":    time.Minute,
		"2.5":   2500 * time.Millisecond,
		"0":     0,
		" 7 ":   7 * time.Second,
		"90s":   90 * time.Second,
		"1m30s": 90 * time.Second,
		"500ms": 500 * time.Millisecond,
		"0.3":   300 * time.Millisecond,
		"1e1":   10 * time.Second,
	}
	for in, want := range good {
		got, err := parseDuration(in)
		if err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"-5":    "is negative",
		"-1s":   "is negative",
		"soon":  "is not a time",
		"":      "is not a time",
		"0x10":  "is not a time",
		"Inf":   "is not a time",
		"NaN":   "is not a time",
		"1_000": "is not a time",
		"1e300": "too long",
		"5 s":   "is not a time",
	}
	for in, want := range bad {
		if got, err := parseDuration(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseDuration(%q) = %v, %v; want an error saying %q", in, got, err, want)
		}
	}
}
