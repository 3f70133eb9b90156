package crashsim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// Replay reads one trace through the page-cache model under one
// persistence model, crash point by crash point (model.Timeline): what
// crashsim states prints and the HTML page draws.
type Replay struct {
	// Inputs name one trace (Traces[0]) and where it began.
	Inputs
	Scope
	Persistence model.Persistence
	// MaxStates bounds the states explored per path and crash point
	// (model.Crash); 0 is 256.
	MaxStates int
	// Calls decodes every argument of every call, for a view that prints
	// calls; else only those the model reads are.
	Calls bool
	// Observe, when set, sees each effect as the model applies it.
	Observe func(*model.Model, *model.Effect)
	// AcceptBlind are blind spots the caller accepts (see Check).
	AcceptBlind []string

	// recycle reads the trace with parser.Options.Recycle: set by a view
	// that is done with each event before it asks for the next (Timeline).
	recycle bool
	// lean runs the timeline lean (model.Timeline.Lean): set by a view
	// that reads only the paths each point changed (the text and the
	// JSON of changed paths, the HTML page); keepAll is the JSON of every
	// path at every point, which reads them all. summary runs it
	// summarized (model.Timeline.Summarize): set by the text timeline,
	// which prints of each changed path its outcome set and the count,
	// and by the HTML page, which lists the states a summary lists and
	// counts the others. counts: summarized without the states' words
	// (model.Timeline.Counts), for the text timeline.
	lean, keepAll, summary, counts bool
}

// recycleStates says whether Timeline reads with parser.Options.Recycle;
// a variable so that a test can compare with reading without it.
var recycleStates = true

// Replayed is what a replay read.
type Replayed struct {
	Events   int
	LastLine int // the line the last event read ends on
	// Next is the line of the first event not replayed when the visitor
	// stopped the replay; 0 when the whole trace was.
	Next int
	// Warnings are the trace's blind spots, Notes what was left out of
	// scope on purpose.
	Warnings []check.BlindWarning
	Notes    []check.Note
	// AtFiles are the files of an -ff set whose line Timeline's --at
	// matched, when it matched in more than one.
	AtFiles []string
}

// Run replays the trace. visit sees the crash point before the first
// event (ev nil), then each event with the crash point after it (ok false
// when the event changed nothing in scope); it returns false to stop the
// replay there. With visit nil there are no crash points: the trace is
// read only for its blind spots and events. Either way it works out the
// blind spots, as check does.
func (r *Replay) Run(visit func(ev *parser.Event, pt model.Point, ok bool) bool) (*Replayed, error) {
	if err := r.Scope.Validate(); err != nil {
		return nil, err
	}
	if err := ValidateAccepted(r.AcceptBlind); err != nil {
		return nil, err
	}
	if len(r.Traces) != 1 {
		return nil, usageErrorf("a replay reads one trace; %d given", len(r.Traces))
	}
	trace := r.Traces[0]
	st, err := r.Start(trace)
	if err != nil {
		return nil, err
	}
	scope := r.options(r.Scope, st)
	watch := check.NewWatcher(&scope)
	what := forModel
	if r.Calls {
		what = forAll
	}
	// The watcher sees what the model makes of each event too: which mmap
	// maps a file shared and writable. Without a visitor, a model of its
	// own serves it.
	opt := st.ModelOptions(r.Persistence)
	opt.FSOf = scope.FSOf()
	opt.Observe = watch.ObserveEffect
	// The watcher sees each event with the paths the model resolved,
	// before the model applies it, as check's does, rather than
	// resolving them again in a process model of its own (a sixth of
	// the timeline's goroutine on a real trace).
	opt.Resolved = watch.ObserveResolved
	if r.Observe != nil {
		opt.Observe = func(m *model.Model, e *model.Effect) {
			r.Observe(m, e)
			watch.ObserveEffect(m, e)
		}
	}
	var tl *model.Timeline
	var m *model.Model
	if visit != nil {
		max := r.MaxStates
		if max == 0 {
			max = 256
		}
		tl = model.NewTimeline(opt, scope.InScope, max)
		if r.lean {
			tl.Lean()
		}
		switch {
		case r.counts:
			tl.Counts()
		case r.summary:
			tl.Summarize()
		}
		watch.UseModel(tl.Model())
		if !visit(nil, tl.Start(), true) {
			return &Replayed{}, nil
		}
	} else {
		m = model.New(opt)
		watch.UseModel(m)
	}
	stream, err := r.openRecycled(trace, what, st.Arch, r.recycle)
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	out := &Replayed{}
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, inputError(err)
		}
		out.Events++
		out.LastLine = max(out.LastLine, ev.EndLine)
		if tl == nil {
			m.Apply(ev)
			continue
		}
		if pt, ok := tl.Step(ev); !visit(ev, pt, ok) {
			// The next event says where the replay stopped; the blind
			// spots cover what was read.
			if next, err := stream.Next(); err == nil {
				out.Next = next.Pos.Line
			}
			break
		}
	}
	out.Warnings, out.Notes = watch.Finish()
	namedWarnings(out.Warnings, trace)
	markAccepted(out.Warnings, r.AcceptBlind)
	return out, nil
}

// HTML draws the page of the replay (report.NewHTML), with the findings
// and blind spots of res. It holds as many crash points as a browser
// draws well, and says where it stopped.
func (r Replay) HTML(w io.Writer, meta report.HTMLMeta, res *check.Result) error {
	var eff report.Effects
	// Summarized: a file with up to 16 unsynced writes has up to 2^16
	// states at each point that changes it, each subset of its pending
	// writes; the page lists the others and says how many of those there
	// are (a page of 147 MB for a 6.6 MB trace of Chromium otherwise).
	r.Calls, r.Observe, r.lean, r.summary = true, eff.Observe, true, true
	h := report.NewHTML(w, meta, res, report.HTMLLimits{})
	done, err := r.Run(func(ev *parser.Event, pt model.Point, ok bool) bool {
		if ev != nil && ok {
			h.Event(ev, &eff, pt)
		}
		eff.Reset()
		return !h.Full()
	})
	if err != nil {
		return err
	}
	if done.Next > 0 {
		h.Fold(done.Next)
	}
	return h.Close()
}

// At names the event whose crash point `crashsim states --at` shows: the
// one that ends on Line, in File when it is set. File tells the files of
// an strace -ff set apart, each of which has its own line numbers; it is
// what states prints before the line ("trace.14083" of
// "trace.14083:180"), or the file's path.
type At struct {
	File string
	Line int
}

// ParseAt reads --at's value: LINE, or FILE:LINE as states prints a line
// of an -ff set's file.
func ParseAt(s string) (At, error) {
	file, num := "", s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		file, num = s[:i], s[i+1:]
		if file == "" {
			return At{}, usageErrorf("--at %s: no file before the colon: give LINE, or FILE:LINE as states prints it (trace.14083:180)", textesc.Escape(s))
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return At{}, usageErrorf("--at %s: %q is not a line number: give LINE, or FILE:LINE as states prints it (trace.14083:180)", textesc.Escape(s), num)
	}
	return At{File: file, Line: n}, nil
}

// String is a as --at takes it, the file escaped (textesc) as states
// prints it.
func (a At) String() string {
	if a.File != "" {
		return textesc.Escape(a.File) + ":" + strconv.Itoa(a.Line)
	}
	return strconv.Itoa(a.Line)
}

// inFile reports whether a trace file, as events name it, is the one a
// names: the same path, or the same base name (as states prints it).
func (a At) inFile(file string) bool {
	return a.File == "" || file == a.File || filepath.Base(file) == filepath.Base(a.File)
}

// Timeline replays the trace into out (report.StatesText,
// report.StatesJSON): every crash point, or with at.Line above 0 only the
// one after the event that ends on that line (of at.File). A line no
// crash point follows is a UsageError. The blind spots are out's too
// (End). In an -ff set, whose files each count their own lines, a line
// without a file may match an event in several of them: each one's point
// is shown, and Replayed.AtFiles names the files.
func (r *Replay) Timeline(out report.PointWriter, at At) (*Replayed, error) {
	found := map[string]bool{}
	var order []string
	quiet := false // an event ends on the line but changes nothing in scope
	// The files of the trace and the last line of each, for the error
	// that says --at is past the end of its file.
	last := map[string]int{}
	// Each crash point is written before the next event is read, and
	// neither the timeline's model nor the watcher keeps an event: the
	// parser may build the next one in the memory of the last.
	rr := *r
	rr.recycle = recycleStates
	// A lean timeline works out again, at the point --at asks for, the
	// sets of the paths that point left as they were: the same sets, held
	// to it by TestLeanTimelineEqualsFull. Only the JSON of every path at
	// every point keeps them all.
	rr.lean = !r.keepAll
	done, err := rr.Run(func(ev *parser.Event, pt model.Point, ok bool) bool {
		if ev != nil && at.Line > 0 {
			last[ev.Pos.File] = max(last[ev.Pos.File], ev.EndLine)
		}
		switch {
		case ev == nil:
			out.Begin()
			if at.Line == 0 {
				out.Point(pt)
			}
		case !ok:
			quiet = quiet || at.Line > 0 && (ev.Pos.Line == at.Line || ev.EndLine == at.Line) && at.inFile(ev.Pos.File)
			out.Skip(ev)
		case at.Line == 0:
			out.Point(pt)
		case (ev.Pos.Line == at.Line || ev.EndLine == at.Line) && at.inFile(ev.Pos.File):
			if !found[ev.Pos.File] {
				found[ev.Pos.File] = true
				order = append(order, ev.Pos.File)
			}
			out.Point(pt)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	out.End(done.Warnings, done.Notes)
	if at.Line == 0 || len(order) > 0 {
		if len(order) > 1 {
			done.AtFiles = order
		}
		return done, nil
	}
	files, end := 0, 0
	for f, l := range last {
		if at.inFile(f) {
			files++
			end = max(end, l)
		}
	}
	switch {
	case at.File != "" && files == 0:
		return done, usageErrorf("--at %s: the trace has no file %s (states names each file of an -ff set before its lines, as in %s)", at, textesc.Escape(at.File), someFile(last))
	case at.Line > end && at.File != "":
		return done, usageErrorf("--at %s: past the end of %s (its last event ends on line %d)", at, textesc.Escape(at.File), end)
	case at.Line > end:
		return done, usageErrorf("--at %s: past the end of the trace (its last event ends on line %d)", at, end)
	case quiet:
		return done, usageErrorf("--at %s: the event that ends on that line changes no path in scope, so no crash point follows it", at)
	}
	return done, usageErrorf("--at %s: no call crashsim models ends on that line, so no crash point follows it", at)
}

// someFile names one of the trace's files as states prints it, with a
// line, for an example.
func someFile(last map[string]int) string {
	names := make([]string, 0, len(last))
	for f := range last {
		names = append(names, f)
	}
	if len(names) == 0 {
		return "trace.14083:180"
	}
	sort.Strings(names)
	return textesc.Escape(filepath.Base(names[0])) + ":" + strconv.Itoa(max(last[names[0]], 1))
}

// WriteTimeline writes the timeline (Timeline) to stdout as text or, with
// json, as crashsim states --format json does, buffered. What is still
// buffered when the trace turns out bad is dropped: a bad trace gives an
// error, not a timeline and then an error; when the part already written
// was too long to hold, stderr says where it stops.
func (r *Replay) WriteTimeline(stdout, stderr io.Writer, sopt report.StatesOptions, json bool) (*Replayed, error) {
	sent := &countingWriter{w: stdout}
	w := bufio.NewWriterSize(sent, 64<<10)
	out := report.StatesText(w, sopt)
	if json {
		out = report.StatesJSON(w, sopt)
	}
	rr := *r
	rr.keepAll = sopt.AllPaths
	rr.summary, rr.counts = !json, !json
	done, err := rr.Timeline(out, At{File: sopt.AtFile, Line: sopt.At})
	if done == nil {
		if sent.n > 0 {
			w.Flush()
			fmt.Fprintln(stderr, "crashsim: the crash states printed above stop before the bad line")
		}
		return nil, err
	}
	if err != nil {
		// --at named no crash point: the error alone, not a timeline
		// that shows none before it.
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return done, nil
}

// StatesPage is what the HTML page of crashsim states shows beside the
// timeline: no findings, the blind spots worked out in a reading of
// their own, so that the page says them at its top.
func (r *Replay) StatesPage() (*check.Result, error) {
	blind, err := r.Run(nil)
	if err != nil {
		return nil, err
	}
	res := &check.Result{Warnings: blind.Warnings, Notes: blind.Notes}
	res.Summary.Events = blind.Events
	return res, nil
}

// countingWriter counts the bytes that went through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
