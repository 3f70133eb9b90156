package report

import (
	_ "embed"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report/wire"
)

// The page's style and script, inlined into every report so that it opens
// from a CI artifact or a mail attachment with no network.
var (
	//go:embed html_assets/report.css
	htmlCSS string
	//go:embed html_assets/report.js
	htmlJS string
)

// HTMLMeta says what a report is about, for its heading.
type HTMLMeta struct {
	Command string   `json:"command"` // check, states, explore or trace
	Trace   string   `json:"trace"`
	Model   string   `json:"model"`  // the model the timeline's crash states come from
	Models  []string `json:"models"` // the models the findings were computed under
	Version string   `json:"version,omitempty"`
}

// HTMLLimits bound what one report holds, so that a trace of any length
// gives a page a browser can open. What is left out is counted in the
// report and said on the page.
type HTMLLimits struct {
	Events int // events with their crash points (0: 100000)
	Detail int // crash points that keep their per-state detail (0: 20000)
}

// The report's values, one JSON record each. Field names are short: a
// report of a long trace holds hundreds of thousands of events.

// HTMLLane is one timeline lane: a path in scope (a file or a directory).
type HTMLLane struct {
	ID   int    `json:"id"`
	Path string `json:"path"`
	Dir  string `json:"dir"` // the directory it is grouped under
	// IsDir is set when the path was a directory (mkdir, directory fsync).
	IsDir bool `json:"isDir,omitempty"`
}

// HTMLEvent is one event that changed what a crash could leave in scope,
// with the crash point right after it.
type HTMLEvent struct {
	Seq  int `json:"q"`
	Line int `json:"l"`
	// File is the base name of the trace file the line is in, for the
	// members of an -ff set (whose files each count their own lines), so
	// that the page can name the line as `states --at` takes it
	// (trace.16300:16); "" for a trace of one file.
	File    string `json:"f,omitempty"`
	PID     int    `json:"p,omitempty"`
	Syscall string `json:"s"`
	// Kind is the mark drawn: write, trunc, fsync, dirsync, syncall,
	// syncfail, rename, create, unlink, mkdir, link, rmdir, sfr, unmodeled.
	Kind string `json:"k"`
	// Lanes are the lanes the event changed; From and To the lanes of a
	// rename's old and new name (-1 when not a rename).
	Lanes []int `json:"n"`
	From  int   `json:"fr,omitempty"`
	To    int   `json:"to,omitempty"`
	// Off and Len place a write in its file; Direct and Sync say it went
	// past the page cache (O_DIRECT) or was durable on return (O_SYNC...).
	Off    int64     `json:"o,omitempty"`
	Len    int64     `json:"b,omitempty"`
	Direct bool      `json:"dio,omitempty"`
	Sync   bool      `json:"osync,omitempty"`
	Failed bool      `json:"err,omitempty"`
	Call   string    `json:"c"`
	Point  HTMLPoint `json:"pt"`
}

// HTMLPoint is the crash point after an event. Outcomes holds only the
// lanes the event changed; the page carries the others forward, the same
// sets `crashsim states --format json` prints in full.
type HTMLPoint struct {
	Index    int                 `json:"i"`
	States   int64               `json:"st"`
	Explored int64               `json:"ex"`
	Exact    bool                `json:"x"`
	Outcomes map[int][]string    `json:"o"`
	Detail   map[int][]HTMLState `json:"d,omitempty"`
	// Unlisted is, of a lane in Detail, how many more states it has
	// than Detail lists (model.PathOutcomes.Unlisted): the subsets of a
	// file's pending writes a summarized timeline counts, each a state
	// of its own. Lanes with none are left out.
	Unlisted map[int]int64 `json:"m,omitempty"`
}

// HTMLState is one explored crash state of a lane at a crash point.
type HTMLState struct {
	Outcome   string `json:"o"`
	Persisted string `json:"p"`
	Name      int    `json:"nl,omitempty"`
	Applied   []int  `json:"a,omitempty"`
	Torn      int    `json:"t,omitempty"`
	TornBytes int64  `json:"tb,omitempty"`
	SizeOnly  int    `json:"so,omitempty"`
	Version   int    `json:"vl,omitempty"`
}

// HTMLProblem is a problem as the page shows it: a card with its
// findings (indices into the page's findings, its primary first) and,
// when its call site's file is readable, a few lines of code around it.
type HTMLProblem struct {
	Rule     string       `json:"rule"`
	Title    string       `json:"title"`
	Severity string       `json:"severity"`
	Path     string       `json:"path"`
	Paths    []string     `json:"paths"`
	Line     int          `json:"line"`
	Source   *wire.Source `json:"source,omitempty"`
	Message  string       `json:"message"`
	Fix      string       `json:"fix"`
	Program  bool         `json:"program,omitempty"`
	Findings []int        `json:"findings"`
	Code     []HTMLCode   `json:"code,omitempty"`
}

// HTMLCode is a line of a source file: its number and text.
type HTMLCode struct {
	N    int    `json:"n"`
	Text string `json:"t"`
}

// HTMLFinding is a finding as the page shows it.
type HTMLFinding struct {
	Rule     string         `json:"rule"`
	Title    string         `json:"title"`
	Severity string         `json:"severity"`
	Path     string         `json:"path"`
	Line     int            `json:"line"`
	Seq      int            `json:"seq"`
	PID      int            `json:"pid"`
	Message  string         `json:"message"`
	Fix      string         `json:"fix"`
	Models   []string       `json:"models"`
	Related  []wire.Related `json:"related"`
	State    *wire.State    `json:"state,omitempty"`
}

// HTML streams one self-contained page. The data is one JSON value in a
// <script type="application/json"> element, written record by record as
// the trace is replayed: the report never holds the trace.
type HTML struct {
	e        *wire.Encoder
	lim      HTMLLimits
	lanes    map[string]int
	laneList []HTMLLane
	events   int
	foldLine int // the first line not drawn, past the limit
	points   int
	detail   int
	err      error
	// trace is the base name of the trace the page is of (of an -ff
	// set's prefix).
	trace string
}

// NewHTML writes the page's head, the findings and the opening of the
// event list. Call Event for each event that has a crash point, then
// Close.
func NewHTML(w io.Writer, meta HTMLMeta, res *check.Result, lim HTMLLimits) *HTML {
	if lim.Events == 0 {
		lim.Events = 100000
	}
	if lim.Detail == 0 {
		lim.Detail = 20000
	}
	h := &HTML{e: wire.NewEncoder(w, wire.Compact), lim: lim, lanes: map[string]int{}, laneList: []HTMLLane{}, trace: filepath.Base(meta.Trace)}
	e := h.e
	title := "crashsim " + meta.Command + ": " + meta.Trace
	e.Raw(fmt.Sprintf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"+
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		html.EscapeString(title), htmlCSS))
	e.Raw(htmlBody)
	e.Raw("<script type=\"application/json\" id=\"crashsim-data\">{\"meta\":")
	writeMeta(e, &meta)
	e.Raw(",\n\"findings\":")
	// The page holds every finding (it caps the events it draws, not the
	// findings): a spilled result is read back one at a time.
	e.BeginArray()
	for f, err := range res.Findings() {
		if err != nil {
			h.err = err
			break
		}
		hf := HTMLFinding{Rule: f.Rule.ID, Title: f.Rule.Title, Severity: f.Rule.Severity.String(), Path: f.Path,
			Line: f.Line, Seq: f.Seq, PID: f.PID, Message: f.Message, Fix: f.Rule.Fix, Models: f.Models, Related: related(f.Related, f.Trace, nil)}
		if s := f.State; s != nil {
			hf.State = &wire.State{Line: s.Line, Path: s.Path, Outcome: s.Outcome, Persisted: s.Persisted, Words: s.Words}
		}
		writeFinding(e, &hf)
	}
	e.EndArray()
	nProblems := 0
	if h.err == nil {
		nProblems, h.err = writeProblems(e, res)
	}
	e.Raw(",\n\"summary\":")
	e.Value(&wire.Counts{Events: res.Summary.Events, Files: res.Summary.Files, Errors: res.Summary.Errors,
		WarningFindings: res.Summary.Warnings, Infos: res.Summary.Infos, Problems: nProblems})
	e.Raw(",\n\"warnings\":")
	e.Value(wireWarnings(res.Warnings))
	e.Raw(",\n\"notes\":")
	e.Value(wireNotes(res.Notes))
	e.Raw(",\n\"events\":[")
	return h
}

func (h *HTML) lane(p string) int {
	if id, ok := h.lanes[p]; ok {
		return id
	}
	id := len(h.laneList)
	dir := "/"
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		dir = p[:i]
	} else if i < 0 {
		dir = "."
	}
	h.lanes[p] = id
	h.laneList = append(h.laneList, HTMLLane{ID: id, Path: p, Dir: dir})
	return id
}

// Effects collects what the model said an event did, for its mark: pass
// its Observe as model.Options.Observe and call Reset before each event.
type Effects struct {
	kind   model.EffectKind
	entry  *model.EntryOp
	data   *model.DataOp
	handle *model.Handle
	dir    *model.Inode
}

// Reset forgets the last event's effects.
func (e *Effects) Reset() { *e = Effects{} }

// Observe records one effect; the strongest one names the mark.
func (e *Effects) Observe(_ *model.Model, eff *model.Effect) {
	if eff.Kind == model.EffNone || eff.Kind == model.EffExit || eff.Kind == model.EffRead || eff.Kind == model.EffSizeSeen || eff.Kind == model.EffSettled {
		return
	}
	if e.kind == model.EffNone || eff.Kind == model.EffEntry {
		e.kind = eff.Kind
	}
	if eff.Entry != nil {
		e.entry = eff.Entry
	}
	if eff.Data != nil {
		e.data = eff.Data
	}
	if eff.Handle != nil {
		e.handle = eff.Handle
	}
	if eff.Kind == model.EffDirSync {
		e.dir = eff.Inode
	}
}

// Full reports whether the report holds as many events as its limit: the
// caller stops replaying there, and Fold says where.
func (h *HTML) Full() bool { return h.events >= h.lim.Events }

// Fold records that the rest of the trace, from the event on line, is not
// drawn.
func (h *HTML) Fold(line int) { h.foldLine = line }

// Event adds an event and the crash point after it.
func (h *HTML) Event(ev *parser.Event, eff *Effects, pt model.Point) {
	h.points++
	e := HTMLEvent{Seq: ev.Seq, Line: ev.Pos.Line, PID: ev.PID, Syscall: ev.Name, Failed: ev.Failed(), Lanes: []int{}}
	if f := filepath.Base(ev.Pos.File); ev.Pos.File != "" && f != h.trace {
		e.File = f
	}
	e.Call = ev.Brief(120, nil)
	e.Kind = markKind(eff)
	for _, p := range pt.Changed {
		e.Lanes = append(e.Lanes, h.lane(p))
	}
	if eff != nil && eff.entry != nil {
		for _, c := range eff.entry.Changes {
			if c.Path == "" || !contains(pt.Changed, c.Path) {
				continue
			}
			id := h.lane(c.Path)
			switch {
			case c.Old != nil && c.New == nil && e.Kind == "rename":
				e.From = id + 1
			case c.New != nil && e.Kind == "rename":
				e.To = id + 1
			}
			if n := c.New; n != nil && n.Dir {
				h.laneList[id].IsDir = true
			}
		}
	}
	if eff != nil && eff.dir != nil && eff.dir.Path != "" {
		if id, ok := h.lanes[eff.dir.Path]; ok {
			h.laneList[id].IsDir = true
		}
	}
	if eff != nil && eff.data != nil {
		e.Off, e.Len, e.Direct = eff.data.Off, eff.data.Len, eff.data.Direct
		if eff.handle != nil {
			e.Sync = eff.handle.Flags&syscalls.O_DSYNC != 0 // O_SYNC includes its bit
		}
	}
	e.Point = HTMLPoint{Index: pt.Index, States: pt.States, Explored: pt.Explored, Exact: pt.Exact, Outcomes: map[int][]string{}}
	keep := h.detail < h.lim.Detail
	if keep {
		h.detail++
		e.Point.Detail = map[int][]HTMLState{}
	}
	for i, p := range pt.Changed {
		id := h.lane(p)
		po := pt.Outcomes[i]
		os := make([]string, len(po.Outcomes))
		for i, o := range po.Outcomes {
			os[i] = string(o)
		}
		e.Point.Outcomes[id] = os
		if !keep {
			continue
		}
		var ss []HTMLState
		for _, s := range po.States {
			hs := HTMLState{Outcome: string(s.Outcome), Persisted: s.Persisted, Applied: s.Applied, Torn: s.Torn, TornBytes: s.TornBytes, SizeOnly: s.SizeOnly}
			if s.Name != nil {
				hs.Name = s.Name.Line
			}
			if s.Version != nil {
				hs.Version = s.Version.Line
			}
			ss = append(ss, hs)
		}
		e.Point.Detail[id] = ss
		if n := po.Unlisted(); n > 0 {
			if e.Point.Unlisted == nil {
				e.Point.Unlisted = map[int]int64{}
			}
			e.Point.Unlisted[id] = n
		}
	}
	if h.events > 0 {
		h.e.Raw(",")
	}
	h.e.Raw("\n")
	h.events++
	writeEvent(h.e, &e)
}

func contains(ss []string, s string) bool {
	i := sort.SearchStrings(ss, s)
	return i < len(ss) && ss[i] == s
}

func markKind(eff *Effects) string {
	if eff == nil {
		return "other"
	}
	switch eff.kind {
	case model.EffWrite:
		return "write"
	case model.EffTruncate:
		return "trunc"
	case model.EffFileSync:
		return "fsync"
	case model.EffDirSync:
		return "dirsync"
	case model.EffSyncAll:
		return "syncall"
	case model.EffSyncFailed:
		return "syncfail"
	case model.EffSyncFileRange:
		return "sfr"
	case model.EffUnmodeled:
		return "unmodeled"
	case model.EffEntry:
		if eff.entry == nil {
			return "create"
		}
		switch eff.entry.Kind {
		case model.EntryRename, model.EntryExchange:
			return "rename"
		case model.EntryMkdir:
			return "mkdir"
		case model.EntryUnlink, model.EntryRmdir:
			return "unlink"
		case model.EntryLink, model.EntrySymlink:
			return "link"
		}
		return "create"
	}
	return "other"
}

// Close writes the lanes, what was folded, and the page's script.
func (h *HTML) Close() error {
	e := h.e
	e.Raw("],\n\"lanes\":")
	e.BeginArray()
	for i := range h.laneList {
		writeLane(e, &h.laneList[i])
	}
	e.EndArray()
	// What was folded, its keys in encoding/json's order.
	e.Raw(",\n\"folded\":")
	e.BeginObject()
	e.IntField("detailKept", h.detail)
	e.IntField("foldLine", h.foldLine)
	e.IntField("limit", h.lim.Events)
	e.IntField("points", h.points)
	e.EndObject()
	e.Raw("}</script>\n<script>\n")
	e.Raw(htmlJS)
	e.Raw("</script>\n</body>\n</html>\n")
	if err := e.Flush(); err != nil {
		return err
	}
	return h.err
}

// htmlBody is the page's static skeleton; report.js fills it.
const htmlBody = `<header>
<h1 id="title">crashsim report</h1>
<p id="subtitle"></p>
<p id="summary" role="status"></p>
<div id="warnings"></div>
</header>
<main>
<section id="timeline-section" aria-labelledby="timeline-h">
<h2 id="timeline-h">Timeline</h2>
<p class="help">One lane per file, grouped by directory: the upper row is the page cache, the lower row what is durable. Each column is a crash point, the moment after an event. Click a column (or focus the timeline and use ← → Home End, PageUp PageDown) to see what a crash there can leave.</p>
<div id="legend"></div>
<div id="window-nav"><button type="button" id="win-prev">◀ earlier</button> <span id="window-info"></span> <button type="button" id="win-next">later ▶</button></div>
<div id="timeline" tabindex="0" role="region" aria-label="Timeline of crash points: use the arrow keys, Home, End, PageUp and PageDown to move between crash points"></div>
<div id="folded"></div>
</section>
<div id="panels">
<section id="findings-section" aria-labelledby="findings-h">
<h2 id="findings-h">Findings</h2>
<form id="filters" aria-label="Filter findings">
<label>Rule <select id="f-rule"><option value="">all</option></select></label>
<label>Severity <select id="f-sev"><option value="">all</option></select></label>
<label>Model <select id="f-model"><option value="">all</option></select></label>
<label>Path <input id="f-path" type="search" placeholder="part of a path"></label>
</form>
<p id="findings-count"></p>
<ol id="findings"></ol>
</section>
<section id="point-section" aria-labelledby="point-h">
<h2 id="point-h">Crash point</h2>
<div id="point" aria-live="polite"><p>Pick a crash point on the timeline, or a finding.</p></div>
</section>
</div>
</main>
<noscript>This report draws its timeline with JavaScript; the data is in the script element named crashsim-data.</noscript>
`

// writeProblems writes the "problems" member of the page's data: res's
// findings grouped (check.Group), each with the code around its call
// site when the file is readable.
func writeProblems(e *wire.Encoder, res *check.Result) (int, error) {
	ps, err := check.Group(res)
	if err != nil {
		return 0, err
	}
	e.Raw(",\n\"problems\":")
	e.BeginArray()
	for _, p := range ps.List {
		hp := HTMLProblem{Rule: p.Rule.ID, Title: p.Rule.Title, Severity: p.Severity.String(), Path: p.Path, Paths: p.Paths,
			Line: p.Line, Message: p.Message, Fix: p.Fix, Program: p.Program, Findings: []int{}}
		if p.Primary >= 0 {
			hp.Findings = append(hp.Findings, p.Primary)
		}
		for _, i := range p.Members {
			if int(i) != p.Primary {
				hp.Findings = append(hp.Findings, int(i))
			}
		}
		if loc := p.Source; loc != nil {
			hp.Source = &wire.Source{File: loc.File, Line: loc.Line, Function: loc.Function}
			hp.Code = codeAround(loc.File, loc.Line, 2)
		}
		writeProblem(e, &hp)
	}
	e.EndArray()
	return ps.Len(), nil
}
