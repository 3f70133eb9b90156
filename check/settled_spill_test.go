package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/parser"
)

// TestSettledSpillError: a check of more settled files than the models
// keep in memory puts their records in a temp file in TMPDIR, which it
// leaves empty; where that file cannot be made, Run fails and says so,
// rather than answer from records it does not have.
func TestSettledSpillError(t *testing.T) {
	var trace bytes.Buffer
	const files = 6000 // past the 4096 records the models keep in memory
	if _, err := gentrace.WriteFileSet(&trace, gentrace.FileSetOptions{Files: files, Seed: 1, Settled: true}); err != nil {
		t.Fatal(err)
	}
	run := func() (*Result, error) {
		return Run(parser.NewReader(bytes.NewReader(trace.Bytes()), "settled.strace", parser.Options{}), Options{})
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	res, err := run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Files != files {
		t.Errorf("%d files in scope, want %d", res.Summary.Files, files)
	}
	res.Close()
	if ents, err := os.ReadDir(dir); err != nil || len(ents) > 0 {
		t.Errorf("TMPDIR after the check: %v, %v", ents, err)
	}
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	res, err = run()
	if err == nil {
		res.Close()
		t.Fatal("a check with no temp file for its settled files succeeded")
	}
	if !strings.Contains(err.Error(), "TMPDIR") || !strings.Contains(err.Error(), "missing") {
		t.Errorf("the error does not say where it could not write: %v", err)
	}
}
