package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withSpill runs f with check keeping at most n findings in memory, and
// TMPDIR an empty directory that must stay empty: the spill files have no
// name.
func withSpill(t *testing.T, n int, f func()) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	old := spillAt
	spillAt = n
	defer func() { spillAt = old }()
	before := openFilesIn(t, tmp)
	f()
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("TMPDIR holds %d files after the run: %v", len(left), left[0].Name())
	}
	if after := openFilesIn(t, tmp); after != before {
		t.Errorf("%d files in TMPDIR still open after the run (%d before)", after, before)
	}
}

// openFilesIn counts this process's open files that are (or were) in dir.
func openFilesIn(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(link, dir+"/") {
			n++
		}
	}
	return n
}

// TestSpillSameOutput: with every finding spilled to disk (at most one
// or two in memory), check prints what it prints with them all in
// memory, byte for byte, over every golden trace and -ff set, in every
// format, under one model and under all four.
func TestSpillSameOutput(t *testing.T) {
	traces := goldenTraces(t)
	if len(traces) < 60 {
		t.Fatalf("only %d traces", len(traces))
	}
	views := [][]string{
		{"--format", "json"},
		{"--format", "text"},
		{"--format", "sarif"},
		{"--format", "json", "--model", "posix", "--model", "ext4", "--model", "xfs", "--model", "btrfs"},
		{"--format", "text", "--model", "ext4"},
	}
	spilled := 0
	for k, args := range traces {
		for v, view := range views {
			if testing.Short() && (k+v)%7 != 0 {
				continue
			}
			cmd := append(append([]string{"check", "--fail-on", "info"}, view...), args...)
			wantOut, wantErr, wantCode := runCLI(t, cmd...)
			for _, n := range []int{1, 2} {
				withSpill(t, n, func() {
					out, errs, code := runCLI(t, cmd...)
					if code != wantCode || errs != wantErr || out != wantOut {
						t.Errorf("crashsim %s with at most %d findings in memory: exit %d, want %d\n%s%s", strings.Join(cmd, " "), n, code, wantCode,
							firstDiff(wantErr, errs), firstDiff(wantOut, out))
					}
				})
			}
			if strings.Count(wantOut, `"rule": `) > 2 || strings.Count(wantOut, `"ruleId": `) > 2 {
				spilled++
			}
		}
	}
	if spilled < 20 {
		t.Errorf("only %d runs had more than two findings: the spill path was hardly taken", spilled)
	}
}

// TestSpillHTML: the HTML page of a spilled check (read back whole) is
// the page of one held in memory.
func TestSpillHTML(t *testing.T) {
	trace := "../../fixtures/traces/python-noflush/f-ttt-y-xx.strace"
	page := func(name string) string {
		out := filepath.Join(t.TempDir(), name)
		if _, errs, code := runCLI(t, "check", "--format", "html", "-o", out, trace); code != 1 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := page("mem.html")
	withSpill(t, 1, func() {
		if got := page("spill.html"); got != want {
			t.Errorf("page differs:\n%s", firstDiff(want, got))
		}
	})
}

// TestSpillFilters: --ignore, a config's [[suppress]] and --baseline leave
// out and count the same findings when they are read back from disk, and
// the exit status follows what is left. The trace is git's with
// core.fsync: ten problems, one per file (a commit that never syncs is
// one program-level problem, which a baseline has or has not whole).
func TestSpillFilters(t *testing.T) {
	dir := t.TempDir()
	trace := "../../fixtures/traces/git-commit-fsync/f-ttt-y-xx.strace"
	cfg := filepath.Join(dir, "suppress.toml")
	os.WriteFile(cfg, []byte("[[suppress]]\nrule = \"name-not-synced\"\npath = \"**/objects/**\"\nreason = \"known\"\n"), 0o644)
	base := filepath.Join(dir, "base.json")
	baseSARIF := filepath.Join(dir, "base.sarif")
	// A baseline that holds some of the findings: those of a run that
	// ignores the index.
	for _, b := range []struct{ file, format string }{{base, "json"}, {baseSARIF, "sarif"}} {
		if _, errs, code := runCLI(t, "check", "--fail-on", "never", "--format", b.format, "--ignore", "index", "-o", b.file, trace); code != 0 {
			t.Fatalf("baseline: exit %d: %s", code, errs)
		}
	}
	cases := [][]string{
		{"--ignore", "index"},
		{"--ignore", "**/objects/**", "--ignore", "nothing"},
		{"--config", cfg},
		{"--baseline", base},
		{"--baseline", baseSARIF},
		{"--baseline", base, "--config", cfg, "--ignore", "HEAD"},
	}
	for _, c := range cases {
		for _, format := range []string{"text", "json", "sarif"} {
			for _, failOn := range []string{"error", "info"} {
				cmd := append(append([]string{"check", "--format", format, "--fail-on", failOn}, c...), trace)
				wantOut, wantErr, wantCode := runCLI(t, cmd...)
				if format == "text" && (!strings.Contains(wantOut, "not reported: ") || strings.Contains(wantOut, "crashsim: 0 problems")) {
					t.Fatalf("crashsim %s left nothing out, or everything:\n%s", strings.Join(cmd, " "), wantOut)
				}
				withSpill(t, 1, func() {
					out, errs, code := runCLI(t, cmd...)
					if code != wantCode || errs != wantErr || out != wantOut {
						t.Errorf("crashsim %s spilled: exit %d, want %d\n%s%s", strings.Join(cmd, " "), code, wantCode, firstDiff(wantErr, errs), firstDiff(wantOut, out))
					}
				})
			}
		}
	}
}

// TestSpillErrorLeavesNothing: a run that fails after its findings were
// spilled (a baseline that is not a report, an output file that cannot
// be written) leaves no file in TMPDIR and none open.
func TestSpillErrorLeavesNothing(t *testing.T) {
	trace := "../../fixtures/traces/python-noflush/f-ttt-y-xx.strace"
	notReport := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(notReport, []byte("{}"), 0o644)
	for _, args := range [][]string{
		{"--baseline", notReport},
		{"-o", filepath.Join(t.TempDir(), "no", "such", "dir", "out.json")},
	} {
		withSpill(t, 1, func() {
			cmd := append(append([]string{"check", "--format", "json"}, args...), trace)
			_, errs, code := runCLI(t, cmd...)
			if code != exitInput {
				t.Errorf("crashsim %s: exit %d, want %d: %s", strings.Join(cmd, " "), code, exitInput, errs)
			}
		})
	}
}

// TestSpillNoTempDir: a TMPDIR that cannot hold the spill is an error
// that says so, not a report missing findings.
func TestSpillNoTempDir(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	old := spillAt
	spillAt = 1
	defer func() { spillAt = old }()
	out, errs, code := runCLI(t, "check", "--format", "json", "../../fixtures/traces/git-commit/f-ttt-y-xx.strace")
	if code != exitInput || out != "" || !strings.Contains(errs, "cannot keep the findings past 1 in a temp file in ") || !strings.Contains(errs, "no such file or directory") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
