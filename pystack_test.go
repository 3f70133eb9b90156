package crashsim

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/tracer"
	"github.com/google/go-cmp/cmp"
)

// pystackProg saves config.txt forgetting f.flush() before os.fsync, and
// appends to app.log with os.write and no fsync at all. The numbers on
// the right are the lines TestPythonStackLines expects a finding at.
const pystackProg = `import os


def save(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:  # 6
        f.write(data)  # 7
        os.fsync(f.fileno())  # 8
    os.replace(tmp, path)  # 9


def log(path, line):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)  # 13
    os.write(fd, line)  # 14
    os.close(fd)


save("config.txt", "version=2\n")
log("app.log", b"saved\n")
`

// TestPythonStackLines traces a real Python program with the shim, as
// crashsim trace --stack does, with every Python it finds (pythons), and
// requires each finding's
// source line to be where its fix goes: the os.fsync that came before
// the flush, the os.replace that published unsynced data, the os.write
// never synced, the create and the replace whose directory was never
// synced. A file object's write shows on Python 3.12 and later only
// (sys.monitoring); before, the data-not-synced of config.txt names its
// open.
func TestPythonStackLines(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs python3 under strace")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	progDir := t.TempDir()
	prog := filepath.Join(progDir, "prog.py")
	if err := os.WriteFile(prog, []byte(pystackProg), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, path := range pythons() {
		py := path
		out, err := exec.Command(path, "-c", "import sys; print(sys.version_info >= (3, 12))").Output()
		if err != nil {
			continue // a pyenv shim of a version not installed
		}
		monitoring := strings.TrimSpace(string(out)) == "True"
		ran++
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			dir := realDir(t.TempDir())
			t.Chdir(dir)
			trace := filepath.Join(t.TempDir(), "t.strace")
			rec := Record{Shim: true, Tracer: tracer.Options{Out: trace, NoData: true}}
			res, err := rec.Run(context.Background(), []string{path, prog})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Fatalf("%s exited %d", py, res.ExitCode)
			}
			c := Check{Inputs: res.Inputs(), Scope: Scope{Roots: res.Roots}}
			found, err := c.Run()
			if err != nil {
				t.Fatal(err)
			}
			var opt report.Options
			if err := found.Identify(&opt, "", nil, func(err error) { t.Error(err) }); err != nil {
				t.Fatal(err)
			}
			var got []string
			for f, err := range found.Findings() {
				if err != nil {
					t.Fatal(err)
				}
				where := "no source"
				if loc := f.Source; loc != nil {
					where = fmt.Sprintf("%s:%d %s", filepath.Base(loc.File), loc.Line, loc.Function)
				}
				got = append(got, f.Rule.ID+" "+filepath.Base(f.Path)+" "+where)
			}
			sort.Strings(got)
			write := "prog.py:6 save" // the with open(...)
			if monitoring {
				write = "prog.py:7 save" // the f.write
			}
			want := []string{
				"data-not-synced app.log prog.py:14 log",
				"data-not-synced config.txt " + write,
				"fsync-before-write config.txt prog.py:8 save",
				"name-not-synced app.log prog.py:13 log",
				"name-not-synced config.txt prog.py:9 save",
				"rename-before-sync config.txt prog.py:9 save",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: findings and their source lines (-want +got):\n%s", py, diff)
			}
		})
	}
	if ran == 0 {
		t.Skip("no python3")
	}
}

// pythons are the Pythons to trace: python3, python3.12 and later on
// PATH, and pyenv's 3.12 and later (the versions whose sys.monitoring the
// shim uses), when installed.
func pythons() []string {
	var out []string
	add := func(p string) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			for _, q := range out {
				if q2, _ := filepath.EvalSymlinks(q); q2 == real {
					return
				}
			}
		}
		out = append(out, p)
	}
	for _, py := range []string{"python3", "python3.12", "python3.13", "python3.14"} {
		if p, err := exec.LookPath(py); err == nil {
			add(p)
		}
	}
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		if home, err := os.UserHomeDir(); err == nil {
			root = filepath.Join(home, ".pyenv")
		}
	}
	found, _ := filepath.Glob(filepath.Join(root, "versions", "3.1[2-9]*", "bin", "python3"))
	for _, p := range found {
		add(p)
	}
	return out
}
