package explore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/explore"
)

// TestExploreCheckKnowsSizes: the check explore runs to say which states
// its findings predicted gets the snapshot's file sizes, as explore's own
// models do and as crashsim check gets a listing's. A file from before
// the run, rewritten in place by two writes with no stat to show its
// size, is overwrite-in-place's under check with a listing; without the
// sizes explore's check took the writes for appends, and the torn state
// the checker rejects was predicted by nothing.
func TestExploreCheckKnowsSizes(t *testing.T) {
	trace, root, initial := dataTrace(t,
		"400 1796660000.000002 pwrite64(3<DATA>, \"BBBBBBBBBB\", 10, 0) = 10\n"+
			"400 1796660000.000003 pwrite64(3<DATA>, \"BBBBBBBBB\", 9, 10) = 9\n"+
			"400 1796660000.000004 fsync(3<DATA>) = 0\n",
		"AAAAAAAAAAAAAAAAAAA\n", "BBBBBBBBBBBBBBBBBBB\n")
	e := crashsim.Explore{Inputs: crashsim.Inputs{Traces: []string{trace}}, Options: explore.Options{
		Root: root, Initial: initial, Checker: `grep -qx "AAAAAAAAAAAAAAAAAAA\|BBBBBBBBBBBBBBBBBBB" data`, Timeout: 20 * time.Second, WorkDir: t.TempDir()}}
	out, res, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	predicted := false
	for _, f := range res.Findings {
		predicted = predicted || strings.Contains(f.Message, "torn") && strings.HasSuffix(f.Message, "; predicted by overwrite-in-place")
	}
	if !predicted {
		for _, f := range res.Findings {
			t.Log(f.Message)
		}
		t.Error("no rejected torn state predicted by overwrite-in-place")
	}
}
