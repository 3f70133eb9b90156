package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// formsDir holds one program (save.py noflush) recorded under the strace
// flags whose output shapes differ: -k, -n -i, -C, -X verbose, -tt -r, -p
// (parser/testdata/forms/RECORD says how).
const formsDir = "../../parser/testdata/forms"

// TestFormsFindings: every recording gives the findings of the same save,
// whatever the flags printed around the calls.
func TestFormsFindings(t *testing.T) {
	want := readWantFile(t, filepath.Join(formsDir, "want"))
	traces, _ := filepath.Glob(filepath.Join(formsDir, "*.strace"))
	if len(traces) < 6 {
		t.Fatalf("only %d recordings in %s", len(traces), formsDir)
	}
	for _, trace := range traces {
		name := filepath.Base(trace)
		if name == "p-interrupted.strace" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			out, errs, code := runCLI(t, "check", "--format", "json", "--root", "/tmp/crashsim-forms",
				"--initial-list", filepath.Join(formsDir, "initial.list"), trace)
			if code != exitFindings {
				t.Fatalf("exit %d, want %d: %s", code, exitFindings, errs)
			}
			if name == "p.strace" {
				// strace -p attached while the shell's sleep ran: the
				// trace never shows that child, only its SIGCHLD.
				errs = strings.Replace(errs, "warning: blind-unfollowed-children: SIGCHLD names 1 child", "", 1)
			}
			if strings.Contains(errs, "warning") {
				t.Errorf("warnings: %s", errs)
			}
			var rep struct {
				Findings []struct{ Rule, Path string }
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			var got []string
			for _, f := range rep.Findings {
				if k := f.Rule + " " + f.Path; !seen[k] {
					seen[k] = true
					got = append(got, k)
				}
			}
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFormsEventsGolden pins the events of every recording, -k stacks
// included (go test ./cmd/crashsim -run TestFormsEventsGolden -update).
func TestFormsEventsGolden(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join(formsDir, "*.strace"))
	for _, trace := range traces {
		golden := strings.TrimSuffix(trace, ".strace") + ".events.jsonl"
		t.Run(filepath.Base(trace), func(t *testing.T) {
			out, errs, code := runCLI(t, "events", "--format", "json", trace)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/crashsim -run TestFormsEventsGolden -update)", err)
			}
			if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(out, "\n")); diff != "" {
				t.Errorf("%s differs from %s (-want +got):\n%s", trace, golden, diff)
			}
		})
	}
}

func readWantFile(t *testing.T, name string) []string {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Join(strings.Fields(line), " "))
	}
	sort.Strings(out)
	return out
}
