package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tempName matches the random part of temp file names (sed's sedXXXXXX,
// Go's .name-123456789, rsync's .name.XXXXXX).
var tempName = regexp.MustCompile(`(/sed|/\.[^/]+[.-])[A-Za-z0-9_]{6,}$`)

var update = flag.Bool("update", false, "rewrite golden files")

// flagSets are the recordings every parser fixture case has (see
// fixtures/README.md); ff-ttt is an -ff set read by its prefix.
var flagSets = []string{"f.strace", "f-tt-T-y.strace", "f-ttt-y-xx.strace", "ff-ttt/trace", "nof.strace"}

func parserCases(t *testing.T) []string {
	dirs, err := filepath.Glob("../../fixtures/traces/*/nof.strace")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no parser fixtures found: %v", err)
	}
	var cases []string
	for _, d := range dirs {
		cases = append(cases, filepath.Dir(d))
	}
	return cases
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// TestEventsGolden parses every recording of every parser fixture and
// compares the JSON Lines dump with the committed golden file.
func TestEventsGolden(t *testing.T) {
	for _, dir := range parserCases(t) {
		for _, fs := range flagSets {
			trace := filepath.Join(dir, fs)
			golden := filepath.Join(dir, strings.TrimSuffix(strings.TrimSuffix(fs, "/trace"), ".strace")+".events.jsonl")
			t.Run(filepath.Base(dir)+"/"+fs, func(t *testing.T) {
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
					t.Fatalf("%v (run go test ./cmd/crashsim -run TestEventsGolden -update)", err)
				}
				if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(out, "\n")); diff != "" {
					t.Errorf("%s differs from %s (-want +got):\n%s", trace, golden, diff)
				}
			})
		}
	}
}

// TestPathsWithoutAnnotations checks the fd model against strace itself:
// for a program recorded with -y (strace reads /proc for the paths) and
// without (crashsim models open/dup/close/chdir and inheritance), the file
// calls in the case's directory must resolve to the same paths, in the
// same order for each process. Threads are scheduled differently in each
// recording, so a multi-threaded case is compared as a sorted list.
func TestPathsWithoutAnnotations(t *testing.T) {
	for _, dir := range parserCases(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			withY := pathCalls(t, filepath.Join(dir, "f-ttt-y-xx.strace"), name)
			withoutY := pathCalls(t, filepath.Join(dir, "f.strace"), name)
			if len(withY) == 0 {
				t.Fatal("no calls in the case directory: the fixture or the filter is wrong")
			}
			if name == "go-threads" {
				sort.Strings(withY)
				sort.Strings(withoutY)
			}
			if diff := cmp.Diff(withY, withoutY); diff != "" {
				t.Errorf("paths resolved without -y differ from strace's (-with -y +without):\n%s", diff)
			}
		})
	}
}

// pathCalls lists "syscall path" for successful calls on files in the
// fixture's directory, grouped by process in order of first appearance
// (pids differ between recordings).
func pathCalls(t *testing.T, trace, name string) []string {
	out, errs, code := runCLI(t, "events", "--format", "json", trace)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", trace, code, errs)
	}
	root := "/tmp/crashsim-fixtures/" + name + "/"
	// Without -y nothing in a trace tells the cwd unless the program asks
	// (getcwd); relative paths stay relative. The recording's cwd is root.
	byPID := map[int][]string{}
	var order []int
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev eventJSON
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Syscall == nil || ev.Path == nil || ev.Errno != nil {
			continue
		}
		p := *ev.Path
		if strings.Contains(p, ":[") { // pipe:[N], socket:[N]
			continue
		}
		if !strings.HasPrefix(p, "/") {
			p = filepath.Join(root, p)
		}
		if !strings.HasPrefix(p+"/", root) {
			continue
		}
		// Temp names are random per run.
		p = tempName.ReplaceAllString(p, "${1}XXXXXX")
		// Reads of the program itself and of libraries differ by run.
		if strings.HasPrefix(p, root+".git/objects") {
			continue
		}
		if _, ok := byPID[ev.PID]; !ok {
			order = append(order, ev.PID)
		}
		byPID[ev.PID] = append(byPID[ev.PID], *ev.Syscall+" "+p)
	}
	var calls []string
	for _, pid := range order {
		calls = append(calls, byPID[pid]...)
		calls = append(calls, "--")
	}
	return calls
}

// TestProgramWhereTraceGoes: check -- sed ... names a program where a
// trace goes; the error says which commands run one.
func TestProgramWhereTraceGoes(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh in PATH")
	}
	t.Chdir(t.TempDir()) // no file named sh here
	_, stderr, code := runCLI(t, "check", "--", "sh", "-c", "true")
	if code != exitInput || !strings.Contains(stderr, "sh is a program: crashsim trace -- sh ... records and checks it") {
		t.Errorf("check -- sh: exit %d, stderr %q; want exit %d naming crashsim trace", code, stderr, exitInput)
	}
	_, stderr, _ = runCLI(t, "check", "no-such-trace")
	if strings.Contains(stderr, "is a program") {
		t.Errorf("check no-such-trace: %q names a program", stderr)
	}
}

// TestExploreRefusesAbsurdFlags: a negative bound or job count, or an
// empty checker (every state would pass), is a usage error before any
// work, not an exploration run with them.
func TestExploreRefusesAbsurdFlags(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(trace, []byte("exit_group(0) = ?\n+++ exited with 0 +++\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		says  string
	}{
		{[]string{"--checker", "true", "--max-states=-1"}, "--max-states -1"},
		{[]string{"--checker", "true", "--jobs=-1"}, "--jobs -1"},
		{[]string{"--checker", " "}, "--checker is empty"},
	} {
		args := append(append([]string{"explore", "--root", "/w"}, c.flags...), trace)
		_, stderr, code := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.says) {
			t.Errorf("explore %q: exit %d, %q; want exit %d saying %q", c.flags, code, stderr, exitUsage, c.says)
		}
	}
}
