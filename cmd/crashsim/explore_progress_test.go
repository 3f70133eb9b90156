package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/explore"
)

// explore's progress: off a terminal (--progress) a line at a time, once
// the run has taken longer than progressEvery, then every progressEvery;
// on a terminal one line redrawn in place.
func TestExploreProgress(t *testing.T) {
	old := progressEvery
	defer func() { progressEvery = old }()

	var b bytes.Buffer
	p := &progressBar{w: &b}
	p.update(explore.Progress{Phase: "replay", Points: 3, Elapsed: time.Second})
	if b.Len() != 0 {
		t.Errorf("a run shorter than %v printed %q", progressEvery, b.String())
	}
	progressEvery = 0
	p.update(explore.Progress{Phase: "replay", Points: 64, Candidates: 900, Distinct: 40, Elapsed: 6 * time.Second})
	p.update(explore.Progress{Phase: "check", Done: 10, Total: 40, Failed: 1, Elapsed: 8 * time.Second})
	p.clear()
	want := "crashsim: explore: replaying: 64 crash points, 900 states, 40 distinct (6s)\n" +
		"crashsim: explore: checking: 10 of 40 states, 1 rejected, 1/s (8s)\n"
	if b.String() != want {
		t.Errorf("progress lines:\n%q\nwant\n%q", b.String(), want)
	}

	b.Reset()
	live := &progressBar{w: &b, live: true}
	live.update(explore.Progress{Phase: "check", Done: 1, Total: 2, Elapsed: time.Second})
	live.clear()
	if got := b.String(); !strings.HasPrefix(got, "\r\x1b[Kcrashsim: explore: checking: 1 of 2 states") || !strings.HasSuffix(got, "\r\x1b[K") || strings.Contains(got, "\n") {
		t.Errorf("on a terminal: %q", got)
	}
}
