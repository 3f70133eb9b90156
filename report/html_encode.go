package report

import (
	"strconv"
)

// appendEvent encodes an event record as encoding/json would (same keys,
// same omissions; a test holds the two equal), without reflection: a long
// trace's report is mostly these records.
func appendEvent(b []byte, e *HTMLEvent) []byte {
	b = append(b, `{"q":`...)
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	b = append(b, `,"l":`...)
	b = strconv.AppendInt(b, int64(e.Line), 10)
	if e.PID != 0 {
		b = append(b, `,"p":`...)
		b = strconv.AppendInt(b, int64(e.PID), 10)
	}
	b = append(b, `,"s":`...)
	b = appendString(b, e.Syscall)
	b = append(b, `,"k":`...)
	b = appendString(b, e.Kind)
	b = append(b, `,"n":`...)
	b = appendInts(b, e.Lanes)
	b = optInt(b, `,"fr":`, int64(e.From))
	b = optInt(b, `,"to":`, int64(e.To))
	b = optInt(b, `,"o":`, e.Off)
	b = optInt(b, `,"b":`, e.Len)
	b = optBool(b, `,"dio":true`, e.Direct)
	b = optBool(b, `,"osync":true`, e.Sync)
	b = optBool(b, `,"err":true`, e.Failed)
	b = append(b, `,"c":`...)
	b = appendString(b, e.Call)
	b = append(b, `,"pt":{"i":`...)
	p := &e.Point
	b = strconv.AppendInt(b, int64(p.Index), 10)
	b = append(b, `,"st":`...)
	b = strconv.AppendInt(b, p.States, 10)
	b = append(b, `,"ex":`...)
	b = strconv.AppendInt(b, p.Explored, 10)
	b = append(b, `,"x":`...)
	b = strconv.AppendBool(b, p.Exact)
	b = append(b, `,"o":{`...)
	for i, id := range e.Lanes { // the point's keys are the event's lanes, in order
		os, ok := p.Outcomes[id]
		if !ok {
			continue
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, `":[`...)
		for j, o := range os {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, o)
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	if len(p.Detail) > 0 {
		b = append(b, `,"d":{`...)
		first := true
		for _, id := range e.Lanes {
			ss, ok := p.Detail[id]
			if !ok {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '"')
			b = strconv.AppendInt(b, int64(id), 10)
			b = append(b, `":`...)
			if ss == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, '[')
			for j := range ss {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendState(b, &ss[j])
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func appendState(b []byte, s *HTMLState) []byte {
	b = append(b, `{"o":`...)
	b = appendString(b, s.Outcome)
	b = append(b, `,"p":`...)
	b = appendString(b, s.Persisted)
	b = optInt(b, `,"nl":`, int64(s.Name))
	if len(s.Applied) > 0 {
		b = append(b, `,"a":`...)
		b = appendInts(b, s.Applied)
	}
	b = optInt(b, `,"t":`, int64(s.Torn))
	b = optInt(b, `,"tb":`, s.TornBytes)
	b = optInt(b, `,"so":`, int64(s.SizeOnly))
	b = optInt(b, `,"vl":`, int64(s.Version))
	return append(b, '}')
}

func optInt(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), v, 10)
}

func optBool(b []byte, s string, v bool) []byte {
	if !v {
		return b
	}
	return append(b, s...)
}

func appendInts(b []byte, xs []int) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json does with
// HTML escaping on: <, > and & become \u003c, \u003e, \u0026, so that no
// path in a trace can end the script element that holds the data; U+2028
// and U+2029 are escaped, invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte { return appendJSONString(b, s, true) }
