package main

import (
	"bufio"

	"github.com/crashsim/crashsim/report"
)

// fileStats is report.FileStats, under the name the tests know.
type fileStats = report.FileStats

type statsCmd struct {
	Format string   `enum:"text,json" default:"text" help:"Output format: text (a table) or json."`
	Root   []string `placeholder:"DIR" help:"Only files below DIR are counted (repeatable). Default: every file but /proc, /sys, /dev, /acct, pipes and sockets."`
	Trace  string   `arg:"" help:"strace log, or the PREFIX of an strace -ff set (PREFIX.PID files)."`
}

func (c *statsCmd) Run(g *Globals) error {
	in := g.inputs(c.Trace)
	list, err := in.Stats(c.Trace, c.Root)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(g.stdout)
	if c.Format == "json" {
		if err := report.StatsJSON(w, list); err != nil {
			return err
		}
	} else {
		report.StatsTable(w, list)
	}
	return w.Flush()
}
