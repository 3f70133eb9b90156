package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

type statesCmd struct {
	Model       string   `enum:"posix,ext4" default:"posix" help:"Persistence model: posix (the weakest promise) or ext4 (data=ordered)."`
	Root        []string `placeholder:"DIR" help:"Only paths below DIR (repeatable). Default: every path but /proc, /sys, /dev, /run and /dev/shm (a root below /run puts it back)."`
	Ignore      []string `placeholder:"GLOB" help:"Leave out paths matching GLOB (repeatable)."`
	At          int      `placeholder:"LINE" help:"Show only the crash point after the event on trace line LINE, with every state explored."`
	MaxStates   int      `name:"max-states" default:"65536" help:"Explore at most this many states per path and crash point (files with more than 16 pending operations are sampled: prefixes, one operation omitted, torn writes)."`
	Format      string   `enum:"text,json,html" default:"text" help:"Output format: text (a timeline), json, or html (one self-contained page; give -o FILE)."`
	Output      string   `short:"o" placeholder:"FILE" help:"Write the html report to FILE (atomically) instead of stdout."`
	InitialList string   `name:"initial-list" placeholder:"FILE" help:"A listing of what existed before the trace. Default: TRACE.initial when it exists."`
	Cwd         string   `placeholder:"DIR" help:"The directory the traced program started in, for relative paths in a trace recorded without -y."`
	AcceptBlind []string `name:"accept-blind" placeholder:"ID" help:"Accept a known blind spot (repeatable): it is still reported, but no longer makes the run exit 6."`
	Trace       string   `arg:"" help:"strace log, or the PREFIX of an strace -ff set."`
}

// Help is the detail under `crashsim states --help`.
func (c *statesCmd) Help() string {
	return `Replays the trace and prints, after each event that changes what a crash could leave, the outcomes each path in scope can have (missing, initial, latest, earlier, empty, torn, zeros). Blind spots of the recording (see crashsim check --help) are said on stderr.

Exit status: 0 the timeline was printed and the trace has no blind spot; 2 usage error; 3 input error; 6 the trace has a blind spot that could hide a loss (accept a known one with --accept-blind ID).`
}

// pointJSON is one crash point in `states --format json`.
type pointJSON struct {
	Index    int                 `json:"index"`
	Line     int                 `json:"line"`
	Syscall  *string             `json:"syscall"`
	States   int64               `json:"states"`
	Exact    bool                `json:"exact"`
	Explored int64               `json:"explored"`
	Paths    map[string][]string `json:"paths"`
	Detail   []detailJSON        `json:"detail"`
}

type detailJSON struct {
	Path      string `json:"path"`
	Outcome   string `json:"outcome"`
	Inode     int    `json:"inode"`
	Name      int    `json:"name_line,omitempty"`
	Persisted string `json:"persisted"`
	Applied   []int  `json:"applied,omitempty"`
	Torn      int    `json:"torn_line,omitempty"`
	TornBytes int64  `json:"torn_bytes,omitempty"`
	SizeOnly  int    `json:"size_only_line,omitempty"`
	Version   int    `json:"version_line,omitempty"`
}

func (c *statesCmd) Run(g *Globals) error {
	if c.Format == "html" {
		return c.runHTML(g)
	}
	if c.Output != "" {
		return withCode(exitUsage, errors.New("-o is for --format html; text and json go to stdout"))
	}
	p, err := model.ParsePersistence(c.Model)
	if err != nil {
		return withCode(exitUsage, err)
	}
	flags := checkFlags{InitialList: c.InitialList}
	listing, err := flags.initial(c.Trace)
	if err != nil {
		return err
	}
	if err := checkAccepted(c.AcceptBlind); err != nil {
		return err
	}
	scope := check.Options{Roots: absRoots(c.Root), Ignore: c.Ignore, LikelyVolatile: check.LikelyVolatile}
	opt := model.Options{Persistence: p}
	if listing != nil {
		opt.Existed, opt.Cwd, opt.FDs = listing.Existed, listing.Cwd, listing.FDs
	}
	if c.Cwd != "" {
		abs, err := filepath.Abs(c.Cwd)
		if err != nil {
			return withCode(exitUsage, err)
		}
		opt.Cwd = abs
	}
	scope.Cwd, scope.FDs = opt.Cwd, opt.FDs
	watch := check.NewWatcher(&scope)
	stream, err := openTrace(c.Trace, g)
	if err != nil {
		return err
	}
	defer stream.Close()
	tl := model.NewTimeline(opt, scope.InScope, c.MaxStates)

	w := bufio.NewWriterSize(g.stdout, 64<<10)
	defer w.Flush()
	var out pointWriter
	switch {
	case c.Format == "json":
		out = &jsonPoints{w: w, model: p.String(), at: c.At}
	default:
		out = &textPoints{w: w, model: p.String(), at: c.At, trace: c.Trace, roots: c.Root}
	}
	out.begin()
	if c.At == 0 {
		out.point(tl.Start())
	}
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return inputError(err)
		}
		watch.Observe(ev)
		pt, ok := tl.Step(ev)
		if !ok {
			out.skip(ev)
			continue
		}
		if c.At == 0 || ev.Pos.Line == c.At || ev.EndLine == c.At {
			out.point(pt)
		}
	}
	warnings, notes := watch.Finish()
	markAccepted(warnings, c.AcceptBlind)
	out.end(warnings, notes)
	if err := w.Flush(); err != nil {
		return err
	}
	report.BlindSpots(g.stderr, warnings)
	return blindExit(warnings)
}

func absRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		out = append(out, r)
		if abs, err := filepath.Abs(r); err == nil && abs != r {
			out = append(out, abs)
		}
	}
	return out
}

type pointWriter interface {
	begin()
	point(model.Point)
	skip(*parser.Event)
	end([]check.BlindWarning, []check.Note)
}

// textPoints writes a timeline: one block per crash point where some
// path's outcomes change, unchanged stretches folded into one line.
type textPoints struct {
	w      io.Writer
	model  string
	trace  string
	roots  []string
	at     int
	quiet  []int // lines of points since the last block where nothing moved
	blocks int
}

func (t *textPoints) begin() {
	fmt.Fprintf(t.w, "crash states of %s under the %s model\n", t.trace, t.model)
	fmt.Fprintf(t.w, "before the first event: every file as it was before the trace\n")
}

func (t *textPoints) skip(*parser.Event) {}

func (t *textPoints) point(pt model.Point) {
	if pt.Event == nil {
		return
	}
	if len(pt.Moved) == 0 && t.at == 0 {
		t.quiet = append(t.quiet, pt.Event.Line)
		return
	}
	t.fold()
	t.blocks++
	fmt.Fprintf(t.w, "\nafter line %d: %s\n", pt.Event.Line, shortCall(pt.Call))
	paths := make([]string, 0, len(pt.Paths))
	for p := range pt.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	width := 0
	for _, p := range paths {
		width = max(width, len(t.rel(p)))
	}
	for _, p := range paths {
		po := pt.Paths[p]
		mark := " "
		for _, m := range pt.Moved {
			if m == p {
				mark = "*"
			}
		}
		fmt.Fprintf(t.w, "  %s %-*s  %s\n", mark, width, t.rel(p), joinOutcomes(po.Outcomes))
		if t.at != 0 {
			for _, s := range po.States {
				fmt.Fprintf(t.w, "        %-8s persisted: %s%s\n", s.Outcome, s.Persisted, nameNote(s))
			}
		}
	}
	bound := ""
	if !pt.Exact {
		bound = "at least "
	}
	fmt.Fprintf(t.w, "  (%d of %s%d states explored)\n", pt.Explored, bound, pt.States)
}

func nameNote(s model.PathState) string {
	if s.Name != nil {
		return fmt.Sprintf("; name as line %d left it", s.Name.Line)
	}
	return ""
}

func (t *textPoints) fold() {
	switch n := len(t.quiet); {
	case n == 1:
		fmt.Fprintf(t.w, "\nafter line %d: no outcome changes\n", t.quiet[0])
	case n > 1:
		fmt.Fprintf(t.w, "\nafter lines %d-%d: no outcome changes (%d crash points)\n", t.quiet[0], t.quiet[n-1], n)
	}
	t.quiet = t.quiet[:0]
}

func (t *textPoints) end(_ []check.BlindWarning, notes []check.Note) {
	t.fold()
	for _, n := range notes {
		fmt.Fprintf(t.w, "\nnote: %s\n", n.Message)
	}
	if t.blocks == 0 && t.at != 0 {
		fmt.Fprintf(t.w, "\nno crash point after line %d: the event there changes nothing in scope\n", t.at)
	}
}

// rel shortens a path to its root, when one was given.
func (t *textPoints) rel(p string) string {
	for _, r := range t.roots {
		if abs, err := filepath.Abs(r); err == nil {
			if rel, err := filepath.Rel(abs, p); err == nil && !strings.HasPrefix(rel, "..") {
				return rel
			}
		}
	}
	return p
}

func joinOutcomes(os []model.Outcome) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, " | ")
}

// shortCall renders an event as "name(args) = ret", cut to a readable size.
func shortCall(ev *parser.Event) string {
	if ev == nil {
		return ""
	}
	args := ev.FormatArgs(func(parser.DataRef) string { return "..." })
	if len(args) > 80 {
		args = args[:77] + "..."
	}
	return fmt.Sprintf("%s(%s) = %s", ev.Name, args, ev.FormatRet())
}

type jsonPoints struct {
	w     io.Writer
	model string
	at    int
	n     int
}

func (j *jsonPoints) begin()             { fmt.Fprintf(j.w, "{\"model\": %q, \"points\": [", j.model) }
func (j *jsonPoints) skip(*parser.Event) {}
func (j *jsonPoints) end(ws []check.BlindWarning, ns []check.Note) {
	w, _ := json.Marshal(append([]check.BlindWarning{}, ws...))
	n, _ := json.Marshal(append([]check.Note{}, ns...))
	fmt.Fprintf(j.w, "\n],\n\"warnings\": %s,\n\"notes\": %s}\n", w, n)
}

func (j *jsonPoints) point(pt model.Point) {
	pj := pointJSON{Index: pt.Index, States: pt.States, Exact: pt.Exact, Explored: pt.Explored, Paths: map[string][]string{}, Detail: []detailJSON{}}
	if pt.Event != nil {
		pj.Line = pt.Event.Line
		name := pt.Event.Syscall
		pj.Syscall = &name
	}
	for p, po := range pt.Paths {
		os := make([]string, len(po.Outcomes))
		for i, o := range po.Outcomes {
			os[i] = string(o)
		}
		pj.Paths[p] = os
	}
	for _, p := range pt.Changed {
		for _, s := range pt.Paths[p].States {
			d := detailJSON{Path: p, Outcome: string(s.Outcome), Inode: s.Inode, Persisted: s.Persisted,
				Applied: s.Applied, Torn: s.Torn, TornBytes: s.TornBytes, SizeOnly: s.SizeOnly}
			if s.Name != nil {
				d.Name = s.Name.Line
			}
			if s.Version != nil {
				d.Version = s.Version.Line
			}
			pj.Detail = append(pj.Detail, d)
		}
	}
	b, _ := json.Marshal(pj)
	if j.n > 0 {
		fmt.Fprint(j.w, ",")
	}
	j.n++
	fmt.Fprintf(j.w, "\n%s", b)
}
