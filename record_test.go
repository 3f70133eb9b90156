package crashsim

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/tracer"
)

// TestRecord: a recorded run keeps its listing beside the trace, and its
// Inputs check the trace as it was recorded: the file the command
// replaced is known to have existed.
func TestRecord(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	dir := realDir(t.TempDir())
	t.Chdir(dir)
	os.WriteFile("old.txt", []byte("old"), 0o644)
	out := filepath.Join(t.TempDir(), "t.strace")
	rec := Record{Tracer: tracer.Options{Out: out, NoData: true}}
	res, err := rec.Run(context.Background(), []string{"sh", "-c", "printf new > new.txt; printf x > old.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Start != dir || res.Temp || res.ExitCode != 0 || len(res.Warnings) > 0 {
		t.Errorf("recording: start %q, temp %v, exit %d, warnings %v", res.Start, res.Temp, res.ExitCode, res.Warnings)
	}
	if b, err := os.ReadFile(out + ".initial"); err != nil || !strings.Contains(string(b), "\n"+dir+"/old.txt\n") {
		t.Errorf("listing: %v\n%s", err, b)
	}
	c := Check{Inputs: res.Inputs(), Scope: Scope{Roots: res.Roots}}
	found, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for f, err := range found.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		rules[filepath.Base(f.Path)] += f.Rule.ID + " "
	}
	// new.txt was created: its name is not durable either; old.txt was
	// only rewritten.
	if !strings.Contains(rules["new.txt"], check.NameNotSynced) || strings.Contains(rules["old.txt"], check.NameNotSynced) || !strings.Contains(rules["old.txt"], check.DataNotSynced) {
		t.Errorf("findings by file: %q", rules)
	}

	// A trace name that is a symlink is refused before anything runs.
	link := filepath.Join(t.TempDir(), "link.strace")
	os.Symlink(out, link)
	rec.Tracer.Out = link
	var ie *InputError
	if _, err := rec.Run(context.Background(), []string{"sh", "-c", "printf y > ran.txt"}); !errors.As(err, &ie) {
		t.Errorf("a symlinked --out: %v, want an input error", err)
	}
	if _, err := os.Stat("ran.txt"); err == nil {
		t.Error("the command ran although its trace could not be kept")
	}
}
