package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/parser"
)

type eventsCmd struct {
	Format string `enum:"text,json,count" default:"text" help:"Output format: text; json (JSON Lines, one object per event); count (parse only, print the number of events: the parser's speed)."`
	Trace  string `arg:"" help:"strace log, or the PREFIX of an strace -ff set (PREFIX.PID files)."`
}

// eventJSON is one line of `events --format json`; its field names are a
// stable interface (fixtures and users' scripts read them).
type eventJSON struct {
	Line    int      `json:"line"`
	EndLine int      `json:"end_line,omitempty"`
	PID     int      `json:"pid"`
	Time    *string  `json:"time,omitempty"`
	Kind    string   `json:"kind"`
	Syscall *string  `json:"syscall"`
	Args    []string `json:"args,omitempty"`
	Ret     *int64   `json:"ret"`
	Errno   *string  `json:"errno"`
	Path    *string  `json:"path"`
	Path2   *string  `json:"path2,omitempty"`
	Status  *int     `json:"status,omitempty"`
	Signal  string   `json:"signal,omitempty"`
	Stack   []string `json:"stack,omitempty"` // strace -k frames, innermost first
}

func (c *eventsCmd) Run(g *Globals) error {
	stream, err := openTrace(c.Trace, g)
	if err != nil {
		return err
	}
	defer stream.Close()
	data := parser.NewDataReader()
	defer data.Close()
	preview := func(ref parser.DataRef) string { return previewData(data, ref) }

	w := bufio.NewWriterSize(g.stdout, 64<<10)
	defer w.Flush()
	if c.Format == "count" {
		n := 0
		for {
			_, err := stream.Next()
			if errors.Is(err, io.EOF) {
				fmt.Fprintf(w, "%d events\n", n)
				return nil
			}
			if err != nil {
				return inputError(err)
			}
			n++
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	procs := startProcs(c.Trace)
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return inputError(err)
		}
		paths := procs.Paths(ev)
		procs.Apply(ev, paths)
		if c.Format == "json" {
			if err := enc.Encode(toJSON(ev, paths, preview)); err != nil {
				return err
			}
			continue
		}
		writeEventText(w, ev, paths, preview)
	}
}

func toJSON(ev *parser.Event, paths []string, preview func(parser.DataRef) string) eventJSON {
	j := eventJSON{Line: ev.Pos.Line, PID: ev.PID, Kind: ev.Kind.String(), Stack: ev.Stack}
	if ev.EndLine != ev.Pos.Line {
		j.EndLine = ev.EndLine
	}
	if ev.HasTime {
		t := formatTime(ev.Time)
		j.Time = &t
	}
	switch ev.Kind {
	case parser.KindSyscall:
		name := ev.Name
		j.Syscall = &name
		for i := range ev.Args {
			var b strings.Builder
			ev.Args[i].Format(&b, preview)
			j.Args = append(j.Args, b.String())
		}
		if ev.RetKnown {
			r := ev.Ret
			j.Ret = &r
		}
		if ev.Errno != "" {
			e := ev.Errno
			j.Errno = &e
		}
		if len(paths) > 0 && paths[0] != "" {
			j.Path = &paths[0]
		}
		if len(paths) > 1 && paths[1] != "" {
			j.Path2 = &paths[1]
		}
	case parser.KindSignal:
		j.Signal = ev.Name
	case parser.KindExit:
		s := ev.Status
		j.Status = &s
	case parser.KindKilled:
		j.Signal = ev.Name
	}
	return j
}

func formatTime(ns int64) string {
	return strconv.FormatInt(ns/1e9, 10) + "." + fmt.Sprintf("%09d", ns%1e9)
}

func writeEventText(w io.Writer, ev *parser.Event, paths []string, preview func(parser.DataRef) string) {
	prefix := fmt.Sprintf("%s:%-6d %-6d ", textesc.Escape(ev.Pos.File), ev.Pos.Line, ev.PID)
	switch ev.Kind {
	case parser.KindSyscall:
		line := fmt.Sprintf("%s%s(%s) = %s", prefix, ev.Name, ev.FormatArgs(preview), ev.FormatRet())
		if len(paths) > 0 && paths[0] != "" {
			line += "    # " + strings.Join(quotePaths(nonEmpty(paths)), " -> ")
		}
		fmt.Fprintln(w, line)
	case parser.KindSignal:
		fmt.Fprintf(w, "%s--- %s ---\n", prefix, ev.Name)
	case parser.KindExit:
		fmt.Fprintf(w, "%s+++ exited with %d +++\n", prefix, ev.Status)
	case parser.KindKilled:
		fmt.Fprintf(w, "%s+++ killed by %s +++\n", prefix, ev.Name)
	case parser.KindSuperseded:
		fmt.Fprintf(w, "%s+++ superseded by execve +++\n", prefix)
	}
}

// quotePaths quotes paths holding spaces or bytes that need escaping
// (textesc.Escape), so that one event stays one line.
func quotePaths(ps []string) []string {
	for i, p := range ps {
		if textesc.Escape(p) != p || strings.ContainsAny(p, " \"") {
			ps[i] = textesc.Quote(p)
		}
	}
	return ps
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// previewData shows the first bytes of a data buffer, quoted.
func previewData(data *parser.DataReader, ref parser.DataRef) string {
	const n = 32
	b, err := data.Bytes(ref, n+1)
	if err != nil {
		return "<data: " + err.Error() + ">"
	}
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}
