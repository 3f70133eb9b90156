package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProgramHere(t *testing.T) {
	abs, err := filepath.Abs("testdata/script/cli_usage.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, want []string }{
		{[]string{"python3", "testdata/script/cli_usage.txtar", "out/x"}, []string{"python3", abs, "out/x"}},
		{[]string{"testdata/script/cli_usage.txtar", "testdata/script/cli_usage.txtar"}, []string{abs, "testdata/script/cli_usage.txtar"}},
		{[]string{"sh", "-c", "testdata/script/cli_usage.txtar"}, []string{"sh", "-c", "testdata/script/cli_usage.txtar"}},
		{[]string{"python3", "no/such.py"}, []string{"python3", "no/such.py"}},
		{[]string{"true"}, []string{"true"}},
	} {
		if diff := cmp.Diff(tt.want, programHere(tt.in)); diff != "" {
			t.Errorf("programHere(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
