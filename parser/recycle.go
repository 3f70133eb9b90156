package parser

import (
	"slices"
	"unsafe"
)

// Recycling (Options.Recycle): a Pipeline whose caller keeps no event
// hands each batch's events back to the parsing goroutine once the caller
// has moved past the batch, and the Readers build the next events in them
// instead of allocating. Each event owns the memory its parts are carved
// from (eventMem), so that an event the Reader still holds (a call left
// unfinished, one held for its -k stack) keeps its memory however far the
// batches around it have gone: memory is reused only with its event.

// eventMem is the memory a recycled Event's Values, ValueExtras and
// EventExtra are carved from. It grows to what the largest line the event
// served needed, and is kept with the event from one use to the next.
type eventMem struct {
	// vals are where Args are read in place (argRoom), and where a
	// split call's joined Args are carved: vals[:used] are handed out.
	vals []Value
	used int
	// evals are where Elems are carved from, used as vals: apart, so
	// that the elements of an argument being read do not land in the
	// room of the arguments after it.
	evals   []Value
	eused   int
	vextras []ValueExtra // vextras[:vxUsed] are handed out
	vxUsed  int
	extra   EventExtra
	// joined is the resumed half of a split call, whose Values the
	// joined event's Args took (with their Elems, in joined's memory):
	// it is reused with this event, never before.
	joined *Event
	// touched is the flag, beside the pool's other events' (poolChunk),
	// that says this memory has been handed out from since it was last
	// reset (see use); nil for memory no pool made.
	touched *bool
}

// use notes that m hands something out, so that it is reset before its
// event serves another line. Most lines (a call whose arguments are not
// decoded, with nothing for EventExtra) never come here, and their
// event is reused without a look at its memory: it had long left the
// cache, and resetting it cost the parsing goroutine some 10%.
func (m *eventMem) use() {
	if m.touched != nil {
		*m.touched = true
	}
}

// minMemValues is the room a recycled event's memory starts with: enough
// for the arguments of most calls.
const minMemValues = 8

// maxMemValues bounds the Values one event's memory keeps between uses:
// a line with a longer array or more arguments than that (a poll of
// thousands of fds) gets its Values from the heap, so that one such line
// does not make an event hold their room for ever.
const maxMemValues = 256

// carve is lineParser.carve for a recycled event, from its evals.
func (m *eventMem) carve(v []Value) []Value {
	m.use()
	n := len(v)
	if n == 0 || n > maxMemValues {
		return slices.Clone(v)
	}
	if m.eused+n > len(m.evals) {
		// The values carved so far stay where they are, in the old
		// room, which goes when the event is next reset.
		m.evals = make([]Value, min(max(2*len(m.evals), minMemValues, n), maxMemValues))
		m.eused = 0
	}
	out := m.evals[m.eused : m.eused+n : m.eused+n]
	copy(out, v)
	m.eused += n
	return out
}

// argRoom is lineParser.argRoom for a recycled event: vals past what
// they handed out, at least minArgRoom of them.
func (m *eventMem) argRoom() []Value {
	m.use()
	if len(m.vals)-m.used < minArgRoom {
		// As in carve, what was handed out stays in the old room.
		m.vals = make([]Value, min(max(2*len(m.vals), minMemValues, minArgRoom), maxMemValues))
		m.used = 0
	}
	return m.vals[m.used:m.used:len(m.vals)]
}

// argsDone is lineParser.argsDone for a recycled event, n > 0 unless in
// place. Arguments that
// did not fit the room are copied into a larger one, so that the event
// has it for its next lines.
func (m *eventMem) argsDone(args []Value, n int, inPlace bool) []Value {
	if inPlace {
		out := args[:n:n]
		m.used += n
		return out
	}
	if n > maxMemValues {
		return slices.Clone(args[:n])
	}
	if m.used+n > len(m.vals) {
		m.vals = make([]Value, min(max(2*len(m.vals), minMemValues, n), maxMemValues))
		m.used = 0
	}
	out := m.vals[m.used : m.used+n : m.used+n]
	copy(out, args[:n])
	m.used += n
	return out
}

// join returns a followed by b, carved from m: the Args of a split call's
// two halves.
func (m *eventMem) join(a, b []Value) []Value {
	m.use()
	n := len(a) + len(b)
	if n == 0 || n > maxMemValues {
		return append(a, b...)
	}
	if m.used+n > len(m.vals) {
		m.vals = make([]Value, min(max(2*len(m.vals), minMemValues, n), maxMemValues))
		m.used = 0
	}
	out := m.vals[m.used : m.used+n : m.used+n]
	copy(out, a)
	copy(out[len(a):], b)
	m.used += n
	return out
}

// valueExtra returns a cleared ValueExtra carved from m.
func (m *eventMem) valueExtra() *ValueExtra {
	m.use()
	if m.vxUsed >= len(m.vextras) {
		m.vextras = make([]ValueExtra, max(2*len(m.vextras), 4))
		m.vxUsed = 0
	}
	x := &m.vextras[m.vxUsed]
	m.vxUsed++
	return x
}

// reset forgets what m handed out and keeps its room. The Values it
// handed out are not cleared: the next lines overwrite them (a line
// clears each Value it reads into, and carve copies whole ones), and
// clearing them cost as much again (the memory has left the cache
// since): some 4% of reading a real trace for the last line's Values,
// as much again for those of the lines before it past the last line's,
// which were cleared until then. A pooled event so keeps alive the
// strings of the Values its rooms hold, up to maxMemValues in each: as
// many as one line alone may leave there.
func (m *eventMem) reset() {
	m.used = 0
	m.eused = 0
	clear(m.vextras[:m.vxUsed])
	m.vxUsed = 0
	stack := m.extra.Stack
	clear(stack)
	m.extra = EventExtra{Stack: stack[:0]}
}

// eventPool holds the events a Pipeline handed back, for the Readers of
// its stream to build the next events in. It belongs to the parsing
// goroutine: the Pipeline puts events back from there.
type eventPool struct {
	free []pooled
	// chunks are the events the pool made, each with its memory beside
	// it, not in it, so that an Event stays a plain struct of exported
	// fields (callers compare and copy them).
	chunks []poolChunk
	next   int // the first event of the last chunk not handed out yet
}

// pooled is a free event with its memory, kept beside it so that get
// need not look for it (memOf).
type pooled struct {
	ev      *Event
	mem     *eventMem
	touched *bool // mem.touched, read here without touching mem
}

// poolChunk is events and the memory of each, at the same index, and
// whether each memory was used since it was last reset (eventMem.use):
// flags a byte each, packed, so that get reads one without touching the
// memory.
type poolChunk struct {
	evs     []Event
	mems    []eventMem
	touched []bool
	base    uintptr // the address of evs[0]
}

// poolChunkSize is how many events the pool makes at once past its first
// chunk: a batch's.
const poolChunkSize = 256

// maxPooled bounds the events a pool keeps: more than the batches a
// Pipeline has under way hold, so that a stream that does not take its
// events from the pool cannot make it grow past that.
func maxPooled() int { return (pipelineDepth + 4) * pipelineBatch }

// get returns a cleared event and its memory. An event is cleared here,
// as it is handed out again, not when it was put back: the line about to
// be read writes to the event anyway, so clearing it then costs no trip
// to memory of its own. Its memory is reset only when it handed something
// out (eventMem.use), which the flag beside it says: most lines never
// use it, and resetting every event's memory on put cost a cache miss per
// event, some 10% of the parsing goroutine.
func (p *eventPool) get() (*Event, *eventMem) {
	if n := len(p.free); n > 0 {
		f := p.free[n-1]
		p.free = p.free[:n-1]
		if t := f.touched; *t {
			*t = false
			if j := f.mem.joined; j != nil {
				// The resumed half joined to it goes back too; it is
				// cleared in its turn, when it is handed out.
				f.mem.joined = nil
				p.putOne(j)
			}
			f.mem.reset()
		}
		*f.ev = Event{}
		return f.ev, f.mem
	}
	if len(p.chunks) == 0 || p.next == len(p.chunks[len(p.chunks)-1].evs) {
		// The first chunk holds what the batches under way need, so that
		// memOf nearly always finds an event there, at the first
		// comparison; its memory is touched only as events are handed
		// out.
		n := poolChunkSize
		if len(p.chunks) == 0 {
			n = max(n, maxPooled())
		}
		evs := make([]Event, n)
		p.chunks = append(p.chunks, poolChunk{evs: evs, mems: make([]eventMem, n), touched: make([]bool, n), base: uintptr(unsafe.Pointer(&evs[0]))})
		p.next = 0
	}
	c := &p.chunks[len(p.chunks)-1]
	ev, m := &c.evs[p.next], &c.mems[p.next]
	m.touched = &c.touched[p.next]
	p.next++
	return ev, m
}

// memOf is the memory of an event the pool made, nil for any other. The
// event is found among the chunks by its address (Go does not move what
// it allocates), which costs a few comparisons where a map from events to
// their memory cost a lookup that missed the cache on every event.
func (p *eventPool) memOf(ev *Event) *eventMem {
	m, _ := p.slotOf(ev)
	return m
}

// slotOf is memOf with the flag that says whether the memory was used.
func (p *eventPool) slotOf(ev *Event) (*eventMem, *bool) {
	if p == nil {
		return nil, nil
	}
	a := uintptr(unsafe.Pointer(ev))
	for i := range p.chunks {
		c := &p.chunks[i]
		if off := a - c.base; off < uintptr(len(c.evs))*unsafe.Sizeof(Event{}) {
			k := off / unsafe.Sizeof(Event{})
			return &c.mems[k], &c.touched[k]
		}
	}
	return nil, nil
}

// put takes back an event no one holds any more, with the resumed half
// joined to it (which get takes back when it hands the event out). An
// event the pool did not make (a copy park made) is left to the
// collector. Neither the event nor its memory is touched here: get
// clears them.
func (p *eventPool) put(ev *Event) {
	if ev != nil {
		p.putOne(ev)
	}
}

func (p *eventPool) putOne(ev *Event) {
	m, t := p.slotOf(ev)
	if m == nil {
		return
	}
	if len(p.free) < maxPooled() {
		p.free = append(p.free, pooled{ev, m, t})
	}
}
