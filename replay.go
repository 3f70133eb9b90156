package crashsim

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/crashsim/crashsim/check"
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
	// path at every point, which reads them all.
	lean, keepAll bool
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
		watch.UseProcs(tl.Model().Procs())
		if !visit(nil, tl.Start(), true) {
			return &Replayed{}, nil
		}
	} else {
		m = model.New(opt)
		watch.UseProcs(m.Procs())
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
	r.Calls, r.Observe, r.lean = true, eff.Observe, true
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

// Timeline replays the trace into out (report.StatesText,
// report.StatesJSON): every crash point, or with at above 0 only the one
// after the event that ends on line at. A line no crash point follows is
// a UsageError. The blind spots are out's too (End).
func (r *Replay) Timeline(out report.PointWriter, at int) (*Replayed, error) {
	found := false
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
		switch {
		case ev == nil:
			out.Begin()
			if at == 0 {
				out.Point(pt)
			}
		case !ok:
			out.Skip(ev)
		case at == 0 || ev.Pos.Line == at || ev.EndLine == at:
			found = true
			out.Point(pt)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	out.End(done.Warnings, done.Notes)
	if at > 0 && !found {
		if at > done.LastLine {
			return done, usageErrorf("--at %d: past the end of the trace (its last event ends on line %d)", at, done.LastLine)
		}
		return done, usageErrorf("--at %d: no call crashsim models ends on that line, so no crash point follows it", at)
	}
	return done, nil
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
	done, err := rr.Timeline(out, sopt.At)
	if done == nil {
		if sent.n > 0 {
			w.Flush()
			fmt.Fprintln(stderr, "crashsim: the crash states printed above stop before the bad line")
		}
		return nil, err
	}
	if ferr := w.Flush(); ferr != nil || err != nil {
		return nil, errors.Join(ferr, err)
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
