package oracle

import (
	"os"
	"path/filepath"
	"strings"
)

// interpreters take the program as their first argument.
var interpreters = map[string]bool{"python": true, "python3": true, "sh": true, "bash": true, "dash": true, "perl": true, "ruby": true, "node": true}

// ProgramHere makes the program's path absolute when it is relative to
// where the user stands (./save, fixtures/programs/save.py), since the
// oracle runs it in the image's work directory. Only the program itself,
// or an interpreter's script, is changed: other arguments name the files
// the program works on, which are meant to be in the work directory.
func ProgramHere(args []string) []string {
	out := append([]string{}, args...)
	fix := func(i int) {
		p := out[i]
		if !strings.Contains(p, "/") || filepath.IsAbs(p) {
			return
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			if abs, err := filepath.Abs(p); err == nil {
				out[i] = abs
			}
		}
	}
	fix(0)
	if len(out) > 1 && interpreters[filepath.Base(out[0])] && !strings.HasPrefix(out[1], "-") {
		fix(1)
	}
	return out
}
