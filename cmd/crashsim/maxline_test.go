package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxLineFlag: --max-line bounds a trace line for every command that
// reads traces; a longer line is an input error at file:line:col.
func TestMaxLineFlag(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "long.strace")
	data := strings.Repeat("a", 2<<20)
	if err := os.WriteFile(trace, []byte("close(3) = 0\nwrite(4, \""+data+"\", 2097152) = 2097152\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"events", "--format", "count"}, {"check"}, {"states"}, {"stats"}} {
		args := append(append([]string{}, cmd...), "--max-line", "1M", trace)
		_, errs, code := runCLI(t, args...)
		if code != exitInput || !strings.Contains(errs, trace+":2:1: line longer than 1 MiB without a newline") {
			t.Errorf("%s --max-line 1M: exit %d, stderr %q; want exit 3 and the line", cmd[0], code, errs)
		}
	}
	out, errs, code := runCLI(t, "events", "--format", "count", "--max-line", "4MiB", trace)
	if code != 0 || out != "2 events\n" {
		t.Errorf("--max-line 4MiB: exit %d, %q %q", code, out, errs)
	}
	for _, bad := range []string{"0", "-5", "12X", "lots"} {
		if _, _, code := runCLI(t, "events", "--max-line", bad, trace); code != exitUsage {
			t.Errorf("--max-line %s: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// TestRecordingShapesCLI: how the CLI treats a -c summary alone, and a
// last line cut after strace -p was interrupted.
func TestRecordingShapesCLI(t *testing.T) {
	dir := t.TempDir()
	summary := filepath.Join(dir, "c.strace")
	os.WriteFile(summary, []byte("% time     seconds  usecs/call     calls    errors syscall\n------ ----------- ----------- --------- --------- ----------------\n100.00    0.000010          10         1           close\n"), 0o644)
	_, errs, code := runCLI(t, "check", summary)
	if code != exitInput || !strings.Contains(errs, "this is an strace -c summary: it counts calls but records none; record without -c") {
		t.Errorf("-c summary: exit %d, %q", code, errs)
	}
	cut := filepath.Join(dir, "p.strace")
	os.WriteFile(cut, []byte("close(3) = 0\npoll([{fd=6, events=POLLIN}], 1, 3600000\n"), 0o644)
	out, errs, code := runCLI(t, "events", "--format", "count", cut)
	if code != 0 || out != "1 events\n" || !strings.Contains(errs, cut+":2:") || !strings.Contains(errs, "warning: the last line is cut short") {
		t.Errorf("cut last line: exit %d, %q, %q", code, out, errs)
	}
}
