package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/parser"
)

// EventJSON is one line of `events --format json`; its field names are a
// stable interface (fixtures and users' scripts read them).
type EventJSON struct {
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
	// FormerPID is the thread whose execve superseded the process.
	FormerPID int      `json:"former_pid,omitempty"`
	Stack     []string `json:"stack,omitempty"` // strace -k frames, innermost first
}

// EventRecord is an event as `events --format json` prints it; paths are
// the files it acts on (model.Procs.Paths), preview shows written bytes.
func EventRecord(ev *parser.Event, paths []string, preview func(parser.DataRef) string) EventJSON {
	j := EventJSON{Line: ev.Pos.Line, PID: ev.PID, Kind: ev.Kind.String(), Stack: ev.Stack()}
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
		s := ev.Status()
		j.Status = &s
	case parser.KindKilled:
		j.Signal = ev.Name
	case parser.KindSuperseded:
		j.FormerPID = ev.FormerPID()
	}
	return j
}

func formatTime(ns int64) string {
	return strconv.FormatInt(ns/1e9, 10) + "." + fmt.Sprintf("%09d", ns%1e9)
}

// EventText writes an event as one line of `events`: TRACE:LINE PID call,
// and the paths it acts on.
func EventText(w io.Writer, ev *parser.Event, paths []string, preview func(parser.DataRef) string) {
	prefix := fmt.Sprintf("%s:%-6d %-6d ", textesc.Escape(ev.Pos.File), ev.Pos.Line, ev.PID)
	switch ev.Kind {
	case parser.KindSyscall:
		line := fmt.Sprintf("%s%s(%s) = %s", prefix, ev.Name, ev.FormatArgs(preview), ev.FormatRet())
		if len(paths) > 0 && paths[0] != "" {
			line += "    # " + strings.Join(QuotePaths(nonEmpty(paths)), " -> ")
		}
		fmt.Fprintln(w, line)
	case parser.KindSignal:
		fmt.Fprintf(w, "%s--- %s ---\n", prefix, ev.Name)
	case parser.KindExit:
		fmt.Fprintf(w, "%s+++ exited with %d +++\n", prefix, ev.Status())
	case parser.KindKilled:
		fmt.Fprintf(w, "%s+++ killed by %s +++\n", prefix, ev.Name)
	case parser.KindSuperseded:
		if n := ev.FormerPID(); n != 0 {
			fmt.Fprintf(w, "%s+++ superseded by execve in pid %d +++\n", prefix, n)
		} else {
			fmt.Fprintf(w, "%s+++ superseded by execve +++\n", prefix)
		}
	}
}

// QuotePaths quotes paths holding spaces or bytes that need escaping
// (textesc.Escape), so that one event stays one line.
func QuotePaths(ps []string) []string {
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

// Preview shows the first bytes of a call's data, quoted, read through
// data: the preview EventRecord and EventText take.
func Preview(data *parser.DataReader) func(parser.DataRef) string {
	return func(ref parser.DataRef) string {
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
}
