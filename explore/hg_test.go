//go:build linux

package explore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/tracer"
)

// A crash in the middle of an hg commit leaves its store lock, which
// Mercurial writes as "HOST/PIDNS:PID". A checker that takes the lock
// (hg verify) must find it stale, as after a reboot, and break it,
// instead of waiting for a process that is gone: the checker runs in the
// pid namespace the program ran in.
func TestMercurialStaleLock(t *testing.T) {
	if testing.Short() {
		t.Skip("records a trace with strace: not with -short")
	}
	if _, err := exec.LookPath("hg"); err != nil {
		t.Skip("needs Mercurial (apt-get install mercurial)")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("needs strace to record the commit")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, initial := filepath.Join(dir, "repo"), filepath.Join(dir, "initial")
	t.Setenv("HGPLAIN", "1")
	t.Setenv("HGRCPATH", "") // the repository's own configuration only
	hg := func(args ...string) {
		t.Helper()
		c := exec.Command("hg", args...)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("hg %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	hg("init")
	os.WriteFile(filepath.Join(repo, "f"), []byte("one\n"), 0o644)
	hg("add", "f")
	hg("commit", "-u", "test", "-m", "one")
	if out, err := exec.Command("cp", "-a", repo, initial).CombinedOutput(); err != nil {
		t.Fatalf("copy the repository: %v: %s", err, out)
	}
	os.WriteFile(filepath.Join(repo, "f"), []byte("one\ntwo\n"), 0o644)
	trace := filepath.Join(dir, "commit.strace")
	res, err := tracer.Run(context.Background(), []string{"hg", "commit", "-u", "test", "-m", "two"}, tracer.Options{Dir: repo, Out: trace})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("trace hg commit: %v (exit %d)", err, res.ExitCode)
	}

	jailModes(t, func(t *testing.T) {
		logDir := t.TempDir()
		t.Setenv(WritableEnv, logDir)
		locked := filepath.Join(logDir, "locked")
		checker := `if [ -L .hg/store/lock ] || [ -f .hg/store/lock ]; then echo x >> ` + locked + `; fi
out=$(hg --config ui.timeout=3 verify 2>&1)
case "$out" in *"waiting for lock"*|*"timed out waiting"*) echo "$out"; exit 1;; esac
exit 0`
		res := runTrace(t, trace, Options{Trace: trace, Root: repo, Initial: initial, Checker: checker,
			Jobs: 2, MaxStates: 40, Timeout: 30 * time.Second, WorkDir: t.TempDir()})
		b, _ := os.ReadFile(locked)
		if n := strings.Count(string(b), "x"); n == 0 {
			t.Fatalf("none of the %d states checked holds the store lock: the test shows nothing", res.Checked)
		}
		for _, f := range res.Findings {
			t.Errorf("a checker waited on the crashed commit's lock: %s", f.Message)
		}
	})
}
