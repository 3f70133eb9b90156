package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPipelineSameOutput: check, states and events print byte for byte the
// same, stdout and stderr, whether the trace is parsed on a goroutine of
// its own or not; the last trace has warnings among its events and ends
// in a line that does not read.
func TestPipelineSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every fixture trace in seven views, twice")
	}
	traces := modelArgsTraces(t)
	var b strings.Builder
	for i := 0; i < 600; i++ {
		b.WriteString("100 openat(AT_FDCWD, \"/tmp/p" + strconv.Itoa(i%7) + "\", O_WRONLY|O_CREAT, 0644) = 3\n")
		b.WriteString("100 write(3, \"x\", 1) = 1\n100 close(3) = 0\n")
		if i%50 == 7 {
			b.WriteString("100 <... read resumed>\"x\", 1) = 1\n")
		}
	}
	b.WriteString("100 close(1 = 0\n")
	bad := filepath.Join(t.TempDir(), "warned.strace")
	if err := os.WriteFile(bad, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	traces = append(traces, bad)
	views := append(slices.Clone(modelArgsViews), []string{"events"}, []string{"events", "--format", "count"})
	for _, trace := range traces {
		for _, view := range views {
			args := append(slices.Clone(view), trace)
			piped := runWithArgs(t, modelArgs, args...)
			pipelined = false
			plain := runWithArgs(t, modelArgs, args...)
			pipelined = true
			if piped != plain {
				t.Errorf("crashsim %s: output differs with the parsing goroutine:\n%s", strings.Join(args, " "), firstDiff(plain, piped))
			}
			if trace == bad && !strings.Contains(piped, "warning:") {
				t.Errorf("crashsim %s: no warning:\n%s", strings.Join(args, " "), piped)
			}
		}
	}
}
