package parser

import (
	"errors"
	"unsafe"
)

// pipelineBatch is how many events the parsing goroutine gathers before it
// hands them over: one channel operation per batch, not per event. A
// variable so that a test can hand over (and recycle) every event alone.
var pipelineBatch = 256

// pipelineDepth is how many batches may wait for the consumer; it bounds
// how far parsing runs ahead, and so the memory it holds.
const pipelineDepth = 4

// Pipeline opens a stream with open and runs its Next on a goroutine of
// its own, so that parsing and what the caller does with each event run
// side by side. The events come in the order and with the contents the
// stream itself gives; an error comes after every event before it.
//
// The options' Warn and Diag callbacks do not run on the parsing
// goroutine: Pipeline replaces them, keeps each message in the stream of
// events, and calls the caller's callbacks from Next, on the caller's
// goroutine, just before the event they came before when read without a
// pipeline. A caller therefore sees every message at the same point of
// the trace, and its callbacks need no locks.
//
// Without opt.Recycle events are never reused, so a caller may keep any.
// With it, the events of a batch go back to the parsing goroutine when
// Next moves on to the next batch, and the stream's Readers build later
// events in their memory: an event is valid only until the next call to
// Next (see Options.Recycle). Close stops the goroutine and waits for it,
// then closes the stream.
func Pipeline(opt Options, open func(Options) (Stream, error)) (Stream, error) {
	p := &pipeline{
		warn:    opt.Warn,
		diag:    opt.Diag,
		batches: make(chan pipeBatch, pipelineDepth),
		free:    make(chan []pipeItem, pipelineDepth+2),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	if opt.Recycle {
		// Every Reader opened with opt takes its events from the pool,
		// on the parsing goroutine (open runs before it starts).
		p.pool = new(eventPool)
		opt.pool = p.pool
	}
	if opt.Warn != nil {
		opt.Warn = func(pos Pos, msg string) { p.fill = append(p.fill, pipeItem{note: &pipeNote{pos: pos, text: msg}}) }
	}
	if opt.Diag != nil {
		opt.Diag = func(pos Pos, text string) {
			p.fill = append(p.fill, pipeItem{note: &pipeNote{diag: true, pos: pos, text: text}})
		}
	}
	// The callbacks run while open reads (a trace's first lines may be
	// read there), before the goroutine starts: what they keep waits in
	// p.fill for the first batch.
	s, err := open(opt)
	if err != nil {
		p.flushNotes()
		return nil, err
	}
	p.src = s
	go p.run()
	return p, nil
}

// pipeItem is an event, or a message that came before the next one.
type pipeItem struct {
	ev   *Event
	note *pipeNote
}

type pipeNote struct {
	diag bool
	pos  Pos
	text string
}

// pipeBatch is what the parsing goroutine hands over: events and messages
// in trace order, then, in the last batch, the error that ended it.
type pipeBatch struct {
	items []pipeItem
	err   error
}

type pipeline struct {
	src        Stream
	warn, diag func(Pos, string)

	batches chan pipeBatch
	free    chan []pipeItem // handed-back batch slices, for reuse
	stop    chan struct{}   // closed by Close
	done    chan struct{}   // closed when the goroutine ends

	fill []pipeItem // the batch being gathered; the goroutine's own
	// pool takes back the events of handed-back batches when recycling
	// (Options.Recycle); the goroutine's own.
	pool *eventPool

	cur    pipeBatch // the batch being handed out; the caller's own
	pos    int
	err    error
	closed bool
}

var errPipelineClosed = errors.New("parser: Next on a closed pipeline")

func (p *pipeline) run() {
	defer close(p.done)
	if p.fill == nil {
		p.fill = make([]pipeItem, 0, pipelineBatch)
	}
	for {
		ev, err := p.src.Next()
		if err != nil {
			p.send(pipeBatch{items: p.fill, err: err})
			return
		}
		p.fill = append(p.fill, pipeItem{ev: ev})
		if len(p.fill) >= pipelineBatch {
			if !p.send(pipeBatch{items: p.fill}) {
				return
			}
			select {
			case s := <-p.free:
				if p.pool != nil {
					// The caller has moved past these events.
					for _, it := range s {
						if it.ev != nil {
							p.pool.put(it.ev)
						}
					}
					clear(s)
				}
				p.fill = s[:0]
			default:
				p.fill = make([]pipeItem, 0, pipelineBatch)
			}
		}
	}
}

// send hands a batch over, or gives up when the pipeline is closed.
func (p *pipeline) send(b pipeBatch) bool {
	select {
	case p.batches <- b:
		return true
	case <-p.stop:
		return false
	}
}

// Next returns the next event, after calling the callbacks of the
// messages that came before it.
func (p *pipeline) Next() (*Event, error) {
	if p.closed {
		return nil, errPipelineClosed
	}
	for {
		for p.pos < len(p.cur.items) {
			it := p.cur.items[p.pos]
			p.prefetch()
			p.pos++
			if it.ev != nil {
				return it.ev, nil
			}
			p.deliver(it.note)
		}
		if p.err != nil {
			return nil, p.err
		}
		if p.cur.err != nil {
			p.err = p.cur.err
			continue
		}
		if p.cur.items != nil {
			// Hand the slice back: with its events when they are to be
			// recycled, else without them, so that it keeps none alive.
			if p.pool == nil {
				clear(p.cur.items)
			}
			select {
			case p.free <- p.cur.items:
			default:
				// Never full: a new slice is made only when none is
				// free, so no more than the batches under way and the
				// one being filled exist. Were it full, the events would
				// be left to the collector.
			}
		}
		p.cur, p.pos = <-p.batches, 0
	}
}

// prefetch asks the CPU for the events the caller is about to read, a
// few ahead of the one Next hands out: the parsing goroutine wrote them
// on the other CPU, so each one's first read would otherwise wait for its
// cache lines to cross over (on a consumer-bound check of a million
// settled files, a tenth of its wall time). Four events ahead, the
// lines of the event itself (about three, not aligned to one); two ahead,
// by when those have come, the first four lines of its arguments.
func (p *pipeline) prefetch() {
	items := p.cur.items
	if k := p.pos + 4; k < len(items) {
		if e := items[k].ev; e != nil {
			prefetch4(unsafe.Pointer(e))
		}
	}
	if k := p.pos + 2; k < len(items) {
		if e := items[k].ev; e != nil && len(e.Args) > 0 {
			prefetch4(unsafe.Pointer(&e.Args[0]))
		}
	}
}

func (p *pipeline) deliver(n *pipeNote) {
	switch {
	case n.diag && p.diag != nil:
		p.diag(n.pos, n.text)
	case !n.diag && p.warn != nil:
		p.warn(n.pos, n.text)
	}
}

// flushNotes delivers the messages kept while open failed.
func (p *pipeline) flushNotes() {
	for _, it := range p.fill {
		p.deliver(it.note)
	}
	p.fill = nil
}

// Close stops the parsing goroutine, waits for it to end, and closes the
// stream.
func (p *pipeline) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	close(p.stop)
	<-p.done
	return p.src.Close()
}

// PipelineSource returns the stream a Pipeline reads, or s itself when s
// is no pipeline.
func PipelineSource(s Stream) Stream {
	if p, ok := s.(*pipeline); ok {
		return p.src
	}
	return s
}
