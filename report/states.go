package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report/wire"
)

// PointJSON is one crash point in `states --format json`; its field
// names are a stable interface.
type PointJSON struct {
	Index int `json:"index"`
	Line  int `json:"line"`
	// Trace is the file Line is in when that is not the trace given: a
	// process's own file of an -ff set.
	Trace    string              `json:"trace,omitempty"`
	Syscall  *string             `json:"syscall"`
	States   int64               `json:"states"`
	Exact    bool                `json:"exact"`
	Explored int64               `json:"explored"`
	Paths    map[string][]string `json:"paths"`
	Detail   []DetailJSON        `json:"detail"`
}

// PointChangesJSON is one crash point in the default `states --format
// json` view: Paths holds only the paths the event changed (those Detail
// describes), Moved those of them whose outcome set changed, and
// Unchanged how many other paths in scope keep the sets they had at the
// point before. `--all-paths` prints PointJSON, every path at every point.
type PointChangesJSON struct {
	PointJSON
	Moved     []string `json:"moved"`
	Unchanged int      `json:"unchanged"`
}

// DetailJSON is one explored state of a changed path.
type DetailJSON struct {
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

// PointWriter renders the crash points of a timeline as they come: Begin,
// Point for each crash point (Skip for an event without one), End.
type PointWriter interface {
	Begin()
	Point(model.Point)
	Skip(*parser.Event)
	End([]check.BlindWarning, []check.Note)
}

// StatesOptions shape a timeline's rendering.
type StatesOptions struct {
	Trace string   // the trace's name, for the heading
	Model string   // the persistence model's name
	Roots []string // paths are shown relative to the first root holding them
	At    int      // only the crash point after this line, with every state
	// AtFile is the file of an -ff set whose line At is (its path or base
	// name), "" for the line in any file. The replay picks the point by
	// it; the point is rendered the same way.
	AtFile string
	// AllPaths makes the JSON view list every path at every point, not
	// only the paths each event changed.
	AllPaths bool
}

// StatesText renders a timeline for a person: one block per crash point
// where some path's outcomes change, unchanged stretches folded.
func StatesText(w io.Writer, opt StatesOptions) PointWriter {
	return &textPoints{w: w, model: opt.Model, at: opt.At, trace: opt.Trace, roots: opt.Roots}
}

// StatesJSON renders a timeline as one JSON document (`crashsim states
// --format json`), written point by point.
func StatesJSON(w io.Writer, opt StatesOptions) PointWriter {
	return &jsonPoints{e: wire.NewEncoder(w, wire.Compact), model: opt.Model, at: opt.At, all: opt.AllPaths, trace: opt.Trace}
}

// textPoints writes a timeline: one block per crash point where some
// path's outcomes change, unchanged stretches folded into one line.
type textPoints struct {
	w      io.Writer
	model  string
	trace  string
	roots  []string
	at     int
	quiet  []model.Ref // the events of points since the last block where nothing moved
	blocks int
}

func (t *textPoints) Begin() {
	fmt.Fprintf(t.w, "crash states of %s under the %s model\n", textesc.Escape(t.trace), t.model)
	fmt.Fprintf(t.w, "before the first event: every file as it was before the trace\n")
}

func (t *textPoints) Skip(*parser.Event) {}

func (t *textPoints) Point(pt model.Point) {
	if pt.Event == nil {
		return
	}
	if len(pt.Moved) == 0 && t.at == 0 {
		t.quiet = append(t.quiet, *pt.Event)
		return
	}
	t.fold()
	t.blocks++
	fmt.Fprintf(t.w, "\nafter %s: %s\n", t.completed(*pt.Event), pt.Call.Brief(80, nil))
	// One crash point in full (--at): every path, with its states. Else
	// the paths whose outcomes changed here; the others are as above.
	var paths []string
	var outcomes func(string) model.PathOutcomes
	if t.at != 0 {
		all := pt.All()
		paths = make([]string, 0, len(all))
		for p := range all {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		outcomes = func(p string) model.PathOutcomes { return all[p] }
	} else {
		paths = pt.Moved
		outcomes = func(p string) model.PathOutcomes { po, _ := pt.Outcome(p); return po }
	}
	width := 0
	for _, p := range paths {
		width = max(width, len(textesc.Escape(t.rel(p))))
	}
	for _, p := range paths {
		mark := " "
		if _, moved := slices.BinarySearch(pt.Moved, p); moved {
			mark = "*"
		}
		po := outcomes(p)
		fmt.Fprintf(t.w, "  %s %-*s  %s\n", mark, width, textesc.Escape(t.rel(p)), model.OutcomeList(po.Outcomes))
		if t.at != 0 {
			for _, s := range po.States {
				fmt.Fprintf(t.w, "        %-8s persisted: %s%s\n", s.Outcome, s.Persisted, t.nameNote(s))
			}
		}
	}
	if n := pt.Paths - len(paths); n > 0 {
		fmt.Fprintf(t.w, "    and %d other %s, unchanged\n", n, plural(n, "path", "paths"))
	}
	fmt.Fprintf(t.w, "  (%s of %s states explored)\n", StateCount(pt.Explored, true), StateCount(pt.States, pt.Exact))
}

// StateCount prints a count of crash states for a person: a count that
// only bounds the true number says "at least", and one that reached the
// counters' ceiling of 2^62 says so rather than print its 19 digits.
func StateCount(n int64, exact bool) string {
	switch {
	case n >= 1<<62:
		return "at least 2^62"
	case !exact:
		return fmt.Sprintf("at least %d", n)
	}
	return fmt.Sprint(n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// named reports whether event r is in a file other than the trace's
// name: a process's own file of an -ff set, whose lines need its name.
func (t *textPoints) named(r model.Ref) bool { return otherFile(r, t.trace) }

// otherFile reports whether event r is in a file other than trace, the
// name the trace was given by.
func otherFile(r model.Ref, trace string) bool { return r.File != "" && r.File != trace }

// line names event r's line: "line 12", or in an -ff set "trace.4242:12"
// (the base name of its file, as a state's words name it).
func (t *textPoints) line(r model.Ref) string {
	if t.named(r) {
		return textesc.Escape(filepath.Base(r.File)) + ":" + strconv.Itoa(r.Line)
	}
	return "line " + strconv.Itoa(r.Line)
}

// completed names the line where event r completed, which a crash point
// comes after: for a call other threads' lines cut in two, the line of
// its resumed half, with the line it began on ("line 25 (begun on line
// 11)").
func (t *textPoints) completed(r model.Ref) string {
	if c := r.Completed(); c != r.Line {
		end := r
		end.Line = c
		return t.line(end) + " (begun on " + t.line(r) + ")"
	}
	return t.line(r)
}

func (t *textPoints) nameNote(s model.PathState) string {
	switch {
	case s.Gone != "":
		return fmt.Sprintf("; its directory %s is missing", s.Gone)
	case s.Name != nil:
		return fmt.Sprintf("; name as %s left it", t.line(*s.Name))
	}
	return ""
}

func (t *textPoints) fold() {
	switch n := len(t.quiet); {
	case n == 1:
		fmt.Fprintf(t.w, "\nafter %s: no outcome changes\n", t.line(t.quiet[0]))
	case n > 1 && (t.named(t.quiet[0]) || t.named(t.quiet[n-1])):
		fmt.Fprintf(t.w, "\nafter %s to %s: no outcome changes (%d crash points)\n", t.line(t.quiet[0]), t.line(t.quiet[n-1]), n)
	case n > 1:
		fmt.Fprintf(t.w, "\nafter lines %d-%d: no outcome changes (%d crash points)\n", t.quiet[0].Line, t.quiet[n-1].Line, n)
	}
	t.quiet = t.quiet[:0]
}

func (t *textPoints) End(_ []check.BlindWarning, notes []check.Note) {
	t.fold()
	for _, n := range notes {
		fmt.Fprintf(t.w, "\nnote: %s\n", n.Message)
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

// jsonPoints writes what json.Marshal writes of each value, compact and
// HTML escaped, between its own punctuation.
type jsonPoints struct {
	e     *wire.Encoder
	model string
	trace string
	at    int
	all   bool
	n     int
	// pj and moved are reused from point to point: a database's trace
	// has a point at every page it writes.
	pj    PointJSON
	moved []string
}

func (j *jsonPoints) Begin() {
	if j.all {
		j.e.Raw(fmt.Sprintf("{\"model\": %q, \"points\": [", j.model))
		return
	}
	j.e.Raw(fmt.Sprintf("{\"model\": %q, \"view\": \"changed\", \"points\": [", j.model))
}
func (j *jsonPoints) Skip(*parser.Event) {}
func (j *jsonPoints) End(ws []check.BlindWarning, ns []check.Note) {
	j.e.Raw("\n],\n\"warnings\": ")
	j.e.Value(wireWarnings(ws))
	j.e.Raw(",\n\"notes\": ")
	j.e.Value(wireNotes(ns))
	j.e.Raw("}\n")
	j.e.Flush()
}

func (j *jsonPoints) Point(pt model.Point) {
	if j.pj.Paths == nil {
		j.pj.Paths, j.pj.Detail, j.moved = map[string][]string{}, []DetailJSON{}, []string{}
	}
	clear(j.pj.Paths)
	pj := PointJSON{Index: pt.Index, States: pt.States, Exact: pt.Exact, Explored: pt.Explored, Paths: j.pj.Paths, Detail: j.pj.Detail[:0]}
	if pt.Event != nil {
		pj.Line = pt.Event.Line
		if otherFile(*pt.Event, j.trace) {
			pj.Trace = pt.Event.File
		}
		name := pt.Event.Syscall
		pj.Syscall = &name
	}
	if j.all {
		for p, po := range pt.All() {
			pj.Paths[p] = outcomeStrings(po)
		}
	} else {
		for i, p := range pt.Changed {
			pj.Paths[p] = outcomeStrings(pt.Outcomes[i])
		}
	}
	for i, p := range pt.Changed {
		for _, s := range pt.Outcomes[i].States {
			d := DetailJSON{Path: p, Outcome: string(s.Outcome), Inode: s.Inode, Persisted: s.Persisted,
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
	j.pj.Detail = pj.Detail
	if j.n > 0 {
		j.e.Raw(",")
	}
	j.n++
	j.e.Raw("\n")
	if j.all {
		writePoint(j.e, &pj, nil)
	} else {
		j.moved = append(j.moved[:0], pt.Moved...)
		writePoint(j.e, &pj, &PointChangesJSON{Moved: j.moved, Unchanged: pt.Paths - len(pt.Changed)})
	}
}

// writePoint writes pj as encoding/json writes it in the encoder's
// style, by hand: reflection over each point and each of its states was
// a third of the work of states --format json on a database's trace,
// which has a point at every page it writes. With ch it writes a
// PointChangesJSON: pj, then ch's Moved and Unchanged (ch's own PointJSON
// is not read). TestWritePointIsJSON holds it to encoding/json.
func writePoint(e *wire.Encoder, pj *PointJSON, ch *PointChangesJSON) {
	e.BeginObject()
	e.IntField("index", pj.Index)
	e.IntField("line", pj.Line)
	if pj.Trace != "" {
		e.StringField("trace", pj.Trace)
	}
	e.Key("syscall")
	if pj.Syscall == nil {
		e.Null()
	} else {
		e.String(*pj.Syscall)
	}
	e.Key("states")
	e.Int64(pj.States)
	e.Key("exact")
	e.Bool(pj.Exact)
	e.Key("explored")
	e.Int64(pj.Explored)
	e.Key("paths")
	if pj.Paths == nil {
		e.Null()
	} else {
		keys := make([]string, 0, len(pj.Paths))
		for p := range pj.Paths {
			keys = append(keys, p)
		}
		slices.Sort(keys) // encoding/json's order of a map's keys
		e.BeginObject()
		for _, p := range keys {
			e.Key(p)
			e.Strings(pj.Paths[p])
		}
		e.EndObject()
	}
	e.Key("detail")
	if pj.Detail == nil {
		e.Null()
	} else {
		e.BeginArray()
		for i := range pj.Detail {
			writeDetail(e, &pj.Detail[i])
		}
		e.EndArray()
	}
	if ch != nil {
		e.Key("moved")
		e.Strings(ch.Moved)
		e.IntField("unchanged", ch.Unchanged)
	}
	e.EndObject()
}

// writeDetail writes d as encoding/json does (see writePoint).
func writeDetail(e *wire.Encoder, d *DetailJSON) {
	e.BeginObject()
	e.StringField("path", d.Path)
	e.StringField("outcome", d.Outcome)
	e.IntField("inode", d.Inode)
	if d.Name != 0 {
		e.IntField("name_line", d.Name)
	}
	e.StringField("persisted", d.Persisted)
	if len(d.Applied) > 0 {
		e.Key("applied")
		e.Ints(d.Applied)
	}
	if d.Torn != 0 {
		e.IntField("torn_line", d.Torn)
	}
	if d.TornBytes != 0 {
		e.Key("torn_bytes")
		e.Int64(d.TornBytes)
	}
	if d.SizeOnly != 0 {
		e.IntField("size_only_line", d.SizeOnly)
	}
	if d.Version != 0 {
		e.IntField("version_line", d.Version)
	}
	e.EndObject()
}

func outcomeStrings(po model.PathOutcomes) []string {
	os := make([]string, len(po.Outcomes))
	for i, o := range po.Outcomes {
		os[i] = string(o)
	}
	return os
}
