package gentrace_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/parser"
)

// events parses a generated trace and counts its events per syscall.
func events(t *testing.T, trace []byte) (map[string]int, int) {
	t.Helper()
	var warnings []string
	r := parser.NewReader(bytes.NewReader(trace), "gen.strace", parser.Options{
		Warn: func(pos parser.Pos, msg string) { warnings = append(warnings, msg) },
	})
	counts := map[string]int{}
	total := 0
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the generated trace does not parse: %v", err)
		}
		counts[ev.Name]++
		total++
	}
	if len(warnings) > 0 {
		t.Errorf("parser warnings on the generated trace: %q", warnings[:min(5, len(warnings))])
	}
	return counts, total
}

func TestRealShape(t *testing.T) {
	ts, err := gentrace.LoadTemplates("../../fixtures/traces", 32)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	lines, err := gentrace.WriteReal(&a, ts, gentrace.RealOptions{Bytes: 4 << 20, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gentrace.WriteReal(&b, ts, gentrace.RealOptions{Bytes: 4 << 20, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same seed gave two different traces")
	}
	if a.Len() < 4<<20 {
		t.Errorf("asked for 4 MiB, got %d bytes", a.Len())
	}
	if avg := a.Len() / int(lines); avg < 90 || avg > 180 {
		t.Errorf("lines average %d bytes; real recordings with -s 32 average about 125", avg)
	}
	text := a.String()
	for _, tp := range ts {
		// Every copy works in a directory of its own.
		if strings.Contains(text, "/tmp/crashsim-fixtures/"+tp.Name+"/") {
			t.Errorf("%s: a copy still names the recording's own directory", tp.Name)
		}
	}
	copyDir := regexp.MustCompile(`/tmp/crashsim-fixtures/([^/"<>]+\.r[0-9]+)`)
	seen := map[string]string{} // pid → its copy's directory
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		pid, _, _ := strings.Cut(line, " ")
		if len(pid) < 5 {
			t.Fatalf("pid %q is not a fresh one: %s", pid, line)
		}
		for _, m := range copyDir.FindAllStringSubmatch(line, -1) {
			if prev, ok := seen[pid]; ok && prev != m[1] {
				t.Fatalf("pid %s works in two copies' directories, %s and %s", pid, prev, m[1])
			}
			seen[pid] = m[1]
		}
	}
	counts, total := events(t, a.Bytes())
	ignored := counts["mmap"] + counts["brk"] + counts["rt_sigaction"] + counts["futex"] + counts["newfstatat"] + counts["read"] + counts["mprotect"] + counts["close"]
	if ignored*2 < total {
		t.Errorf("only %d of %d events are the everyday calls (mmap, read, stat...): %v", ignored, total, counts)
	}
	if counts["fsync"] == 0 || counts["rename"]+counts["renameat"]+counts["renameat2"] == 0 {
		t.Errorf("no fsync or rename among %v", counts)
	}
}

func TestFilesShape(t *testing.T) {
	var buf bytes.Buffer
	const n = 2500
	if _, err := gentrace.WriteFiles(&buf, gentrace.FilesOptions{Files: n, PerDir: 1000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	counts, _ := events(t, buf.Bytes())
	if counts["rename"] != n || counts["write"] != n {
		t.Errorf("%d renames and %d writes, want %d of each", counts["rename"], counts["write"], n)
	}
	if counts["fsync"] != n/2+3 { // every other file, and directories d0, d1 and d2 (d3, the fourth, is left unsynced)
		t.Errorf("%d fsyncs, want %d", counts["fsync"], n/2+3)
	}
	finals := map[string]bool{}
	for _, line := range strings.Split(buf.String(), "\n") {
		if i := strings.Index(line, `rename("`); i >= 0 {
			_, to, _ := strings.Cut(line[i:], `", "`)
			finals[to] = true
		}
	}
	if len(finals) != n {
		t.Errorf("%d distinct final names, want %d", len(finals), n)
	}
}

// TestTemplateShortPid: strace -f pads a pid of fewer than five digits
// with spaces ("4955  1796418254.151113 ..."); a recording with one loads
// as a template like any other, with the pid's and the timestamp's text
// taken out.
func TestTemplateShortPid(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "short"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := "4955  1796418254.151113 openat(AT_FDCWD, \"x\", O_RDONLY) = 3\n" +
		"4955  1796418254.151502 close(3)      = 0\n" +
		"4955  1796418254.151600 +++ exited with 0 +++\n"
	if err := os.WriteFile(filepath.Join(dir, "short", "f-ttt-y-xx.strace"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := gentrace.LoadTemplates(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || len(ts[0].Lines) != 3 || ts[0].Pids != 1 {
		t.Fatalf("templates %+v", ts)
	}
}
