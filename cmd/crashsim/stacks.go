package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/source"
)

// strace -k prints each call's stack under it; the parser keeps those
// frames with their event (Event.Stack). Findings name trace lines, so
// stacksAt reads the stacks of just the lines findings point at, in a second
// pass over the trace, rather than holding a stack for each of the millions
// of events no finding names.

// hasStacks reports whether a trace file's first lines hold strace -k
// frames.
func hasStacks(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte("\n > "))
}

// hasMarks reports whether a trace holds marks of crashsim's Python shim.
// Unlike stacks, the first mark can come late (after the interpreter's
// start-up), so the whole file is searched, once, for findings only.
func hasMarks(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		b, err := br.ReadSlice('\n')
		for _, p := range markPrefixes {
			if bytes.Contains(b, p) {
				return true
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			return false
		}
	}
}

// stacksAt returns the stack of each call that starts on one of lines in a
// trace file. A call split by another process's line has its stack under
// the resumed half; the parser gives it to the call, which starts on the
// line a finding names.
func stacksAt(name string, lines map[int]bool) (map[int][]string, error) {
	stream, err := parser.Open(name, parser.Options{DecodeArgs: func(string) bool { return false }})
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	out := map[int][]string{}
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if lines[ev.Pos.Line] && len(ev.Stack()) > 0 {
			out[ev.Pos.Line] = ev.Stack()
		}
	}
}

// locateFindings sets the Source of each finding whose trace has stacks
// (or Python marks) to its call site in the program's code. Problems
// reading a binary are said once each on stderr; the findings keep their
// trace lines.
func locateFindings(g *Globals, findings []*check.Finding) {
	byTrace := map[string][]*check.Finding{}
	for _, f := range findings {
		byTrace[f.Trace] = append(byTrace[f.Trace], f)
	}
	r := source.NewResolver()
	said := map[string]bool{}
	for trace, fs := range byTrace {
		stacked := hasStacks(trace)
		// Marks come only with trace --stack: a trace without stacks or
		// the shim is not searched end to end for them.
		if (stacked || hasShim(trace)) && hasMarks(trace) {
			marks, err := readMarks(trace)
			if err != nil {
				fmt.Fprintf(g.stderr, "crashsim: warning: cannot read the Python source marks in %s: %v\n", trace, err)
			}
			markSources(fs, marks)
		}
		if !stacked {
			continue
		}
		lines := map[int]bool{}
		for _, f := range fs {
			lines[f.Line] = true
		}
		stacks, err := stacksAt(trace, lines)
		if err != nil {
			fmt.Fprintf(g.stderr, "crashsim: warning: cannot read the stacks in %s: %v\n", trace, err)
			continue
		}
		for _, f := range fs {
			if f.Source != nil {
				continue // a Python mark named it
			}
			loc, ok, err := r.Locate(stacks[f.Line])
			if err != nil && !said[err.Error()] {
				said[err.Error()] = true
				fmt.Fprintf(g.stderr, "crashsim: warning: no source line for %s:%d: %v\n", f.Trace, f.Line, err)
			}
			if ok {
				f.Source = &loc
			}
		}
	}
}
