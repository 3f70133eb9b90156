package main

import (
	"io"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
)

type mergeCmd struct {
	FailOn  string   `enum:"error,warning,info,never" default:"warning" help:"Exit 1 when a merged finding is at least this severe: error, warning, info or never."`
	Output  string   `short:"o" placeholder:"FILE" help:"Write the merged report to FILE (atomically) instead of stdout."`
	Reports []string `arg:"" name:"report" help:"The reports of every shard of one run (crashsim explore --shard I/N --format json|sarif), in any order."`
}

// Help is the detail under `crashsim merge --help`.
func (c *mergeCmd) Help() string {
	return `Reads the report of each shard of one explore run (all JSON or all SARIF) and writes the report the run would have written unsharded: a problem several shards found (the rejected states of one file, checked apart) joined into one, its findings in the order of their states, counts summed. A report that is not a shard, a shard missing or given twice, or shards of different runs are refused.

Exit status: 0 nothing at or above --fail-on and no blind spot, 1 findings, 2 usage error, 3 a report unreadable, not a shard or from another run, 6 no such finding but a blind spot the shards report and do not accept (as each shard exits).`
}

func (c *mergeCmd) Run(g *Globals) error {
	threshold, err := check.ParseSeverity(c.FailOn)
	if err != nil {
		return withCode(exitUsage, err)
	}
	var shards []wire.Shard
	for _, name := range c.Reports {
		s, closer, err := wire.OpenShard(name)
		if err != nil {
			return withCode(exitInput, err)
		}
		defer closer.Close()
		shards = append(shards, s)
	}
	var merged *wire.Merged
	err = writeOutput(g, c.Output, func(w io.Writer, _ bool) error {
		merged, err = wire.Merge(w, shards)
		return err
	})
	if err != nil {
		return withCode(exitInput, err)
	}
	counts := check.Summary{Errors: merged.Errors, Warnings: merged.Warnings, Infos: merged.Infos}
	if counts.AtLeast(threshold) {
		return withCode(exitFindings, nil)
	}
	if merged.Blind > 0 {
		// As each shard exits: a run that could not see everything is
		// no clean run, merged or not.
		return withCode(exitBlind, nil)
	}
	return nil
}
