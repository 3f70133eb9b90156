package crashsim

import (
	"errors"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestReplay: the visitor sees the point before the first event, then
// every event in order with the point after it; stopping says the line
// the replay stopped at; without a visitor the trace is read only for its
// blind spots, which are those check finds.
func TestReplay(t *testing.T) {
	dir := "fixtures/traces/python-noflush"
	in := Inputs{Traces: []string{dir + "/f-ttt-y-xx.strace"}, Listing: dir + "/initial.list"}
	rp := Replay{Inputs: in, Persistence: model.Posix}
	var lines []int
	points := 0
	done, err := rp.Run(func(ev *parser.Event, pt model.Point, ok bool) bool {
		switch {
		case ev == nil && len(lines) > 0:
			t.Error("the start point after an event")
		case ev != nil:
			lines = append(lines, ev.Pos.Line)
		}
		if ok {
			points++
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if done.Events != 408 || len(lines) != 408 || done.Next != 0 || points < 5 || done.LastLine < lines[len(lines)-1] {
		t.Errorf("replayed %d events (%d visited), %d points, next %d, last line %d", done.Events, len(lines), points, done.Next, done.LastLine)
	}

	// Stop at the third crash point: Next is the line of the event after.
	points = 0
	var after int
	done, err = rp.Run(func(ev *parser.Event, pt model.Point, ok bool) bool {
		if ok && ev != nil {
			points++
		}
		if points == 3 && after == 0 {
			for i, l := range lines {
				if l == ev.Pos.Line {
					after = lines[i+1]
				}
			}
			return false
		}
		return true
	})
	if err != nil || done.Next != after || after == 0 {
		t.Errorf("stopped: next %d, want %d (%v)", done.Next, after, err)
	}

	blind, err := rp.Run(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := Check{Inputs: in}
	res, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	if blind.Events != res.Summary.Events || len(blind.Warnings) != len(res.Warnings) || len(blind.Notes) != len(res.Notes) {
		t.Errorf("blind spots: replay %d events, %v %v; check %d events, %v %v", blind.Events, blind.Warnings, blind.Notes, res.Summary.Events, res.Warnings, res.Notes)
	}

	// A scope that leaves every path out leaves no crash point.
	rp.Scope = Scope{Ignore: []string{"/tmp/**"}}
	points = 0
	if _, err := rp.Run(func(ev *parser.Event, pt model.Point, ok bool) bool {
		if ev != nil && ok {
			points++
		}
		return true
	}); err != nil || points != 0 {
		t.Errorf("with every path ignored: %d points (%v)", points, err)
	}
	rp.Scope, rp.AcceptBlind = Scope{}, []string{"blind-nothing"}
	var ue *UsageError
	if _, err := rp.Run(nil); !errors.As(err, &ue) {
		t.Errorf("an unknown blind spot: %v, want a usage error", err)
	}
}

// TestParseAtEscaped: --at's FILE prints escaped in its errors, as the
// timeline prints the files it names.
func TestParseAtEscaped(t *testing.T) {
	_, err := ParseAt("t\x1b[31m.1:x")
	if err == nil || !strings.Contains(err.Error(), `--at t\x1b[31m.1:x: "x" is not a line number`) {
		t.Errorf("ParseAt: %v", err)
	}
	if got := (At{File: "t\n.1", Line: 3}).String(); got != `t\n.1:3` {
		t.Errorf("At.String = %q", got)
	}
}
