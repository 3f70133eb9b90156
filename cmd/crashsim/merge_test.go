package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShardsMergeToWhole explores fixtures whole and in N shards, merges
// the shards' reports and compares the bytes with the whole run's report,
// in JSON and in SARIF.
func TestShardsMergeToWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: explores each case whole and in shards")
	}
	jsonChecker := `head -c 1 config.json | grep -q '{' && tail -c 2 config.json | grep -q '}'`
	cases := []struct {
		name, fixture, initial, checker string
		flags                           []string // given to the whole run and each shard
	}{
		{"python-noflush", "python-noflush", "version=1\nreplicas=1\n", `grep -q '^version=' config.txt`, nil},
		// Empty, zeros, missing and torn states all fail: many findings.
		{"python-json-nosync", "python-json-nosync", "", jsonChecker, nil},
		// Of its 4 distinct states, --max-states 3 keeps 1, 2 and 4
		// (spread over the run, the last among them): the shards split
		// those, 5 shards leave two with none, and each shard says one
		// was left out.
		{"max-states", "python-json-nosync", "", jsonChecker, []string{"--max-states", "3", "--accept-blind", "blind-states-unchecked"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trace := filepath.Join("..", "..", "fixtures", "traces", c.fixture, "f-ttt-y-xx.strace")
			root := "/tmp/crashsim-fixtures/" + c.fixture
			dir := t.TempDir()
			initial := filepath.Join(dir, "initial")
			if err := os.Mkdir(initial, 0o755); err != nil {
				t.Fatal(err)
			}
			if c.initial != "" {
				if err := os.WriteFile(filepath.Join(initial, "config.txt"), []byte(c.initial), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			explore := func(out, format string, extra ...string) {
				t.Helper()
				args := append([]string{"explore", "--checker", c.checker, "--root", root, "--initial", initial,
					"--format", format, "--fail-on", "never", "-o", out}, c.flags...)
				args = append(args, extra...)
				var stderr bytes.Buffer
				if code := run(append(args, trace), &bytes.Buffer{}, &stderr); code != 0 {
					t.Fatalf("crashsim %q: exit status %d: %s", args, code, stderr.String())
				}
			}
			for _, format := range []string{"json", "sarif"} {
				whole := filepath.Join(dir, "whole."+format)
				explore(whole, format)
				want, err := os.ReadFile(whole)
				if err != nil {
					t.Fatal(err)
				}
				if n := bytes.Count(want, []byte(`"checker-failed"`)); n < 2 {
					t.Fatalf("%s: the whole run has %d findings; the test needs several", format, n)
				}
				for _, n := range []int{1, 2, 5} {
					var reports []string
					// Merge in reverse order: the order of arguments must not matter.
					for i := n; i >= 1; i-- {
						out := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.%s", i, n, format))
						explore(out, format, "--shard", fmt.Sprintf("%d/%d", i, n))
						reports = append(reports, out)
					}
					var stdout, stderr bytes.Buffer
					code := run(append([]string{"merge", "--fail-on", "never"}, reports...), &stdout, &stderr)
					if code != 0 {
						t.Fatalf("%s, %d shards: merge: exit status %d: %s", format, n, code, stderr.String())
					}
					if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
						t.Errorf("%s, %d shards: the merge differs from the whole run's report (-want +got):\n%s", format, n, diff)
					}
				}
			}
		})
	}
}

// TestMergeFromPipe: a shard may come from a pipe (<(...) in a shell),
// which merge reads into memory to read it twice; a file streams.
func TestMergeFromPipe(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join("..", "..", "fixtures", "traces", "python-noflush", "f-ttt-y-xx.strace")
	var shards [][]byte
	for i := 1; i <= 2; i++ {
		var out bytes.Buffer
		code := run([]string{"check", "--format", "json", "--fail-on", "never", trace}, &out, &bytes.Buffer{})
		if code != 0 {
			t.Fatalf("check: exit %d", code)
		}
		// A check's report marked as a shard of two of one run, for
		// merge to join.
		mark := fmt.Sprintf(`"shard": "%d/2", "run": {"trace": "sha256:1", "checker": "sha256:2", "options": ""}, "left": {`, i)
		shards = append(shards, bytes.Replace(out.Bytes(), []byte(`"left": {`), []byte(mark), 1))
	}
	file := filepath.Join(dir, "one.json")
	if err := os.WriteFile(file, shards[0], 0o644); err != nil {
		t.Fatal(err)
	}
	// A pipe as the shell makes for <(...): named by /dev/fd. A named
	// pipe (mkfifo) is refused: nothing says anything will write to it.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		pw.Write(shards[1])
		pw.Close()
	}()
	pipe := fmt.Sprintf("/dev/fd/%d", pr.Fd())
	var stdout, stderr bytes.Buffer
	if code := run([]string{"merge", "--fail-on", "never", file, pipe}, &stdout, &stderr); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr.String())
	}
	if n, want := bytes.Count(stdout.Bytes(), []byte(`"fingerprint"`)), 2*bytes.Count(shards[0], []byte(`"fingerprint"`)); n != want || n == 0 {
		t.Errorf("merged %d findings, want %d:\n%s", n, want, stdout.String())
	}
	if bytes.Contains(stdout.Bytes(), []byte(`"shard"`)) {
		t.Errorf("the merge kept a shard mark")
	}
}

// TestMergeNameEscaped: a shard's name in merge's error is escaped, as
// every name crashsim prints: a name holding ESC must not drive the
// terminal.
func TestMergeNameEscaped(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x\x1b[2J.json")
	if err := os.WriteFile(name, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := run([]string{"merge", name}, &bytes.Buffer{}, &stderr); code != 3 {
		t.Fatalf("merge: exit %d: %s", code, stderr.String())
	}
	if bytes.Contains(stderr.Bytes(), []byte("\x1b")) || !bytes.Contains(stderr.Bytes(), []byte(`x\x1b[2J.json`)) {
		t.Errorf("stderr: %q", stderr.String())
	}
}
