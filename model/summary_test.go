package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// appliedOps is the set of a file's pending ops a state of the posix
// enumeration put on disk whole, as a mask, and false for a state that
// is not such a set (torn, a size without its data, another inode's).
func appliedOps(s PathState, k int) (int, bool) {
	if s.Inode == 0 {
		return 0, false // the name missing
	}
	switch s.Kind {
	case StatePrefix:
		return 1<<s.J - 1, true
	case StateOmit:
		return (1<<k - 1) &^ (1 << s.J), true
	case StateSubset:
		return int(s.Mask), true
	}
	return 0, false
}

// writesTrace is a file created, synced empty, then written n times at
// growing offsets, none synced.
func writesTrace(n int) string {
	var b strings.Builder
	b.WriteString("openat(AT_FDCWD</w>, \"/w/f\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</w/f>\nfsync(3</w/f>) = 0\n")
	for i := range n {
		fmt.Fprintf(&b, "pwrite64(3</w/f>, \"abcd\", 4, %d) = 4\n", 4*i)
	}
	return b.String()
}

// TestSubsetsListedOnce: under posix every subset of a file's pending
// writes is a state, and each one once. The subset of every write but
// one was listed twice, as "all but line N" and as "subset 0x.. of k",
// and counted twice (git's index.lock: 88 states where there are 77).
func TestSubsetsListedOnce(t *testing.T) {
	for k := 1; k <= 6; k++ {
		m := replayText(t, writesTrace(k), parser.Options{})
		po := m.Crash("/w/f", 1<<16)
		seen := map[int]string{}
		sets := 0
		for _, s := range po.States {
			mask, ok := appliedOps(s, k)
			if !ok {
				continue
			}
			if was, dup := seen[mask]; dup {
				t.Errorf("%d writes: ops %#x listed twice, as %q and %q", k, mask, was, s.Persisted)
			}
			seen[mask] = s.Persisted
			sets++
		}
		if sets != 1<<k {
			t.Errorf("%d writes: %d subsets of the writes listed, want %d", k, sets, 1<<k)
		}
	}
}
