package check

import (
	"testing"
)

// TestSummaryCounts: findings are counted by severity in one place, and
// a threshold is met by the counts.
func TestSummaryCounts(t *testing.T) {
	var s Summary
	for _, sev := range []Severity{Info, Warning, Warning, Error, Never, 0} {
		s.Count(sev)
	}
	if s.Errors != 1 || s.Warnings != 2 || s.Infos != 1 {
		t.Errorf("counts %+v, want 1 error, 2 warnings, 1 info", s)
	}
	s.Add(Summary{Events: 3, Files: 2, Errors: 1, Infos: 5})
	if s != (Summary{Events: 3, Files: 2, Errors: 2, Warnings: 2, Infos: 6}) {
		t.Errorf("after Add: %+v", s)
	}
	for _, c := range []struct {
		s    Summary
		t    Severity
		want bool
	}{
		{Summary{}, Info, false},
		{Summary{Infos: 1}, Info, true},
		{Summary{Infos: 1}, Warning, false},
		{Summary{Warnings: 1}, Warning, true},
		{Summary{Warnings: 1}, Error, false},
		{Summary{Errors: 1}, Error, true},
		{Summary{Errors: 1, Events: 9}, Never, false},
	} {
		if got := c.s.AtLeast(c.t); got != c.want {
			t.Errorf("%+v.AtLeast(%s) = %v", c.s, c.t, got)
		}
	}
}

// TestResultAdd: findings added to a result are counted, in order, and
// Findings, List and At see them.
func TestResultAdd(t *testing.T) {
	warn, _ := Lookup(CrossDirRename)
	errRule, _ := Lookup(DataNotSynced)
	res := &Result{}
	a, b, c := &Finding{Rule: warn, Line: 1}, &Finding{Rule: errRule, Line: 2}, &Finding{Rule: errRule.lowered(Info), Line: 3}
	res.Add(a, b)
	res.Add(c)
	if res.Summary.Errors != 1 || res.Summary.Warnings != 1 || res.Summary.Infos != 1 || !res.AtLeast(Error) {
		t.Errorf("summary %+v", res.Summary)
	}
	var lines []int
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, f.Line)
		if f.Line == 2 {
			break // an iteration stopped early stops
		}
	}
	if len(lines) != 2 || lines[0] != 1 {
		t.Errorf("Findings gave lines %v, want 1 2 and a stop", lines)
	}
	list, err := res.List()
	if err != nil || len(list) != 3 || list[2] != c {
		t.Errorf("List: %v, %v", list, err)
	}
	other := &Result{Warnings: []BlindWarning{{ID: BlindRawArgs}}, Notes: []Note{{ID: NoteVolatile}}}
	other.Summary.Events = 7
	other.Add(&Finding{Rule: warn, Line: 4})
	res.Join(other)
	if res.Len() != 4 || res.Summary.Warnings != 2 || res.Summary.Events != 7 || len(res.Warnings) != 1 || len(res.Notes) != 1 || other.Len() != 0 {
		t.Errorf("after Join: %d findings, %+v, %d warnings, %d notes; the other keeps %d", res.Len(), res.Summary, len(res.Warnings), len(res.Notes), other.Len())
	}
	if f, err := res.At(3); err != nil || f.Line != 4 {
		t.Errorf("At(3) = %v, %v", f, err)
	}
	if _, err := res.At(4); err == nil {
		t.Error("At(4) of 4 findings: no error")
	}
}
