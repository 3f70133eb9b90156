package source

import (
	_ "embed"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PythonShim is a sitecustomize.py that marks, in the trace, the .py line
// behind each file operation a Python program asks for (see
// shim/sitecustomize.py). WritePythonShim puts it in a directory for
// PYTHONPATH.
//
//go:embed shim/sitecustomize.py
var PythonShim []byte

// ShimDirPrefix starts the name of the directory WritePythonShim makes; a
// trace in which Python opened a file below it has marks.
const ShimDirPrefix = "crashsim-pyshim-"

// MarkPrefix starts the path of every mark the shim opens.
const MarkPrefix = "/proc/self/crashsim-source/"

// Mark is one mark: which Python line asked for which operation.
type Mark struct {
	Op     string // "open", "os.rename" (also os.replace), "os.remove", "os.mkdir", ...
	Loc    Location
	Target string // the path opened, removed or made; a rename's destination
	From   string // a rename's or link's source
}

// ParseMark reads a mark from the path the shim opened.
func ParseMark(path string) (Mark, error) {
	h, ok := strings.CutPrefix(path, MarkPrefix)
	if !ok {
		return Mark{}, errors.New("not a crashsim source mark")
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return Mark{}, errors.New("source mark: bad hex: " + err.Error())
	}
	f := strings.Split(string(b), "\x00")
	if len(f) != 6 {
		return Mark{}, errors.New("source mark: want 6 fields, have " + strconv.Itoa(len(f)))
	}
	line, err := strconv.Atoi(f[2])
	if err != nil || line < 1 {
		return Mark{}, errors.New("source mark: bad line " + strconv.Quote(f[2]))
	}
	return Mark{Op: f[0], Loc: Location{File: f[1], Line: line, Function: f[3]}, Target: f[4], From: f[5]}, nil
}

// WritePythonShim writes the shim into a new temp directory and returns it,
// for the front of PYTHONPATH; the caller removes it.
func WritePythonShim() (string, error) {
	dir, err := os.MkdirTemp("", ShimDirPrefix+"*")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "sitecustomize.py"), PythonShim, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// IsPython reports whether a command is a Python interpreter. Its -k
// stacks name only the interpreter's C code, and strace -k unwinds them
// slowly (a small save took minutes instead of a second): for Python,
// the shim's marks name the lines instead.
func IsPython(cmd string) bool {
	base := filepath.Base(cmd)
	rest, ok := strings.CutPrefix(base, "python")
	return ok && strings.Trim(rest, "0123456789.") == ""
}

// WithShim puts the shim's directory (WritePythonShim) first on
// PYTHONPATH in env.
func WithShim(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	path := dir
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			if v != "" {
				path += string(os.PathListSeparator) + v
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PYTHONPATH="+path)
}
