package main

import (
	"bufio"
	"encoding/json"
	"fmt"

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
	in := g.inputs(c.Trace)
	w := bufio.NewWriterSize(g.stdout, 64<<10)
	defer w.Flush()
	if c.Format == "count" {
		n, err := in.CountEvents(c.Trace)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%d events\n", n)
		return nil
	}
	data := parser.NewDataReader()
	defer data.Close()
	preview := report.Preview(data)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return in.EachCall(c.Trace, func(ev *parser.Event, paths []string) error {
		if c.Format == "json" {
			return enc.Encode(report.EventRecord(ev, paths, preview))
		}
		report.EventText(w, ev, paths, preview)
		return nil
	})
}
