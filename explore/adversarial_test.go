package explore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sleeping lists the processes whose command line is "sleep d".
func sleeping(d string) []string {
	var pids []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && string(b) == "sleep\x00"+d+"\x00" {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

func mark() string { return fmt.Sprintf("%d.%d", 70+rand.IntN(20), rand.IntN(1000000)) }

// jailModes runs f jailed (when crashsim can make namespaces) and not.
func jailModes(t *testing.T, f func(t *testing.T)) {
	for _, jailed := range []bool{true, false} {
		t.Run(fmt.Sprintf("jailed=%v", jailed), func(t *testing.T) {
			if jailed && !canJail() {
				t.Skip("needs CAP_SYS_ADMIN for namespaces")
			}
			if jailed && testing.Short() {
				t.Skip("-short: the jailed run needs root and namespaces, left to the full run")
			}
			noJail = !jailed
			defer func() { noJail = false }()
			f(t)
		})
	}
}

func oneWrite(t *testing.T) (trace, root string) {
	root = filepath.Join(t.TempDir(), "root")
	return writeTrace(t, root,
		`openat(AT_FDCWD, "/R/f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "x", 1) = 1`,
	), root
}

// TestAdversarialCheckerSetsid: what a checker starts in a session of its
// own (a daemon) does not outlive the checker (issue 14, case 5).
func TestAdversarialCheckerSetsid(t *testing.T) {
	jailModes(t, func(t *testing.T) {
		d := mark()
		trace, root := oneWrite(t)
		runTrace(t, trace, Options{Trace: trace, Root: root, Checker: "setsid sleep " + d + " & sleep 0.3; exit 0", Jobs: 1, WorkDir: t.TempDir()})
		if pids := sleeping(d); len(pids) > 0 {
			t.Errorf("left running: %v", pids)
		}
	})
}

// TestAdversarialCheckerTimeout: a checker that setsids and sleeps past
// the timeout is killed whole, and the state fails as timed out.
func TestAdversarialCheckerTimeout(t *testing.T) {
	jailModes(t, func(t *testing.T) {
		d := mark()
		trace, root := oneWrite(t)
		start := time.Now()
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Checker: "setsid sleep " + d + "; sleep " + d, Jobs: 1,
			Timeout: 300 * time.Millisecond, WorkDir: t.TempDir(), MaxStates: 1})
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %v", d)
		}
		if res.Failed != 1 || len(res.Findings) == 0 || !strings.Contains(res.Findings[0].Message, "timed out") {
			t.Errorf("failed %d, findings %v: want one timed-out state", res.Failed, res.Findings)
		}
		if pids := sleeping(d); len(pids) > 0 {
			t.Errorf("left running: %v", pids)
		}
	})
}

// TestAdversarialCheckerWritesOutside: jailed, a checker that writes an
// absolute path outside its state directory cannot (issue 14, build 5).
func TestAdversarialCheckerWritesOutside(t *testing.T) {
	if !canJail() {
		t.Skip("needs CAP_SYS_ADMIN for namespaces; without it checkers can write anywhere crashsim can (docs/safety.md)")
	}
	outside := filepath.Join(t.TempDir(), "real-data")
	os.WriteFile(outside, []byte("precious"), 0o644)
	created := filepath.Join(filepath.Dir(outside), "new")
	trace, root := oneWrite(t)
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, WorkDir: t.TempDir(),
		Checker: "echo pwned > " + outside + "; echo pwned > " + created + "; echo ok > f.checked"})
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Errorf("the checker wrote the real file: %q", b)
	}
	if _, err := os.Stat(created); err == nil {
		t.Error("the checker created a file outside its state")
	}
	// Its own state stays writable: the last command succeeded.
	if res.Failed != 0 {
		t.Errorf("%d states failed: the state directory was not writable", res.Failed)
	}
}
