package parser

import (
	"bufio"
	"io"
	"os"
	"slices"
)

// park closes r's file between two calls of Next and lets go of what r
// holds only to read faster: its buffer, its slabs and scratch space, its
// interned strings. The events it still holds (a call left unfinished, one
// read ahead) are copied out of their slabs, so that none keeps a slab
// alive. What the reading of the next line depends on stays: the offset
// and number of that line, the calls left unfinished, the processes, the
// time format. resume opens the file again there. An -ff set parks the
// members it has no room to keep open.
func (r *Reader) park() error {
	var err error
	if r.c != nil {
		err = r.c.Close()
	}
	r.c, r.br = nil, nil
	r.long.free()
	r.slab, r.free = nil, nil
	r.skipped = Event{}
	lp := &r.lp
	if lp.args != nil {
		// Empty, not nil: a call with no arguments gets Args from this
		// buffer, and gets them empty, not nil, once the buffer exists.
		lp.args = []Value{}
	}
	lp.argSlab, lp.slab, lp.extras, lp.valueExtras, lp.elemStacks, lp.scratch = nil, nil, nil, nil, nil, nil
	lp.joinBuf, lp.stack, lp.closers, lp.joined = nil, nil, nil, nil
	r.freeCuts = nil
	lp.names, lp.internBytes, lp.calls, lp.annos = nil, 0, nil, [2]string{}
	lp.text, lp.ev, lp.mem = nil, nil, nil

	moved := map[*Event]*Event{}
	move := func(ev *Event) *Event {
		if ev == nil {
			return nil
		}
		if c, ok := moved[ev]; ok {
			return c
		}
		c := detach(ev)
		moved[ev] = c
		return c
	}
	ready := make([]*Event, 0, len(r.ready)-r.head)
	for _, ev := range r.ready[r.head:] {
		ready = append(ready, move(ev))
	}
	r.ready, r.head = ready, 0
	for pid, ev := range r.pending {
		r.pending[pid] = move(ev)
	}
	r.hold, r.cut = move(r.hold), move(r.cut)
	for ev := range moved {
		// Nothing points at the originals any more: a recycling
		// Pipeline's Readers may build new events in them.
		r.opt.pool.put(ev)
	}
	return err
}

// resume goes on reading from f, the file park closed, opened again.
func (r *Reader) resume(f *os.File, size int) error {
	if _, err := f.Seek(r.off, io.SeekStart); err != nil {
		return err
	}
	r.c, r.br = f, bufio.NewReaderSize(f, size)
	r.lp.names = map[string]string{}
	return nil
}

// parked reports whether r's file is closed by park.
func (r *Reader) parked() bool { return r.br == nil }

// detach copies ev out of the slabs its parts were carved from.
func detach(ev *Event) *Event {
	c := new(Event)
	*c = *ev
	c.Args = detachValues(ev.Args)
	if ev.Extra != nil {
		x := *ev.Extra
		// The frames' slice too: a recycled event reuses its room.
		x.Stack = slices.Clone(x.Stack)
		c.Extra = &x
	}
	return c
}

func detachValues(vs []Value) []Value {
	if vs == nil {
		return nil
	}
	out := make([]Value, len(vs))
	copy(out, vs)
	for i := range out {
		v := &out[i]
		v.Elems = detachValues(v.Elems)
		if v.Extra != nil {
			x := *v.Extra
			if x.Exit != nil {
				e := detachValues([]Value{*x.Exit})
				x.Exit = &e[0]
			}
			v.Extra = &x
		}
	}
	return out
}
