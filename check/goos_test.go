package check

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsElsewhere: the packages that only read text (the parser, the
// model and the rules) use no host-specific constant, so they build for
// macOS too, as docs/architecture.md says. Cross-compiling the standard
// library the first time takes a while: not in -short.
func TestBuildsElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the standard library: not in -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to cross-compile with")
	}
	cmd := exec.Command(goTool, "build", "-o", os.DevNull, "./parser", "./model", "./check")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=darwin go build ./parser ./model ./check: %v\n%s", err, out)
	}
}
