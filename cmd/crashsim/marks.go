package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/source"
)

// Python source lines come from the marks crashsim's shim leaves in the
// trace (source.PythonShim): a failed open of a path below
// source.MarkPrefix just before the operation it names. Like stacks.go,
// this reads the trace text itself until the parser hands events over with
// what it needs.

// markPrefixes are the mark's path prefix as strace prints it: plain, and
// with -xx every byte as \xNN.
var markPrefixes = [][]byte{[]byte(`"` + source.MarkPrefix), []byte(`"` + hexEscape(source.MarkPrefix))}

func hexEscape(s string) string {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\x%02x`, s[i])
	}
	return b.String()
}

// lineMark is a mark and the trace line of the call it names.
type lineMark struct {
	line int
	source.Mark
}

// readMarks returns the marks of a trace in order, each with the line of
// the call that followed it in the same process.
func readMarks(name string) ([]lineMark, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []lineMark
	pending := map[int]source.Mark{} // pid → mark waiting for its call
	br := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		b, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			_, err = br.ReadSlice('\n')
		}
		if len(b) == 0 && err != nil {
			return out, nil
		}
		b = bytes.TrimRight(b, "\n")
		if bytes.HasPrefix(b, []byte(" > ")) || bytes.Contains(b, []byte(" resumed>")) || bytes.HasPrefix(b, []byte("+++")) || bytes.HasPrefix(b, []byte("---")) {
			continue
		}
		pid := linePID(b)
		if m, ok := markOn(b); ok {
			pending[pid] = m
			continue
		}
		if m, ok := pending[pid]; ok {
			delete(pending, pid)
			out = append(out, lineMark{line: n, Mark: m})
		}
	}
}

// markOn reads the mark on a trace line, if it holds one.
func markOn(b []byte) (source.Mark, bool) {
	for _, p := range markPrefixes {
		i := bytes.Index(b, p)
		if i < 0 {
			continue
		}
		s, ok := unquoteC(b[i:])
		if !ok {
			return source.Mark{}, false
		}
		m, err := source.ParseMark(s)
		return m, err == nil
	}
	return source.Mark{}, false
}

// unquoteC reads the C string strace printed at the start of b.
func unquoteC(b []byte) (string, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	var out []byte
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return string(out), true
		case c != '\\':
			out = append(out, c)
		case i+1 >= len(b):
			return "", false
		case b[i+1] == 'x' && i+3 < len(b):
			v, err := strconv.ParseUint(string(b[i+2:i+4]), 16, 8)
			if err != nil {
				return "", false
			}
			out = append(out, byte(v))
			i += 3
		default:
			i++
			switch b[i] {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			default:
				out = append(out, b[i])
			}
		}
	}
	return "", false
}

// markSources names the Python line of each finding: the mark on the
// finding's own call (a rename, an open, a remove) when there is one, else
// the line that last opened the file under any of its names before the
// finding's call (the with open(...) of a write that was never synced).
func markSources(findings []*check.Finding, marks []lineMark) {
	byLine := map[int]source.Mark{}
	for _, m := range marks {
		byLine[m.line] = m.Mark
	}
	for _, f := range findings {
		if m, ok := byLine[f.Line]; ok {
			loc := m.Loc
			f.Source = &loc
			continue
		}
		// The names the file had: its final name, and what was renamed
		// or linked onto one of them, back to the first.
		names := map[string]bool{f.Path: true}
		for i := len(marks) - 1; i >= 0; i-- {
			if m := marks[i]; m.From != "" && names[m.Target] {
				names[m.From] = true
			}
		}
		for i := len(marks) - 1; i >= 0; i-- {
			if m := marks[i]; m.line <= f.Line && m.Op == "open" && names[m.Target] {
				loc := m.Loc
				f.Source = &loc
				break
			}
		}
	}
}

// withPythonPath puts dir first on PYTHONPATH in env.
func withPythonPath(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	path := dir
	for _, kv := range env {
		if v, ok := bytes.CutPrefix([]byte(kv), []byte("PYTHONPATH=")); ok {
			if len(v) > 0 {
				path += string(os.PathListSeparator) + string(v)
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PYTHONPATH="+path)
}

// isPython reports whether a command is a Python interpreter. Its stacks
// name only the interpreter's C code, and strace -k unwinds them slowly
// (a small save took minutes instead of a second): for Python, --stack
// relies on the shim's marks alone.
func isPython(cmd string) bool {
	base := filepath.Base(cmd)
	rest, ok := strings.CutPrefix(base, "python")
	return ok && strings.Trim(rest, "0123456789.") == ""
}

// hasShim reports whether a Python program in the trace loaded crashsim's
// shim: its sitecustomize.py is opened while the interpreter starts, long
// before the program's own work.
func hasShim(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 8<<20)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(source.ShimDirPrefix))
}

// linePID reads the pid that starts a -f line ("123 " or "[pid 123] "), 0
// when there is none.
func linePID(b []byte) int {
	b = bytes.TrimPrefix(b, []byte("[pid"))
	b = bytes.TrimLeft(b, " ")
	end := bytes.IndexByte(b, ' ')
	if end <= 0 {
		return 0
	}
	tok := bytes.TrimSuffix(b[:end], []byte("]"))
	pid, err := strconv.Atoi(string(tok))
	if err != nil {
		return 0
	}
	return pid
}
