package source

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMark(t *testing.T) {
	fields := []string{"os.rename", "/src/app/save.py", "9", "save", "/data/config.txt", "/data/config.txt.tmp"}
	path := MarkPrefix + hex.EncodeToString([]byte(strings.Join(fields, "\x00")))
	got, err := ParseMark(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Mark{Op: "os.rename", Loc: Location{File: "/src/app/save.py", Line: 9, Function: "save"}, Target: "/data/config.txt", From: "/data/config.txt.tmp", FD: -1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseMark (-want +got):\n%s", diff)
	}
	// A write note's last field is its fd.
	note := []string{"write", "/src/app/save.py", "7", "save", "/data/config.txt.tmp", "3"}
	got, err = ParseMark(MarkPrefix + hex.EncodeToString([]byte(strings.Join(note, "\x00"))))
	if err != nil {
		t.Fatal(err)
	}
	want = Mark{Op: "write", Loc: Location{File: "/src/app/save.py", Line: 7, Function: "save"}, Target: "/data/config.txt.tmp", FD: 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseMark of a write note (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"/proc/self/other",
		MarkPrefix + "zz",
		MarkPrefix + hex.EncodeToString([]byte("open\x00f.py\x001")),
		MarkPrefix + hex.EncodeToString([]byte("open\x00f.py\x00zero\x00f\x00/x\x00")),
		MarkPrefix + hex.EncodeToString([]byte("write\x00f.py\x003\x00f\x00/x\x00")),
		MarkPrefix + hex.EncodeToString([]byte("write\x00f.py\x003\x00f\x00/x\x00-1")),
	} {
		if _, err := ParseMark(bad); err == nil {
			t.Errorf("ParseMark(%q) = nil error", bad)
		}
	}
}

// TestMarkNames: a mark names the next call only if its operation makes
// that call; a write note, the writes of its fd; an operation of another
// shim's version, any call.
func TestMarkNames(t *testing.T) {
	for _, tc := range []struct {
		op, call string
		want     bool
	}{
		{"os.fsync", "fsync", true},
		{"os.fsync", "fdatasync", false},
		{"os.fdatasync", "fdatasync", true},
		{"os.rename", "renameat2", true},
		{"os.rename", "openat", false},
		{"open", "openat", true},
		{"open", "close", false},
		{"os.write", "write", true},
		{"os.write", "pwrite64", false},
		{"os.truncate", "ftruncate", true},
		{"write", "write", true},
		{"write", "pwritev2", true},
		{"write", "fsync", false},
		{"os.future_call", "whatever", true},
	} {
		if got := (Mark{Op: tc.op}).Names(tc.call); got != tc.want {
			t.Errorf("Mark{Op: %q}.Names(%q) = %v, want %v", tc.op, tc.call, got, tc.want)
		}
	}
}

func TestShimIsEmbedded(t *testing.T) {
	if !strings.Contains(string(PythonShim), "sys.addaudithook") || !strings.Contains(string(PythonShim), MarkPrefix) {
		t.Error("the embedded shim does not install the audit hook with MarkPrefix")
	}
}

func TestIsPython(t *testing.T) {
	for cmd, want := range map[string]bool{"python3": true, "/usr/bin/python3.11": true, "python": true, "pythonista": false, "./save.py": false, "sh": false} {
		if got := IsPython(cmd); got != want {
			t.Errorf("IsPython(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestWithShim(t *testing.T) {
	for _, tc := range []struct{ env, want []string }{
		{[]string{"HOME=/h"}, []string{"HOME=/h", "PYTHONPATH=/shim"}},
		{[]string{"PYTHONPATH=/a:/b", "HOME=/h"}, []string{"HOME=/h", "PYTHONPATH=/shim:/a:/b"}},
		{[]string{"PYTHONPATH="}, []string{"PYTHONPATH=/shim"}},
	} {
		if got := WithShim(tc.env, "/shim"); !slices.Equal(got, tc.want) {
			t.Errorf("WithShim(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
}
