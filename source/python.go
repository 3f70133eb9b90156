package source

import (
	_ "embed"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
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
//
// Most marks come right before the call they name, in the same thread:
// the next call of that thread is the operation, when it is one the
// operation makes (Names). A write note (Op "write") is not: it says that
// a file object's write method (f.write) was called on that line, and its
// bytes reach the kernel at a later write of the same fd by the same
// thread, when the object's buffer is flushed (the shim notes these on
// Python 3.12 and later).
type Mark struct {
	Op     string // "open", "os.rename" (also os.replace), "os.fsync", "write", ...
	Loc    Location
	Target string // the path opened, removed or made; a rename's destination; "fd:N" for an fd
	From   string // a rename's or link's source
	FD     int    // a write note's fd (-1 for other marks)
}

// markCalls are the calls each operation the shim marks makes, by its
// name in the mark: the audit events' names, and "os."+name for the
// functions the shim wraps.
var markCalls = map[string][]string{
	"open":               {"open", "openat", "openat2", "creat"},
	"os.rename":          {"rename", "renameat", "renameat2"},
	"os.remove":          {"unlink", "unlinkat"},
	"os.mkdir":           {"mkdir", "mkdirat"},
	"os.rmdir":           {"rmdir", "unlinkat"},
	"os.link":            {"link", "linkat"},
	"os.symlink":         {"symlink", "symlinkat"},
	"os.truncate":        {"truncate", "truncate64", "ftruncate", "ftruncate64"},
	"os.fsync":           {"fsync"},
	"os.fdatasync":       {"fdatasync"},
	"os.sync":            {"sync"},
	"os.write":           {"write"},
	"os.pwrite":          {"pwrite64"},
	"os.writev":          {"writev"},
	"os.pwritev":         {"pwritev", "pwritev2"},
	"os.sendfile":        {"sendfile", "sendfile64"},
	"os.copy_file_range": {"copy_file_range"},
	"os.sync_file_range": {"sync_file_range", "sync_file_range2", "arm_sync_file_range"},
	"os.posix_fallocate": {"fallocate"},
}

// noteCalls are the calls that can carry a write note's bytes.
var noteCalls = []string{"write", "writev", "pwrite64", "pwritev", "pwritev2"}

// Note reports whether m is a write note rather than a mark of the next
// call.
func (m Mark) Note() bool { return m.Op == "write" }

// Names reports whether a call named call (as strace prints it) can be
// the one m names: for a write note, a call that writes an fd's bytes.
// An operation this crashsim does not know (a shim of another version)
// names whatever call comes next.
func (m Mark) Names(call string) bool {
	if m.Note() {
		return slices.Contains(noteCalls, call)
	}
	calls, ok := markCalls[m.Op]
	return !ok || slices.Contains(calls, call)
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
	m := Mark{Op: f[0], Loc: Location{File: f[1], Line: line, Function: f[3]}, Target: f[4], From: f[5], FD: -1}
	if m.Note() {
		// A write note's fifth field is its fd.
		fd, err := strconv.Atoi(f[5])
		if err != nil || fd < 0 {
			return Mark{}, errors.New("source mark: bad fd " + strconv.Quote(f[5]))
		}
		m.FD, m.From = fd, ""
	}
	return m, nil
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
