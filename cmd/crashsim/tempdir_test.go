package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A missing temp directory, or a file named as one, is a usage error that
// names TMPDIR and what to do, said before anything runs; a command that
// makes nothing there (trace --out) is not refused for it.
func TestTempDirMissing(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	missing := filepath.Join(elsewhere, "missing")
	file := filepath.Join(elsewhere, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	notExist := "crashsim: the temp directory " + missing + " ($TMPDIR) does not exist: create it, or set TMPDIR to a directory that exists\n"
	notDir := "crashsim: the temp directory " + file + " ($TMPDIR) is not a directory: set TMPDIR to a directory\n"
	for _, tc := range []struct {
		tmpdir string
		args   []string
		want   string
	}{
		{missing, []string{"trace", "--", "true"}, notExist},
		{missing, []string{"trace", "--out", "t.strace", "--stack", "--", "true"}, notExist},
		{file, []string{"trace", "--", "true"}, notDir},
		{missing, []string{"explore", "--checker", "true", "--", "true"}, notExist},
		{missing, []string{"oracle", "--", "true"}, notExist},
	} {
		t.Setenv("TMPDIR", tc.tmpdir)
		out, errs, code := runCLI(t, tc.args...)
		errs = withoutSweep(errs)
		if code != exitUsage || errs != tc.want || out != "" {
			t.Errorf("TMPDIR=%s crashsim %q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.tmpdir, tc.args, code, out, errs, exitUsage, tc.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}

	// With --out, trace makes nothing in the temp directory: without
	// strace it gets as far as looking for it.
	t.Setenv("TMPDIR", missing)
	t.Setenv("PATH", filepath.Join(dir, "empty"))
	_, errs, code := runCLI(t, "trace", "--out", "t.strace", "--", "/bin/true")
	errs = withoutSweep(errs)
	if want := "crashsim: strace not found: install it (apt-get install strace)\n"; code != exitInput || errs != want {
		t.Errorf("trace --out: exit %d, stderr %q; want exit %d and %q", code, errs, exitInput, want)
	}
}

// withoutSweep drops from stderr the lines saying what a run swept up
// after another crashsim run that is gone: on a shared machine a run of
// another test suite, killed beside this one, can leave what any run
// then sweeps.
func withoutSweep(errs string) string {
	var kept []string
	for _, l := range strings.SplitAfter(errs, "\n") {
		if !strings.HasPrefix(l, "crashsim: swept what a crashsim run that is gone") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}
