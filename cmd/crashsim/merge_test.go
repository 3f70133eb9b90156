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
	cases := []struct {
		fixture, initial, checker string
	}{
		{"python-noflush", "version=1\nreplicas=1\n", `grep -q '^version=' config.txt`},
		// Empty, zeros, missing and torn states all fail: many findings.
		{"python-json-nosync", "", `head -c 1 config.json | grep -q '{' && tail -c 2 config.json | grep -q '}'`},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
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
					"--format", format, "--fail-on", "never", "-o", out}, extra...)
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
