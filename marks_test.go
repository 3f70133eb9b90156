package crashsim

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/source"
	"github.com/google/go-cmp/cmp"
)

// TestMarksName: the findings of a Python save recorded with the shim
// name the .py line where each fix goes, read from the check's own
// events: the os.fsync that came before the f.flush(), the os.rename
// that published the file, the directory's os.fsync; for the unsynced
// write, the with open(...) on Python 3.11, which shows no f.write, and
// the f.write on 3.12, whose sys.monitoring does. As crashsim trace
// --stack records it, and with every byte of the marks' paths escaped
// (-xx). fixtures/programs/save.py is the program.
func TestMarksName(t *testing.T) {
	py311 := []string{
		"data-not-synced save.py:17 main",
		"dir-sync-before-data save.py:25 main",
		"fsync-before-write save.py:21 main",
		"rename-before-sync save.py:22 main",
	}
	py312 := []string{
		"data-not-synced save.py:18 main",
		"dir-sync-before-data save.py:25 main",
		"fsync-before-write save.py:21 main",
		"rename-before-sync save.py:22 main",
	}
	for trace, want := range map[string][]string{
		"testdata/python-shim/stack.strace":       py311,
		"testdata/python-shim/f-ttt-y-xx.strace":  py311,
		"testdata/python-shim/stack-py312.strace": py312,
	} {
		c := Check{Inputs: Inputs{Traces: []string{trace}}}
		res, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		var opt report.Options
		if err := res.Identify(&opt, "", nil, func(err error) { t.Errorf("%s: %v", trace, err) }); err != nil {
			t.Fatal(err)
		}
		var got []string
		for f, err := range res.Findings() {
			if err != nil {
				t.Fatal(err)
			}
			loc := f.Source
			if loc == nil {
				t.Errorf("%s:%d: %s has no source line", trace, f.Line, f.Rule.ID)
				continue
			}
			got = append(got, fmt.Sprintf("%s %s:%d %s", f.Rule.ID, filepath.Base(loc.File), loc.Line, loc.Function))
		}
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: sources (-want +got):\n%s", trace, diff)
		}
	}
}

// markPath is the path the shim opens for a mark.
func markPath(op, file string, line int, target, from string) string {
	fields := []string{op, file, fmt.Sprint(line), "save", target, from}
	return source.MarkPrefix + hex.EncodeToString([]byte(strings.Join(fields, "\x00")))
}

// escape spells every byte of s as strace -xx does.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\x%02x`, s[i])
	}
	return b.String()
}

// TestMarkTap: a mark names the next call of its own process, wherever
// other processes' lines fall and however strace split the call, in any
// spelling of the path; a successful open below the prefix is no mark.
func TestMarkTap(t *testing.T) {
	tmp := realDir(t.TempDir())
	a, b := tmp+"/a.txt", tmp+"/b.txt"
	lines := []string{
		`10 openat(AT_FDCWD, "` + markPath("open", "/app/one.py", 3, a, "") + `", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`,
		`11 openat(AT_FDCWD, "` + escape(markPath("open", "/app/two.py", 8, b, "")) + `", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`,
		`10 openat(AT_FDCWD, "` + a + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666 <unfinished ...>`,
		`11 openat(AT_FDCWD, "` + b + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 4`,
		`10 <... openat resumed>) = 3`,
		`10 write(3, "x", 1) = 1`,
		`11 write(4, "y", 1) = 1`,
		`10 open("` + markPath("open", "/app/one.py", 99, a, "") + `", O_RDONLY) = 5`,
		`10 close(3) = 0`,
	}
	trace := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(trace, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Check{Inputs: Inputs{Traces: []string{trace}}}
	res, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, m := range res.marks {
		got[m.line] = fmt.Sprintf("%s:%d %s", m.Loc.File, m.Loc.Line, filepath.Base(m.Target))
	}
	want := map[int]string{3: "/app/one.py:3 a.txt", 4: "/app/two.py:8 b.txt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("marks by line (-want +got):\n%s", diff)
	}
	var opt report.Options
	res.Identify(&opt, "", nil, nil)
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{a: "/app/one.py:3", b: "/app/two.py:8"}[f.Path]
		if loc := f.Source; loc == nil || fmt.Sprintf("%s:%d", loc.File, loc.Line) != want {
			t.Errorf("%s on %s: source %+v, want %s", f.Rule.ID, f.Path, loc, want)
		}
	}
	if res.Len() == 0 {
		t.Error("no finding to name")
	}
}

// sourcesOf checks a trace written from lines and gives each finding's
// source line, "rule base(path) file:line" ("-" for none), sorted.
func sourcesOf(t *testing.T, lines []string) []string {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(trace, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Check{Inputs: Inputs{Traces: []string{trace}}}
	res, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	var opt report.Options
	if err := res.Identify(&opt, "", nil, func(err error) { t.Error(err) }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		where := "-"
		if loc := f.Source; loc != nil {
			where = fmt.Sprintf("%s:%d", loc.File, loc.Line)
		}
		got = append(got, fmt.Sprintf("%s %s %s", f.Rule.ID, filepath.Base(f.Path), where))
	}
	sort.Strings(got)
	return got
}

// failed is the line of a mark's failed open by pid.
func failed(pid int, path string) string {
	return fmt.Sprintf(`%d openat(AT_FDCWD, "%s", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`, pid, path)
}

// TestMarkNotes: a write note (f.write on Python 3.12) names the writes
// of its fd by its thread from the next one on, the latest note first; a
// write after the fd is closed is not its. An os.fsync mark names the
// fsync that follows it.
func TestMarkNotes(t *testing.T) {
	tmp := realDir(t.TempDir())
	a, b := tmp+"/a.txt", tmp+"/b.txt"
	note := func(line int, path string, fd int) string {
		return markPath("write", "/app/s.py", line, path, fmt.Sprint(fd))
	}
	got := sourcesOf(t, []string{
		failed(10, markPath("open", "/app/s.py", 3, a, "")),
		`10 openat(AT_FDCWD, "` + a + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
		failed(10, note(4, a, 3)),
		failed(10, markPath("os.fsync", "/app/s.py", 5, "fd:3", "")),
		`10 fsync(3) = 0`,
		failed(10, note(6, a, 3)),
		`11 write(3, "z", 1) = 1`,
		`10 write(3, "x", 1) = 1`,
		`10 write(3, "y", 1) = 1`,
		failed(10, note(7, "fd:3", 3)),
		`10 close(3) = 0`,
		failed(10, markPath("open", "/app/s.py", 8, b, "")),
		`10 openat(AT_FDCWD, "` + b + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
		`10 write(3, "w", 1) = 1`,
		`10 exit_group(0) = ?`,
	})
	want := []string{
		// The last write of a.txt is the latest note's.
		"data-not-synced a.txt /app/s.py:6",
		// b.txt reuses fd 3: the note of line 7, whose write never
		// came (f.write(b"")), ended with the close, so b.txt's write
		// falls back to its open.
		"data-not-synced b.txt /app/s.py:8",
		"fsync-before-write a.txt /app/s.py:5",
		"name-not-synced a.txt /app/s.py:3",
		"name-not-synced b.txt /app/s.py:8",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestMarkNamesOnlyItsCall: a mark whose next call in its thread is not
// one its operation makes names nothing (the call it marked did not
// happen, or not there), rather than the wrong call.
func TestMarkNamesOnlyItsCall(t *testing.T) {
	tmp := realDir(t.TempDir())
	a := tmp + "/a.txt"
	got := sourcesOf(t, []string{
		failed(10, markPath("os.fsync", "/app/s.py", 2, "fd:9", "")),
		failed(10, markPath("open", "/app/s.py", 3, a, "")),
		`10 lseek(4, 0, SEEK_CUR) = 0`,
		`10 openat(AT_FDCWD, "` + a + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
		failed(10, markPath("os.fsync", "/app/s.py", 5, "fd:3", "")),
		`10 write(3, "x", 1) = 1`,
		`10 fsync(3) = 0`,
		`10 write(3, "y", 1) = 1`,
		`10 close(3) = 0`,
	})
	want := []string{"data-not-synced a.txt -", "fsync-before-write a.txt -", "name-not-synced a.txt -"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestMarkFixAt: a finding's source line is where its fix goes, which is
// not always the call it is about: for fsync-error-ignored, the os.fsync
// whose error was dropped, not the os.rename that went on as if it had
// not failed.
func TestMarkFixAt(t *testing.T) {
	tmp := realDir(t.TempDir())
	tmpf, a := tmp+"/a.txt.tmp", tmp+"/a.txt"
	got := sourcesOf(t, []string{
		failed(10, markPath("open", "/app/s.py", 3, tmpf, "")),
		`10 openat(AT_FDCWD, "` + tmpf + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
		failed(10, markPath("os.write", "/app/s.py", 4, "fd:3", "")),
		`10 write(3, "x", 1) = 1`,
		failed(10, markPath("os.fsync", "/app/s.py", 5, "fd:3", "")),
		`10 fsync(3) = -1 EIO (Input/output error)`,
		`10 close(3) = 0`,
		failed(10, markPath("os.rename", "/app/s.py", 9, a, tmpf)),
		`10 rename("` + tmpf + `", "` + a + `") = 0`,
		failed(10, markPath("open", "/app/s.py", 10, tmp, "")),
		`10 openat(AT_FDCWD, "` + tmp + `", O_RDONLY|O_CLOEXEC) = 3`,
		failed(10, markPath("os.fsync", "/app/s.py", 11, "fd:3", "")),
		`10 fsync(3) = 0`,
		`10 close(3) = 0`,
	})
	want := []string{
		"data-not-synced a.txt /app/s.py:4",
		"dir-sync-before-data a.txt /app/s.py:11",
		"fsync-error-ignored a.txt /app/s.py:5",
		"rename-before-sync a.txt /app/s.py:9",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestMarkNoteBounds: a write note that could not name its file (an
// f.write on a file opened from an fd) covers only its own thread's
// writes; and the open a write falls back to is the last before it, not
// a later one that read the file back.
func TestMarkNoteBounds(t *testing.T) {
	tmp := realDir(t.TempDir())
	a, c := tmp+"/a.txt", tmp+"/c.txt"
	got := sourcesOf(t, []string{
		`10 openat(AT_FDCWD, "` + a + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
		failed(10, markPath("write", "/app/s.py", 4, "fd:3", "3")),
		`10 write(3, "x", 1) = 1`,
		failed(11, markPath("open", "/app/s.py", 20, c, "")),
		`11 openat(AT_FDCWD, "` + c + `", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 4`,
		`11 write(4, "z", 1) = 1`,
		`10 write(3, "y", 1) = 1`,
		`10 close(3) = 0`,
		`11 close(4) = 0`,
		failed(11, markPath("open", "/app/s.py", 25, c, "")),
		`11 openat(AT_FDCWD, "` + c + `", O_RDONLY|O_CLOEXEC) = 4`,
		`11 close(4) = 0`,
	})
	want := []string{
		"data-not-synced a.txt /app/s.py:4",
		"data-not-synced c.txt /app/s.py:20",
		"name-not-synced a.txt -",
		"name-not-synced c.txt /app/s.py:20",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}
