package report

import (
	"strconv"

	"github.com/crashsim/crashsim/report/wire"
)

// The page's records, written by hand through a compact wire.Encoder as
// encoding/json would write them (the same keys and omissions; a test
// holds the two equal): a long trace's report is mostly events. The
// Encoder escapes <, > and & in every string, so that no path in a trace
// can end the script element that holds the data.

func writeEvent(e *wire.Encoder, ev *HTMLEvent) {
	e.BeginObject()
	e.IntField("q", ev.Seq)
	e.IntField("l", ev.Line)
	if ev.File != "" {
		e.StringField("f", ev.File)
	}
	optInt(e, "p", int64(ev.PID))
	e.StringField("s", ev.Syscall)
	e.StringField("k", ev.Kind)
	e.Key("n")
	e.Ints(ev.Lanes)
	optInt(e, "fr", int64(ev.From))
	optInt(e, "to", int64(ev.To))
	optInt(e, "o", ev.Off)
	optInt(e, "b", ev.Len)
	optTrue(e, "dio", ev.Direct)
	optTrue(e, "osync", ev.Sync)
	optTrue(e, "err", ev.Failed)
	e.StringField("c", ev.Call)
	e.Key("pt")
	p := &ev.Point
	e.BeginObject()
	e.IntField("i", p.Index)
	e.Key("st")
	e.Int64(p.States)
	e.Key("ex")
	e.Int64(p.Explored)
	e.Key("x")
	e.Bool(p.Exact)
	e.Key("o")
	e.BeginObject()
	for _, id := range ev.Lanes { // the point's keys are the event's lanes, in order
		if os, ok := p.Outcomes[id]; ok {
			e.Key(strconv.Itoa(id))
			e.Strings(os)
		}
	}
	e.EndObject()
	if len(p.Detail) > 0 {
		e.Key("d")
		e.BeginObject()
		for _, id := range ev.Lanes {
			ss, ok := p.Detail[id]
			if !ok {
				continue
			}
			e.Key(strconv.Itoa(id))
			if ss == nil {
				e.Null()
				continue
			}
			e.BeginArray()
			for i := range ss {
				writeState(e, &ss[i])
			}
			e.EndArray()
		}
		e.EndObject()
	}
	if len(p.Unlisted) > 0 {
		e.Key("m")
		e.BeginObject()
		for _, id := range ev.Lanes {
			if n, ok := p.Unlisted[id]; ok {
				e.Key(strconv.Itoa(id))
				e.Int64(n)
			}
		}
		e.EndObject()
	}
	e.EndObject()
	e.EndObject()
}

func writeState(e *wire.Encoder, s *HTMLState) {
	e.BeginObject()
	e.StringField("o", s.Outcome)
	e.StringField("p", s.Persisted)
	optInt(e, "nl", int64(s.Name))
	if len(s.Applied) > 0 {
		e.Key("a")
		e.Ints(s.Applied)
	}
	optInt(e, "t", int64(s.Torn))
	optInt(e, "tb", s.TornBytes)
	optInt(e, "so", int64(s.SizeOnly))
	optInt(e, "vl", int64(s.Version))
	e.EndObject()
}

func writeMeta(e *wire.Encoder, m *HTMLMeta) {
	e.BeginObject()
	e.StringField("command", m.Command)
	e.StringField("trace", m.Trace)
	e.StringField("model", m.Model)
	e.Key("models")
	e.Strings(m.Models)
	if m.Version != "" {
		e.StringField("version", m.Version)
	}
	e.EndObject()
}

func writeFinding(e *wire.Encoder, f *HTMLFinding) {
	e.BeginObject()
	e.StringField("rule", f.Rule)
	e.StringField("title", f.Title)
	e.StringField("severity", f.Severity)
	e.StringField("path", f.Path)
	e.IntField("line", f.Line)
	e.IntField("seq", f.Seq)
	e.IntField("pid", f.PID)
	e.StringField("message", f.Message)
	e.StringField("fix", f.Fix)
	e.Key("models")
	e.Strings(f.Models)
	e.Key("related")
	e.Value(f.Related)
	if f.State != nil {
		e.Key("state")
		e.Value(f.State)
	}
	e.EndObject()
}

func writeProblem(e *wire.Encoder, p *HTMLProblem) {
	e.BeginObject()
	e.StringField("rule", p.Rule)
	e.StringField("title", p.Title)
	e.StringField("severity", p.Severity)
	e.StringField("path", p.Path)
	e.Key("paths")
	e.Strings(p.Paths)
	e.IntField("line", p.Line)
	if p.Source != nil {
		e.Key("source")
		e.Value(p.Source)
	}
	e.StringField("message", p.Message)
	e.StringField("fix", p.Fix)
	optTrue(e, "program", p.Program)
	e.Key("findings")
	e.Ints(p.Findings)
	if len(p.Code) > 0 {
		e.Key("code")
		e.BeginArray()
		for _, c := range p.Code {
			e.BeginObject()
			e.IntField("n", c.N)
			e.StringField("t", c.Text)
			e.EndObject()
		}
		e.EndArray()
	}
	e.EndObject()
}

func writeLane(e *wire.Encoder, l *HTMLLane) {
	e.BeginObject()
	e.IntField("id", l.ID)
	e.StringField("path", l.Path)
	e.StringField("dir", l.Dir)
	optTrue(e, "isDir", l.IsDir)
	e.EndObject()
}

func optInt(e *wire.Encoder, key string, v int64) {
	if v != 0 {
		e.Key(key)
		e.Int64(v)
	}
}

func optTrue(e *wire.Encoder, key string, v bool) {
	if v {
		e.Key(key)
		e.Bool(true)
	}
}
