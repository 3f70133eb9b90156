package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgress shows the bar when asked (stderr is not a terminal here),
// and nothing otherwise; stdout is the same either way.
func TestProgress(t *testing.T) {
	old := progressDelay
	progressDelay = 0
	defer func() { progressDelay = old }()
	// Large enough for several reads, so that the bar shows before the end.
	trace := filepath.Join(t.TempDir(), "big.strace")
	line := "1234 write(1, \"x\", 1) = 1\n"
	start := "1234 execve(\"/bin/yes\", [\"yes\"], 0x7ffd /* 3 vars */) = 0\n"
	if err := os.WriteFile(trace, []byte(start+strings.Repeat(line, 8<<20/len(line))+"1234 exit_group(0) = ?\n1234 +++ exited with 0 +++\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "--progress", "check", trace)
	if code != exitOK || !strings.Contains(errOut, "crashsim: reading big.strace") {
		t.Errorf("--progress: exit %d, stderr %q", code, errOut)
	}
	plain, errPlain, _ := runCLI(t, "check", trace)
	if errPlain != "" {
		t.Errorf("without --progress, not a terminal: stderr %q, want nothing", errPlain)
	}
	if out != plain {
		t.Errorf("--progress changed stdout")
	}
}
