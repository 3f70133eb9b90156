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
// name the .py lines of its open and its rename, read from the check's
// own events: as crashsim trace --stack records it, and with every byte
// of the marks' paths escaped (-xx).
func TestMarksName(t *testing.T) {
	want := []string{
		"data-not-synced save.py:17 main",
		"dir-sync-before-data save.py:17 main",
		"fsync-before-write save.py:17 main",
		"rename-before-sync save.py:22 main",
	}
	for _, trace := range []string{"testdata/python-shim/stack.strace", "testdata/python-shim/f-ttt-y-xx.strace"} {
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
		for _, f := range res.Findings {
			loc, ok := opt.Sources[f]
			if !ok {
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
	for _, f := range res.Findings {
		want := map[string]string{a: "/app/one.py:3", b: "/app/two.py:8"}[f.Path]
		if loc := opt.Sources[f]; fmt.Sprintf("%s:%d", loc.File, loc.Line) != want {
			t.Errorf("%s on %s: source %+v, want %s", f.Rule.ID, f.Path, loc, want)
		}
	}
	if len(res.Findings) == 0 {
		t.Error("no finding to name")
	}
}
