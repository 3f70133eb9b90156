package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// eventJSON is report.EventJSON, under the name the tests know.
type eventJSON = report.EventJSON

type eventsCmd struct {
	Format string `enum:"text,json,count" default:"text" help:"Output format: text; json (JSON Lines, one object per event); count (parse only, print the number of events: the parser's speed; no call's arguments are decoded, but every line is read and a line that does not read is still an error)."`
	Trace  string `arg:"" help:"strace log, or the PREFIX of an strace -ff set (PREFIX.PID files)."`
}

func (c *eventsCmd) Run(g *Globals) error {
	procs := startProcs(g, c.Trace)
	open := openTrace
	if c.Format == "count" {
		open = openParseOnly
	}
	stream, err := open(c.Trace, g)
	if err != nil {
		return err
	}
	defer stream.Close()
	data := parser.NewDataReader()
	defer data.Close()
	preview := func(ref parser.DataRef) string { return previewData(data, ref) }

	w := bufio.NewWriterSize(g.stdout, 64<<10)
	defer w.Flush()
	if c.Format == "count" {
		n := 0
		for {
			err := parser.Skip(stream)
			if err == nil {
				n++
				continue
			}
			if errors.Is(err, io.EOF) {
				fmt.Fprintf(w, "%d events\n", n)
				return nil
			}
			return inputError(err)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return inputError(err)
		}
		paths := procs.Paths(ev)
		procs.Apply(ev, paths)
		if c.Format == "json" {
			if err := enc.Encode(report.EventRecord(ev, paths, preview)); err != nil {
				return err
			}
			continue
		}
		report.EventText(w, ev, paths, preview)
	}
}

// previewData shows the first bytes of a data buffer, quoted.
func previewData(data *parser.DataReader, ref parser.DataRef) string {
	const n = 32
	b, err := data.Bytes(ref, n+1)
	if err != nil {
		return "<data: " + err.Error() + ">"
	}
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}

// Skip passes an event for `events --format count` (parser.Skip), drawing
// the bar as Next does.
func (s *progressStream) Skip() error {
	if s.n++; s.n%1024 == 1 {
		s.p.draw()
	}
	return parser.Skip(s.Stream)
}

// Skip passes an event of the file whose reading p counts.
func (s progressSource) Skip() error { return parser.Skip(s.Stream) }
