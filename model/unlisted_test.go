package model

import (
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestUnlisted: Unlisted is what a summary counts and does not list, so
// that with the listed states it makes up every state Crash lists; Crash's
// own answer, and a summary of a file with too few writes for any subset
// to be left out, have none.
func TestUnlisted(t *testing.T) {
	for _, tc := range []struct {
		k    int
		some bool
	}{{2, false}, {12, true}} {
		m := replayText(t, writesTrace(tc.k), parser.Options{})
		full := m.Crash("/w/f", 1<<16)
		sum := m.crashSummary("/w/f", 1<<16, true)
		if n := full.Unlisted(); n != 0 {
			t.Errorf("%d writes: Crash leaves %d states unlisted", tc.k, n)
		}
		if got := int64(len(sum.States)) + sum.Unlisted(); got != int64(len(full.States)) {
			t.Errorf("%d writes: summary lists %d and leaves %d unlisted, Crash lists %d", tc.k, len(sum.States), sum.Unlisted(), len(full.States))
		}
		if (sum.Unlisted() > 0) != tc.some {
			t.Errorf("%d writes: %d unlisted", tc.k, sum.Unlisted())
		}
	}
}
