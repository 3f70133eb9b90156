package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/phases"
)

// CRASHSIM_CPUPROFILE writes a profile pprof reads (gzip), and never
// writes over a file that is there or through a symlink: the run goes
// on, with a warning.
func TestStartProfile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "cpu.out")
	var stderr bytes.Buffer
	startProfile(name, &stderr)()
	if stderr.Len() > 0 {
		t.Fatalf("warning: %s", stderr.String())
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile is %d bytes, not gzip: %q", len(b), b[:min(len(b), 8)])
	}

	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	startProfile(mine, &stderr)()
	if got, _ := os.ReadFile(mine); string(got) != "keep me" {
		t.Errorf("a file that was there became %q", got)
	}
	if !strings.Contains(stderr.String(), profileEnv) || !strings.Contains(stderr.String(), "exists") {
		t.Errorf("no warning that names the variable and the file that exists: %q", stderr.String())
	}
	// Nor through a symlink, even one that points nowhere yet.
	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, "link.out")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	startProfile(link, &stderr)()
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the profile went through a symlink to %s (%v)", target, err)
	}
	if !strings.Contains(stderr.String(), profileEnv) {
		t.Errorf("no warning for a symlink: %q", stderr.String())
	}
	stderr.Reset()
	startProfile("", &stderr)()
	if stderr.Len() > 0 {
		t.Errorf("a warning without a profile asked for: %q", stderr.String())
	}
}

// TestPhases: with the phase marks on, a check prints each of its
// phases on the writer they were started with, in order, from reading
// the trace to writing the report.
func TestPhases(t *testing.T) {
	var marks bytes.Buffer
	phases.Start(&marks, 0)
	defer phases.Stop()
	var out bytes.Buffer
	run([]string{"check", "--format", "json", "--fail-on", "never", "../../fixtures/traces/python-noflush/f.strace"}, &out, &bytes.Buffer{})
	phases.Stop()
	text := marks.String()
	at := 0
	for _, want := range []string{"read the trace", "dataNotSynced's end under posix", "nameNotSynced's end under ext4", "merge the models' findings", "group the findings into problems", "write the report"} {
		i := strings.Index(text[at:], "crashsim: phase "+want)
		if i < 0 {
			t.Fatalf("no phase %q after byte %d of:\n%s", want, at, text)
		}
		at += i
	}
	if !strings.Contains(out.String(), "data-not-synced") {
		t.Errorf("the check's report lacks its finding:\n%s", out.String())
	}
}
