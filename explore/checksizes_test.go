package explore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/explore"
)

// TestExploreCheckKnowsSizes: the check explore runs to say which states
// its findings predicted gets the snapshot's file sizes, as explore's own
// models do and as crashsim check gets a listing's. A file from before
// the run, rewritten in place by two writes with no stat to show its
// size, is overwrite-in-place's under check with a listing; without the
// sizes explore's check took the writes for appends, and the torn state
// the checker rejects was predicted by nothing.
func TestExploreCheckKnowsSizes(t *testing.T) {
	dir := t.TempDir()
	root, initial := filepath.Join(dir, "root"), filepath.Join(dir, "initial")
	for d, content := range map[string]string{root: "BBBBBBBBBBBBBBBBBBB\n", initial: "AAAAAAAAAAAAAAAAAAA\n"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "data"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := root + "/data"
	lines := fmt.Sprintf("400 1796660000.000001 openat(AT_FDCWD<%s>, \"data\", O_RDWR) = 3<%s>\n", root, data) +
		fmt.Sprintf("400 1796660000.000002 pwrite64(3<%s>, \"BBBBBBBBBB\", 10, 0) = 10\n", data) +
		fmt.Sprintf("400 1796660000.000003 pwrite64(3<%s>, \"BBBBBBBBB\", 9, 10) = 9\n", data) +
		fmt.Sprintf("400 1796660000.000004 fsync(3<%s>) = 0\n", data) +
		fmt.Sprintf("400 1796660000.000005 close(3<%s>) = 0\n", data) +
		"400 1796660000.000006 exit_group(0) = ?\n" +
		"400 1796660000.000007 +++ exited with 0 +++\n"
	trace := filepath.Join(dir, "t.strace")
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	e := crashsim.Explore{Inputs: crashsim.Inputs{Traces: []string{trace}}, Options: explore.Options{
		Root: root, Initial: initial, Checker: `grep -qx "AAAAAAAAAAAAAAAAAAA\|BBBBBBBBBBBBBBBBBBB" data`, Timeout: 20 * time.Second, WorkDir: t.TempDir()}}
	out, res, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	predicted := false
	for _, f := range res.Findings {
		predicted = predicted || strings.Contains(f.Message, "torn") && strings.HasSuffix(f.Message, "; predicted by overwrite-in-place")
	}
	if !predicted {
		for _, f := range res.Findings {
			t.Log(f.Message)
		}
		t.Error("no rejected torn state predicted by overwrite-in-place")
	}
}
