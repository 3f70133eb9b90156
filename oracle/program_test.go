package oracle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProgramHere(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("bin", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("bin/save", []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("bin/save")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, want []string }{
		{[]string{"python3", "bin/save", "out/x"}, []string{"python3", abs, "out/x"}},
		{[]string{"bin/save", "bin/save"}, []string{abs, "bin/save"}},
		{[]string{"sh", "-c", "bin/save"}, []string{"sh", "-c", "bin/save"}},
		{[]string{"python3", "no/such.py"}, []string{"python3", "no/such.py"}},
		{[]string{"true"}, []string{"true"}},
	} {
		if diff := cmp.Diff(tt.want, ProgramHere(tt.in)); diff != "" {
			t.Errorf("ProgramHere(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
