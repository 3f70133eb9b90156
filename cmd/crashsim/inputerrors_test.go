package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/textesc"
)

// A file named by a flag or an argument that is not there is said in
// crashsim's words, naming the flag and the file, with the exit status of
// docs/cli.md: not Go's ("baseline: open x: no such file or directory",
// "merge: open x: ...") with the name raw. A program is not run when an
// input it would be checked against cannot be read.
func TestMissingInputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TMPDIR", t.TempDir())
	trace := filepath.Join(dir, "t.strace")
	if err := os.WriteFile(trace, []byte("123 close(3) = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A trace with a crash state for explore's checker to run on.
	written := filepath.Join(dir, "w.strace")
	if err := os.WriteFile(written, []byte("123 openat(AT_FDCWD, \""+dir+"/f\", O_WRONLY|O_CREAT, 0644) = 3\n123 write(3, \"x\", 1) = 1\n123 close(3) = 0\n123 exit_group(0) = ?\n123 +++ exited with 0 +++\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := "no\nsuch\x1b[31m"
	ran := filepath.Join(dir, "ran")
	prog := []string{"--", "sh", "-c", "touch " + ran}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "--baseline", "nob.json", trace}, exitInput, "cannot read --baseline nob.json: no such file"},
		{[]string{"check", "--baseline", odd, trace}, exitInput, "cannot read --baseline " + textesc.Escape(odd) + ": no such file"},
		{[]string{"check", "--initial-list", "nol", trace}, exitInput, "cannot read --initial-list nol: no such file"},
		{[]string{"states", "--initial-list", "nol", trace}, exitInput, "cannot read --initial-list nol: no such file"},
		{[]string{"--config", "noc.toml", "check", trace}, exitUsage, "cannot read --config noc.toml: no such file"},
		{[]string{"--config", odd, "check", trace}, exitUsage, "cannot read --config " + textesc.Escape(odd) + ": no such file"},
		{[]string{"merge", "nor.json"}, exitInput, "cannot read report nor.json: no such file"},
		{[]string{"merge", odd}, exitInput, "cannot read report " + textesc.Escape(odd) + ": no such file"},
		{[]string{"check", "nofile.strace"}, exitInput, "cannot read trace nofile.strace: no such file (nor strace -ff files nofile.strace.PID)"},
		// Before the program runs, not once it has.
		{append([]string{"trace", "--initial-list", "nol"}, prog...), exitInput, "cannot read --initial-list nol: no such file"},
		{append([]string{"trace", "--baseline", "nob.json"}, prog...), exitInput, "cannot read --baseline nob.json: no such file"},
		{append([]string{"explore", "--checker", "true", "--initial-list", "nol"}, prog...), exitInput, "cannot read --initial-list nol: no such file"},
		{[]string{"explore", "--checker", "touch " + ran, "--root", dir, "--baseline", "nob.json", written}, exitInput, "cannot read --baseline nob.json: no such file"},
	} {
		_, errs, code := runCLI(t, tc.args...)
		name := strings.Join(tc.args, " ")
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d", name, code, tc.code)
		}
		if want := "crashsim: " + tc.want + "\n"; errs != want {
			t.Errorf("%q: stderr\n%q\nwant\n%q", name, errs, want)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Fatalf("%q ran the program", name)
		}
	}
}
