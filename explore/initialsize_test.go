package explore

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/model"
)

// appendAcrossCreate is a program that extends a file from before the
// trace with two pwrites past its end, creating another file between
// them, and never stats the file: only the snapshot tells its size (100).
func appendAcrossCreate(t *testing.T) (trace, root, initial string) {
	t.Helper()
	root = t.TempDir()
	a, b := strings.Repeat("A", 50), strings.Repeat("B", 50)
	trace = writeTrace(t, root,
		`openat(AT_FDCWD, "/R/log", O_WRONLY) = 3`,
		`pwrite64(3, "`+a+`", 50, 100) = 50`,
		`openat(AT_FDCWD, "/R/marker", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`,
		`close(4) = 0`,
		`pwrite64(3, "`+b+`", 50, 150) = 50`,
		`close(3) = 0`,
	)
	initial = writeTree(t, map[string]string{"log": strings.Repeat("0", 100)})
	return trace, root, initial
}

// seenStates explores trace under p with a checker that accepts every
// state and writes one line of each: log's size, the first byte of its
// last 50 that is not NUL (z when they are all zeros), m when marker
// exists, else -.
func seenStates(t *testing.T, trace, root, initial string, p model.Persistence) []string {
	t.Helper()
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir) // as root, the checker may write only there and in its state
	log := filepath.Join(logDir, "log")
	checker := `t=$(tail -c 50 log | tr -d '\000' | head -c 1); echo "$(wc -c <log) ${t:-z} $(test -e marker && echo m || echo -)" >>` + log
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: checker, Jobs: 1, Persistence: p, Timeout: 20 * time.Second, WorkDir: t.TempDir()})
	if res.Checked == 0 || res.Failed != 0 {
		t.Fatalf("checked %d states, %d rejected", res.Checked, res.Failed)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	return lines
}

// TestInitialSizeFromSnapshot: explore's model takes the size of a file
// from before the trace from the snapshot, as check's takes it from a
// listing. Without it the appends passed for rewrites in place: posix
// never got the states that keep an append's size without its data, and
// ext4 got one it cannot leave, the second append on disk while the
// create made before it is not.
func TestInitialSizeFromSnapshot(t *testing.T) {
	trace, root, initial := appendAcrossCreate(t)
	t.Run("posix", func(t *testing.T) {
		got := seenStates(t, trace, root, initial, model.Posix)
		if !slices.Contains(got, "150 z -") && !slices.Contains(got, "150 z m") {
			t.Errorf("no state holds log at 150 bytes with zeros where the first append went (its size without its data); states:\n%s", strings.Join(got, "\n"))
		}
	})
	t.Run("ext4", func(t *testing.T) {
		got := seenStates(t, trace, root, initial, model.Ext4)
		for _, s := range got {
			if strings.HasPrefix(s, "200 ") && strings.HasSuffix(s, " -") {
				t.Errorf("state %q: the second append's size is on disk without the create made before it; states:\n%s", s, strings.Join(got, "\n"))
			}
		}
	})
}

// TestTruncateEmptyChangesNothing: O_TRUNC of a file the snapshot holds
// empty changes no byte, so no state says the file is as it was before
// the run, which would be every file as the program saw it.
func TestTruncateEmptyChangesNothing(t *testing.T) {
	root := t.TempDir()
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/empty", O_WRONLY|O_TRUNC) = 3`,
		`close(3) = 0`,
	)
	initial := writeTree(t, map[string]string{"empty": "", "other": "x"})
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: "false", Timeout: 20 * time.Second, WorkDir: t.TempDir()})
	if res.Distinct != 1 {
		t.Errorf("%d distinct states, want 1", res.Distinct)
	}
	for _, f := range res.Findings {
		if strings.Contains(f.Message, "as it was before the run") {
			t.Errorf("finding says the truncation of an empty file was lost: %s", f.Message)
		}
	}
}
