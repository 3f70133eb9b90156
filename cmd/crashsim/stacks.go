package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/source"
)

// This file is the bridge between strace -k stacks and findings until the
// parser keeps each event's stack (Event.Stack). Until then:
//
//   - stackBlanker hides the " > frame" lines from the parser, which would
//     reject them, by turning them into blank lines of the same length, so
//     that line numbers and the file offsets of written data stay true;
//   - stacksAt reads the stacks of the few lines that findings point at in
//     a second pass over the trace, so that no stack is held for the
//     millions of events no finding names.
//
// Once Event.Stack exists, the blanker goes and stacksAt can be replaced by
// keeping the stacks of the events findings name.

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

// stackBlanker replaces each line that starts " >" with spaces, keeping
// its newline.
type stackBlanker struct {
	r     io.Reader
	start bool // the next byte starts a line
	space bool // the line so far is one space
	blank bool // in a stack line
}

func (s *stackBlanker) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for i := 0; i < n; i++ {
		c := p[i]
		switch {
		case c == '\n':
			s.start, s.space, s.blank = true, false, false
			continue
		case s.blank:
			p[i] = ' '
		case s.start:
			s.space = c == ' '
		case s.space && c == '>':
			s.blank = true
			p[i] = ' '
		default:
			s.space = false
		}
		s.start = false
	}
	return n, err
}

// stacksAt returns the stack under each call that starts on one of lines
// in a trace file. A call split by another process's line has its stack
// under the resumed half; it is given to the line the call starts on.
func stacksAt(name string, lines map[int]bool) (map[int][]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[int][]string{}
	unfinished := map[int]int{} // pid → line of its unfinished call
	owner := 0                  // the line whose stack the next frames are
	br := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		b, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			// A long line (written data) is never a frame; skip the rest.
			_, err = br.ReadSlice('\n')
		}
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		b = bytes.TrimRight(b, "\n")
		if bytes.HasPrefix(b, []byte(" > ")) {
			if lines[owner] {
				out[owner] = append(out[owner], string(b[3:]))
			}
			continue
		}
		pid := linePID(b)
		switch {
		case bytes.HasSuffix(b, []byte("<unfinished ...>")):
			unfinished[pid] = n
			owner = 0
		case bytes.Contains(b, []byte(" resumed>")):
			owner = unfinished[pid]
			delete(unfinished, pid)
		default:
			owner = n
		}
	}
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

// findingSources names the call site in the program's code of each
// finding whose trace has stacks. Problems reading a binary are said once
// each on stderr; the findings keep their trace lines.
func findingSources(g *Globals, findings []*check.Finding) map[*check.Finding]source.Location {
	byTrace := map[string][]*check.Finding{}
	for _, f := range findings {
		byTrace[f.Trace] = append(byTrace[f.Trace], f)
	}
	out := map[*check.Finding]source.Location{}
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
			markSources(fs, marks, out)
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
			if _, ok := out[f]; ok {
				continue // a Python mark named it
			}
			loc, ok, err := r.Locate(stacks[f.Line])
			if err != nil && !said[err.Error()] {
				said[err.Error()] = true
				fmt.Fprintf(g.stderr, "crashsim: warning: no source line for %s:%d: %v\n", f.Trace, f.Line, err)
			}
			if ok {
				out[f] = loc
			}
		}
	}
	return out
}
