package main

import (
	"path/filepath"
	"testing"
)

// TestStatesViewsGolden: the default views of states, text and JSON, which
// print at each crash point only the paths the event changed (the JSON
// with the count of the others), on a few fixtures, against goldens in
// testdata/golden-views. The --all-paths JSON of every fixture is
// TestCheckStatesGolden's. Update with -update and read the diff.
func TestStatesViewsGolden(t *testing.T) {
	fixtures := []string{"python-noflush", "git-commit", "sqlite3-delete", "dirsync-rename", "go-threads"}
	seen := map[string]bool{}
	for _, fx := range fixtures {
		trace := filepath.Join("..", "..", "fixtures", "traces", fx, "f-ttt-y-xx.strace")
		args := []string{trace}
		if list := filepath.Join(filepath.Dir(trace), "initial.list"); fileExists(list) {
			args = []string{"--initial-list", list, trace}
		}
		for _, view := range []struct{ ext, model string }{{"txt", "posix"}, {"json", "posix"}, {"txt", "ext4"}} {
			cmd := []string{"states", "--model", view.model}
			if view.ext == "json" {
				cmd = append(cmd, "--format", "json")
			}
			cmd = append(cmd, args...)
			file := filepath.Join("testdata", "golden-views", fx+".states-"+view.model+"."+view.ext)
			seen[file] = true
			goldenRun(t, file, "TestStatesViewsGolden", cmd)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden-views", "*"))
	for _, f := range files {
		if !seen[f] && !*update {
			t.Errorf("%s belongs to no run of this test: delete it", f)
		}
	}
}
