package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
	"github.com/google/go-cmp/cmp"
)

func blindSample() *check.Result {
	res := sample()
	res.Warnings = []check.BlindWarning{
		{ID: check.BlindUnfollowedChildren, Message: "vfork returned 1 child", Trace: "t.strace", Line: 3, Fix: "record with strace -f"},
		{ID: check.BlindRawArgs, Message: "rename has numbers", Trace: "t.strace", Line: 4, Fix: "record without -e raw=", Accepted: true},
	}
	res.Notes = []check.Note{{ID: check.NoteVolatile, Message: "1 path below /run (tmpfs) left out of scope", Trace: "t.strace", Line: 2}}
	return res
}

func TestJSONBlindSpots(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, blindSample(), Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary struct {
			Warnings        []map[string]any `json:"warnings"`
			Notes           []map[string]any `json:"notes"`
			WarningFindings *int             `json:"warningFindings"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"id": "blind-unfollowed-children", "message": "vfork returned 1 child", "trace": "t.strace", "line": 3.0, "fix": "record with strace -f"},
		{"id": "blind-raw-args", "message": "rename has numbers", "trace": "t.strace", "line": 4.0, "fix": "record without -e raw=", "accepted": true},
	}
	if diff := cmp.Diff(want, doc.Summary.Warnings); diff != "" {
		t.Errorf("summary.warnings (-want +got):\n%s", diff)
	}
	if len(doc.Summary.Notes) != 1 || doc.Summary.Notes[0]["id"] != "volatile-filesystem" {
		t.Errorf("summary.notes: %v", doc.Summary.Notes)
	}
	if doc.Summary.WarningFindings == nil {
		t.Error("summary has no warningFindings count")
	}

	// None is an empty array, never null.
	b.Reset()
	JSON(&b, &check.Result{}, Options{})
	if !strings.Contains(b.String(), `"warnings": []`) || !strings.Contains(b.String(), `"notes": []`) {
		t.Errorf("no blind spots: %s", b.String())
	}
}

func TestSARIFBlindSpots(t *testing.T) {
	var b bytes.Buffer
	if err := SARIF(&b, blindSample(), Options{}); err != nil {
		t.Fatal(err)
	}
	var log wire.SARIFLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	inv := log.Runs[0].Invocations
	if len(inv) != 1 {
		t.Fatalf("invocations: %+v", inv)
	}
	var got []string
	for _, n := range inv[0].Notifications {
		got = append(got, n.Descriptor.ID+" "+n.Level)
		if len(n.Locations) != 1 || n.Locations[0].PhysicalLocation.Region.StartLine < 2 {
			t.Errorf("%s: locations %+v", n.Descriptor.ID, n.Locations)
		}
	}
	want := []string{"blind-unfollowed-children warning", "blind-raw-args note", "volatile-filesystem note"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	if msg := inv[0].Notifications[0].Message.Text; !strings.Contains(msg, "Fix: record with strace -f.") {
		t.Errorf("notification message %q has no fix", msg)
	}
}

func TestTextBlindSpots(t *testing.T) {
	var out, errs bytes.Buffer
	res := blindSample()
	if err := Text(&out, res, Options{Models: []string{"posix"}}); err != nil {
		t.Fatal(err)
	}
	BlindSpots(&errs, res.Warnings)
	if !strings.Contains(out.String(), "note: 1 path below /run (tmpfs) left out of scope\ncrashsim: ") {
		t.Errorf("text: the note is not before the summary:\n%s", out.String())
	}
	if !strings.Contains(out.String(), ", 2 blind spots (1 accepted); 1 file in scope (9 events") {
		t.Errorf("text summary does not count the blind spots:\n%s", out.String())
	}
	want := "t.strace:3: warning: blind-unfollowed-children: vfork returned 1 child\n" +
		"    fix: record with strace -f; or accept it with --accept-blind blind-unfollowed-children\n" +
		"t.strace:4: note: accepted blind spot blind-raw-args: rename has numbers\n"
	if diff := cmp.Diff(want, errs.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

// A blind spot's trace name prints escaped, as a finding's does: a trace
// named with a newline and a terminal escape cannot forge a line of
// crashsim's own or change the terminal.
func TestBlindSpotsTraceNameEscaped(t *testing.T) {
	var errs bytes.Buffer
	evil := "t\nx.strace:9: error: forged\x1b[31m.strace"
	BlindSpots(&errs, []check.BlindWarning{
		{ID: check.BlindRawArgs, Message: "m", Trace: evil, Line: 3, Fix: "f"},
		{ID: check.BlindRawArgs, Message: "m", Trace: evil, Accepted: true},
	})
	want := `t\nx.strace:9: error: forged\x1b[31m.strace:3: warning: blind-raw-args: m` + "\n" +
		"    fix: f; or accept it with --accept-blind blind-raw-args\n" +
		`t\nx.strace:9: error: forged\x1b[31m.strace: note: accepted blind spot blind-raw-args: m` + "\n"
	if diff := cmp.Diff(want, errs.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}
